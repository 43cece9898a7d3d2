# shellcheck shell=sh
# one-of: retention-*.sh
# Retention for backup-cronjobs containers: list the backups of one
# destination, plan which to keep (the same algorithm as the TypeScript
# reference in lib/retention/plan.ts, compared byte for byte by property
# tests), print the plan, and delete the rest -- or only print it (dry run).
#
# Functions only: the renderer appends this file after common.sh (which
# provides log/info/die/require_env/require_cmd and `set -eu`), with exactly
# one destination module chosen at render time from the container's
# BACKUP_DEST_KIND: retention-<kind>.sh (retention-dir.sh, retention-s3.sh, or
# an engine's own in lib/engines/<engine>/scripts), each defining _rt_check_dest, retention_destination, retention_list and
# retention_delete. Used by prune.sh (the retention-prune CronJob) and by the
# engines' backup scripts, which call `retention_apply "<name of the backup
# just verified>"` right after a verified backup.
#
# Needs: POSIX sh, awk, sort, date, mktemp, wc, rm (coreutils or busybox);
# what the destination module needs (`aws` for s3). Bucket rules in a zone other than UTC
# need that zone's zoneinfo file (Debian/Alpine package `tzdata`): without it
# the scripts stop instead of silently computing in UTC.
#
# Environment (names defined once in lib/retention/env.ts):
#   RETENTION_KEEP_LAST, RETENTION_MAX_AGE_SECONDS, RETENTION_MAX_TOTAL_BYTES,
#   RETENTION_HOURLY, RETENTION_DAILY, RETENTION_WEEKLY, RETENTION_MONTHLY,
#   RETENTION_YEARLY   positive integers; unset or empty = rule not used
#   RETENTION_TIME_ZONE  IANA zone of the bucket rules (default UTC)
#   RETENTION_DRY_RUN    true = print the plan, delete nothing (default false)
#   RETENTION_NOW        epoch seconds used as "now" (tests only)
#   BACKUP_DEST_KIND     dir | s3 | an engine's kind: the destination module's
#   dir:    BACKUP_DIR, BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX (optional)
#   s3:     S3_BUCKET, S3_PREFIX (optional key prefix before the name prefix),
#           BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX, S3_ENDPOINT (optional),
#           S3_FORCE_PATH_STYLE (true|false), AWS_* as the aws CLI reads them
#   dir/s3: BACKUP_SIDECAR_SUFFIXES  space-separated suffixes (e.g. ".json")
#           of sidecar files/objects deleted together with their backup: the
#           backup's name without its ".age" and the suffix, encrypted
#           (".age" after it) or not
#   an engine's kind: what its module says
#
# What counts as a backup: dir/s3 names exactly
# <BACKUP_NAME_PREFIX><YYYY-MM-DDTHH:MM:SSZ><BACKUP_NAME_SUFFIX> (time in UTC,
# taken from the name, not from mtime/LastModified); anything else -- other
# prefixes or shards, `*.partial` or temporary files, sidecars, directories,
# symlinks -- is never listed, kept or deleted. Writers must create a backup
# under another name and give it its final name only once it is verified.
# An engine's module may list names of its own form (_rt_parse_names).
#
# Listing format (retention_list output, retention_plan input):
#   <epoch seconds><TAB><size bytes><TAB><name>
# Plan format: see formatPlan in lib/retention/plan.ts.

# True when at least one retention rule is set.
retention_configured() {
  [ -n "${RETENTION_KEEP_LAST:-}${RETENTION_MAX_AGE_SECONDS:-}${RETENTION_MAX_TOTAL_BYTES:-}${RETENTION_HOURLY:-}${RETENTION_DAILY:-}${RETENTION_WEEKLY:-}${RETENTION_MONTHLY:-}${RETENTION_YEARLY:-}" ]
}

_rt_init() {
  _rt_tab=$(printf '\t')
  _rt_nl='
'
}

# Validates the rule variables (empty or a positive integer of at most 15
# digits), the time zone (syntax) and RETENTION_DRY_RUN. Sets _rt_zone.
_rt_check_rules() {
  _rt_init
  for _rt_v in RETENTION_KEEP_LAST RETENTION_MAX_AGE_SECONDS RETENTION_MAX_TOTAL_BYTES RETENTION_HOURLY RETENTION_DAILY RETENTION_WEEKLY RETENTION_MONTHLY RETENTION_YEARLY; do
    eval "_rt_n=\${$_rt_v:-}"
    # shellcheck disable=SC2154 # _rt_n: set by the eval
    case $_rt_n in
      '') ;;
      0* | *[!0-9]*) die "$_rt_v must be a positive integer without leading zeros, got '$_rt_n'" ;;
      ????????????????*) die "$_rt_v is too large: '$_rt_n'" ;;
    esac
  done
  _rt_zone=${RETENTION_TIME_ZONE:-UTC}
  case $_rt_zone in
    /* | */ | *//* | *..* | *[!A-Za-z0-9_+/-]*) die "RETENTION_TIME_ZONE must be an IANA zone name such as Europe/Berlin, got '$_rt_zone'" ;;
  esac
  case ${RETENTION_DRY_RUN:-false} in
    true | false) ;;
    *) die "RETENTION_DRY_RUN must be true or false, got '${RETENTION_DRY_RUN:-}'" ;;
  esac
}

# Validates everything retention_apply needs (once); the destination module's
# _rt_check_dest checks its own variables.
retention_check_env() {
  [ -z "${_rt_checked:-}" ] || return 0
  _rt_check_rules
  require_env BACKUP_DEST_KIND
  require_cmd awk sort date mktemp rm
  _rt_check_dest
  _rt_checked=1
}

# _rt_kind KIND: BACKUP_DEST_KIND must be KIND, the destination module joined at render time.
_rt_kind() {
  [ "$BACKUP_DEST_KIND" = "$1" ] || die "BACKUP_DEST_KIND must be $1 (the destination this script was rendered for), got '$BACKUP_DEST_KIND'"
}

# _rt_no_slash NAME VALUE: no "/", tab or newline (names stay in one directory
# level and in one listing field).
_rt_no_slash() {
  case $2 in */* | *"$_rt_tab"* | *"$_rt_nl"*) die "$1 must not contain '/', tab or newline, got '$2'" ;; esac
}

# The name variables of the dir and s3 destinations.
_rt_check_names() {
  require_env BACKUP_NAME_PREFIX
  _rt_no_slash BACKUP_NAME_PREFIX "$BACKUP_NAME_PREFIX"
  _rt_no_slash BACKUP_NAME_SUFFIX "${BACKUP_NAME_SUFFIX:-}"
  # Split on spaces when deleting, so no glob characters (they would expand).
  case ${BACKUP_SIDECAR_SUFFIXES:-} in
    *[*?[]* | */*) die "BACKUP_SIDECAR_SUFFIXES must be space-separated suffixes without '/', '*', '?' or '[', got '${BACKUP_SIDECAR_SUFFIXES:-}'" ;;
  esac
}

# _rt_parse_names ORDER PREFIX SUFFIX [NAME_RE TIME_AT]: reads "<size>\t<name>"
# (ORDER=size_name) or "<name>\t<size>" (ORDER=name_size) lines and prints
# the listing lines of the names that are backups: PREFIX +
# YYYY-MM-DDTHH:MM:SSZ + SUFFIX exactly, or with ".age" after it (encrypted,
# spec.encryption). With NAME_RE (an awk regular expression, for a module's
# own names), the names it matches, their UTC time at TIME_AT: the 1-based
# offsets of the 4-digit year and of the 2-digit month, day, hour, minute and
# second ("1 6 9 12 14 16"). Other lines are skipped; a backup whose size is
# not a whole number fails the listing (exit 1).
_rt_parse_names() {
  _RT_ORDER=$1 _RT_PREFIX=$2 _RT_SUFFIX=$3 _RT_NAME_RE=${4:-} _RT_TIME_AT=${5:-} LC_ALL=C awk '
    function epoch(y, mo, d, h, mi, s,   leap, dim, yy, era, yoe, doy, doe) {
      if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return -1
      leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
      dim = substr("312831303130313130313031", 2 * mo - 1, 2) + 0
      if (mo == 2 && leap) dim = 29
      if (d > dim) return -1
      yy = mo <= 2 ? y - 1 : y
      era = int(yy / 400); yoe = yy - era * 400
      doy = int((153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5) + d - 1
      doe = yoe * 365 + int(yoe / 4) - int(yoe / 100) + doy
      return (era * 146097 + doe - 719468) * 86400 + h * 3600 + mi * 60 + s
    }
    BEGIN {
      FS = "\t"; order = ENVIRON["_RT_ORDER"]; re = ENVIRON["_RT_NAME_RE"]; split(ENVIRON["_RT_TIME_AT"], at, " ")
      pre = ENVIRON["_RT_PREFIX"]; suf = ENVIRON["_RT_SUFFIX"]
      lp = length(pre); ls = length(suf)
    }
    NF != 2 { next }
    {
      if (order == "name_size") { name = $1; size = $2 } else { size = $1; name = $2 }
      if (re == "") {
        # the name of an encrypted backup ends with ".age" after the suffix
        if (substr(name, lp + 21) != suf && substr(name, lp + 21) != suf ".age") next
        if (length(name) < lp + 20 + ls || substr(name, 1, lp) != pre) next
        ts = substr(name, lp + 1, 20)
        if (ts !~ /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z$/) next
        e = epoch(substr(ts, 1, 4) + 0, substr(ts, 6, 2) + 0, substr(ts, 9, 2) + 0, substr(ts, 12, 2) + 0, substr(ts, 15, 2) + 0, substr(ts, 18, 2) + 0)
      } else {
        if (name !~ re) next
        e = epoch(substr(name, at[1], 4) + 0, substr(name, at[2], 2) + 0, substr(name, at[3], 2) + 0, substr(name, at[4], 2) + 0, substr(name, at[5], 2) + 0, substr(name, at[6], 2) + 0)
      }
      if (e < 0 || e > 253402300799) next
      if (size !~ /^(0|[1-9][0-9]*)$/ || length(size) > 16 || size + 0 > 9007199254740991) {
        printf "unexpected size \"%s\" of %s\n", size, name > "/dev/stderr"
        failed = 1
        exit 1
      }
      printf "%.0f\t%s\t%s\n", e, size, name
    }
    END { if (failed) exit 1 }'
}

# _rt_period_keys EPOCHS_FILE KEYS_FILE: for each "@<epoch>" line, writes one
# "Y m d H G V" line (local year, month, day, hour, ISO week-year, ISO week in
# the zone $_rt_tzval). GNU date converts them all in one process
# (`date -f`); busybox date has no -f, so it falls back to one process per
# entry (rewriting KEYS_FILE from scratch).
_rt_period_keys() {
  TZ=$_rt_tzval date -f "$1" '+%Y %m %d %H %G %V' >"$2" 2>/dev/null && return 0
  while IFS= read -r _rt_e; do
    TZ=$_rt_tzval date -d "$_rt_e" '+%Y %m %d %H %G %V' || return 1
  done <"$1" >"$2"
}

# Reads a listing on stdin and prints the plan (formatPlan's format) on
# stdout. Non-zero, with one error line, on a malformed listing or any
# failure. Deletes nothing.
#
# Steps: validate the listing (awk; also writes each distinct "@epoch" when
# a bucket rule is set), sort newest first (time desc, name desc, bytes),
# local period keys of the epochs (date), plan and print (awk).
retention_plan() {
  _rt_check_rules
  _rt_now=${RETENTION_NOW:-$(date -u +%s)} || die "cannot read the current time"
  case $_rt_now in '' | *[!0-9]* | 0?*) die "RETENTION_NOW must be epoch seconds, got '$_rt_now'" ;; esac
  _rt_buckets=${RETENTION_HOURLY:-}${RETENTION_DAILY:-}${RETENTION_WEEKLY:-}${RETENTION_MONTHLY:-}${RETENTION_YEARLY:-}
  _rt_tzval=$_rt_zone
  case $_rt_zone in UTC | Etc/UTC) _rt_tzval=UTC0 ;; esac
  # Without its zoneinfo file, libc silently uses UTC: refuse instead.
  [ -z "$_rt_buckets" ] || [ "$_rt_tzval" = UTC0 ] || [ -f "${TZDIR:-/usr/share/zoneinfo}/$_rt_zone" ] ||
    die "time zone $_rt_zone: no zoneinfo file ${TZDIR:-/usr/share/zoneinfo}/$_rt_zone in this image (install tzdata); refusing to compute periods in UTC instead; nothing deleted"
  _rt_ptmp=$(mktemp -d "${TMPDIR:-/tmp}/retention-plan.XXXXXX") || die "cannot create a temporary directory in ${TMPDIR:-/tmp}"
  _RT_EPOCHS=$_rt_ptmp/epochs _RT_BUCKETS=$_rt_buckets LC_ALL=C awk '
    function bad(msg) {
      printf "%s\n", "line " NR ": " msg
      failed = 1
      exit 1
    }
    BEGIN { FS = "\t"; epochs = ENVIRON["_RT_EPOCHS"]; buckets = (ENVIRON["_RT_BUCKETS"] != ""); printf "" > epochs }
    $0 == "" { next }
    {
      if (NF != 3) bad(NF " tab-separated field(s)")
      if ($1 !~ /^(0|[1-9][0-9]*)$/ || length($1) > 12 || $1 + 0 > 253402300799) bad("bad epoch seconds")
      if ($2 !~ /^(0|[1-9][0-9]*)$/ || length($2) > 16 || $2 + 0 > 9007199254740991) bad("bad size")
      if ($3 == "") bad("empty name")
      if ($3 in seen) bad("duplicate backup name")
      seen[$3] = 1
      if (buckets && !($1 in epoch)) { epoch[$1] = 1; print "@" $1 > epochs }
      print
    }
    END { if (failed) exit 1 }' >"$_rt_ptmp/valid" ||
    _rt_abort "$_rt_ptmp" "the backup listing is malformed ($(awk 'END { print $0 }' "$_rt_ptmp/valid"); expected <epoch seconds><TAB><size bytes><TAB><name>)"
  LC_ALL=C sort -t "$_rt_tab" -k1,1nr -k3r "$_rt_ptmp/valid" >"$_rt_ptmp/sorted" || _rt_abort "$_rt_ptmp" "sorting the backup listing failed"
  : >"$_rt_ptmp/keys"
  if [ -n "$_rt_buckets" ] && [ -s "$_rt_ptmp/epochs" ]; then
    _rt_period_keys "$_rt_ptmp/epochs" "$_rt_ptmp/keys" || _rt_abort "$_rt_ptmp" "computing the local periods in time zone $_rt_zone with date failed"
  fi
  _RT_NOW=$_rt_now _RT_ZONE=$_rt_zone _RT_EPOCHS=$_rt_ptmp/epochs _RT_KEYS=$_rt_ptmp/keys LC_ALL=C awk '
    function iso(t,   days, secs, z, era, doe, yoe, doy, mp, d, m, y) {
      days = int(t / 86400); secs = t - days * 86400
      z = days + 719468; era = int(z / 146097); doe = z - era * 146097
      yoe = int((doe - int(doe / 1460) + int(doe / 36524) - int(doe / 146096)) / 365)
      y = yoe + era * 400; doy = doe - (365 * yoe + int(yoe / 4) - int(yoe / 100))
      mp = int((5 * doy + 2) / 153); d = doy - int((153 * mp + 2) / 5) + 1
      m = mp < 10 ? mp + 3 : mp - 9
      if (m <= 2) y++
      return sprintf("%04d-%02d-%02dT%02d:%02d:%02dZ", y, m, d, int(secs / 3600), int((secs % 3600) / 60), secs % 60)
    }
    function fatal(msg) { printf "%s\n", msg > "/dev/stderr"; failed = 1; exit 1 }
    BEGIN {
      FS = "\t"
      now = ENVIRON["_RT_NOW"]; zone = ENVIRON["_RT_ZONE"]
      keepLast = ENVIRON["RETENTION_KEEP_LAST"]; maxAge = ENVIRON["RETENTION_MAX_AGE_SECONDS"]
      maxTotal = ENVIRON["RETENTION_MAX_TOTAL_BYTES"]
      nb = 0
      split("hourly daily weekly monthly yearly", names, " ")
      split("RETENTION_HOURLY RETENTION_DAILY RETENTION_WEEKLY RETENTION_MONTHLY RETENTION_YEARLY", vars, " ")
      rules = ""
      if (keepLast != "") rules = rules " keepLast=" keepLast
      if (maxAge != "") rules = rules " maxAge=" maxAge "s"
      if (maxTotal != "") rules = rules " maxTotalSize=" maxTotal "B"
      for (r = 1; r <= 5; r++) {
        if (ENVIRON[vars[r]] != "") {
          nb++; bname[nb] = names[r]; blimit[nb] = ENVIRON[vars[r]] + 0; bcount[nb] = 0
          rules = rules " " names[r] "=" ENVIRON[vars[r]]
        }
      }
      norules = (rules == "")
      rules = norules ? "none (every backup is kept)" : substr(rules, 2)
      # "@epoch" lines and their "Y m d H G V" keys, line by line.
      if (nb > 0) {
        while ((getline e < ENVIRON["_RT_EPOCHS"]) > 0) {
          if ((getline k < ENVIRON["_RT_KEYS"]) <= 0) fatal("date printed fewer period keys than epochs")
          if (k !~ /^[0-9][0-9][0-9][0-9] [0-9][0-9] [0-9][0-9] [0-9][0-9] [0-9][0-9][0-9][0-9] [0-9][0-9]$/) fatal("date printed unexpected period keys: " k)
          keys[substr(e, 2)] = k
        }
        if ((getline k < ENVIRON["_RT_KEYS"]) > 0) fatal("date printed more period keys than epochs")
      }
      n = 0; kept = 0; cum = 0
    }
    {
      n++
      t = $1 + 0
      reasons = ""
      if (n == 1) reasons = reasons ",newest"
      if (norules) reasons = reasons ",noRules"
      if (keepLast != "" && n <= keepLast + 0) reasons = reasons ",keepLast"
      if (maxAge != "" && now - t <= maxAge + 0) reasons = reasons ",maxAge"
      if (maxTotal != "") { cum += $2; if (cum <= maxTotal + 0) reasons = reasons ",maxTotalSize" }
      if (nb > 0) {
        if (!($1 in keys)) fatal("no period keys for " $1)
        split(keys[$1], f, " ")
        key["hourly"] = f[1] "-" f[2] "-" f[3] "T" f[4]
        key["daily"] = f[1] "-" f[2] "-" f[3]
        key["weekly"] = f[5] "-W" f[6]
        key["monthly"] = f[1] "-" f[2]
        key["yearly"] = f[1]
        for (b = 1; b <= nb; b++) {
          kk = bname[b] SUBSEP key[bname[b]]
          if (!(kk in seen) && bcount[b] < blimit[b]) {
            seen[kk] = 1; bcount[b]++
            reasons = reasons "," bname[b] ":" key[bname[b]]
          }
        }
      }
      if (reasons != "") { kept++; line[n] = "keep\t" iso(t) "\t" $2 "\t" $3 "\t" substr(reasons, 2) }
      else line[n] = "delete\t" iso(t) "\t" $2 "\t" $3 "\t-"
    }
    END {
      if (failed) exit 1
      printf "# retention plan at %s (now=%s), time zone %s\n", iso(now + 0), now, zone
      printf "# rules: %s\n", rules
      printf "# backups: %d, keep: %d, delete: %d\n", n, kept, n - kept
      for (i = 1; i <= n; i++) print line[i]
    }' "$_rt_ptmp/sorted" || _rt_abort "$_rt_ptmp" "planning the retention failed"
  rm -rf "$_rt_ptmp"
}

# _rt_abort TMPDIR MESSAGE: removes TMPDIR and dies with "MESSAGE; nothing deleted".
_rt_abort() {
  rm -rf "$1"
  die "$2; nothing deleted"
}

# retention_apply [NEW_BACKUP]: list, plan, print the plan on stdout, then
# delete what the plan does not keep -- or nothing with RETENTION_DRY_RUN=true.
# NEW_BACKUP (the listing name of the backup just verified: file name, object
# key or an engine's backup name) must be the newest listed, else nothing is
# deleted (a clock skew or naming problem must not prune the new backup's
# predecessors). Stops at the first failed deletion (non-zero exit).
# A caller may set the shell variables _rt_lister (a function printing the
# same listing format, default retention_list) and _rt_scope (what that
# listing covers, for the log lines), e.g. etcd's cluster-wide scope.
retention_apply() {
  retention_check_env
  _rt_expect=${1:-}
  _rt_where="${_rt_scope:+$_rt_scope at }$(retention_destination)"
  _rt_atmp=$(mktemp -d "${TMPDIR:-/tmp}/retention.XXXXXX") || die "cannot create a temporary directory in ${TMPDIR:-/tmp}"
  _rt_err="listing failed"
  "${_rt_lister:-retention_list}" >"$_rt_atmp/listing" || _rt_abort "$_rt_atmp" "listing the backups at $_rt_where failed ($_rt_err)"
  # In a subshell: a failing plan logs its own error line and exits there.
  (retention_plan <"$_rt_atmp/listing" >"$_rt_atmp/plan") || { rm -rf "$_rt_atmp"; exit 1; }
  cat "$_rt_atmp/plan"
  _rt_newest=$(awk -F '\t' '$1 == "keep" || $1 == "delete" { print $4; exit }' "$_rt_atmp/plan")
  [ -z "$_rt_expect" ] || [ "$_rt_newest" = "$_rt_expect" ] ||
    _rt_abort "$_rt_atmp" "refusing to prune $_rt_where: the backup just verified ($_rt_expect) is not the newest listed (${_rt_newest:-none}); check clocks and names"
  awk -F '\t' '$1 == "delete" { print $4 }' "$_rt_atmp/plan" >"$_rt_atmp/delete"
  _rt_total=$(awk 'END { print NR }' "$_rt_atmp/delete")
  if [ "${RETENTION_DRY_RUN:-false}" = true ]; then
    rm -rf "$_rt_atmp"
    info "dry run (RETENTION_DRY_RUN=true): $_rt_total backup(s) at $_rt_where would be deleted; nothing deleted"
    return 0
  fi
  _rt_done=0 _rt_kept_locked=0
  while IFS= read -r _rt_name; do
    _rt_st=0
    retention_delete "$_rt_name" || _rt_st=$?
    case $_rt_st in
      0)
        _rt_done=$((_rt_done + 1))
        info "deleted $_rt_name" ;;
      3)
        _rt_kept_locked=$((_rt_kept_locked + 1))
        info "not deleted yet: $_rt_name is ${_rt_lock_why:-locked}" ;;
      *)
        rm -rf "$_rt_atmp"
        die "deleting $_rt_name at $_rt_where failed; stopped after $_rt_done of $_rt_total deletion(s)" ;;
    esac
  done <"$_rt_atmp/delete"
  rm -rf "$_rt_atmp"
  if [ -n "${S3_OBJECT_LOCK_MODE:-}" ]; then
    RETENTION_LOCKED=$((${RETENTION_LOCKED:-0} + _rt_kept_locked))
    info "retention at $_rt_where: deleted $_rt_done backup(s); $_rt_kept_locked more are due but still locked (S3 Object Lock)"
    push_gauges retention_locked "$RETENTION_LOCKED" "Backups the retention rules would delete that the S3 Object Lock still keeps."
  else
    info "retention at $_rt_where: deleted $_rt_done backup(s)"
  fi
}
