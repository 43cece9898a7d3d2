# shellcheck shell=sh disable=SC2034,SC2154 # CONTENT_*: read by the entry; _rt_err: set by retention_list
# needs: retention.sh
# Content checks (spec.contentChecks) of a backup before it is stored: what it
# holds against the newest earlier backup of the same target, found with the
# destination's retention_list and read from its metadata sidecar
# (<name without .age>BACKUP_CONTENT_METADATA_SUFFIX: its "keyCount", else the
# sum of its "databases" {"<db>": <keys>, ...}, which a Redis backup records).
# Env: BACKUP_CONTENT_ALLOW_EMPTY (true|false), BACKUP_CONTENT_SHRINK_BELOW_PERCENT
# (1-100), BACKUP_CONTENT_ON_SHRINK (warn|fail), BACKUP_CONTENT_METADATA_SUFFIX.
#
# The lookup of the earlier backup (a listing and a read: two calls to the
# destination) runs when content_verdict needs it, or earlier, in the
# background, with content_lookup_start: a step that streams its backup starts
# it beside the stream, so that it costs no time at the check.

# content_check KEYS WHAT [WHY]: KEYS is the backup's key count, WHAT names
# it in messages; an empty KEYS is a backup whose keys could not be counted
# (WHY says why). Dies (the run fails, nothing is stored) when content_verdict
# refuses the backup.
content_check() {
  content_verdict "$@" || die "$CONTENT_REFUSAL"
}

# content_verdict KEYS WHAT [WHY]: as content_check, but a refusal returns
# non-zero with its line in CONTENT_REFUSAL, for a step that has to undo its
# own work before it fails: a backup that holds no key when the source may not
# be empty, one that shrank below the threshold with onShrink fail, and -- the
# check never passes what it could not check -- with onShrink fail, one whose
# keys could not be counted (KEYS empty) or whose earlier backup could not be
# read. With onShrink warn those two warn and store, with CONTENT_CHECKED 0
# (the gauge <prefix>_content_checked, which BackupContentUnchecked alerts
# on); a shrink warns. Sets CONTENT_KEYS (KEYS), CONTENT_CHECKED (1: checked,
# 0: could not be), CONTENT_PREVIOUS (the backup compared with; empty: none),
# CONTENT_PREVIOUS_KEYS and CONTENT_SHRUNK (1 or 0).
content_verdict() {
  CONTENT_KEYS=$1 CONTENT_CHECKED=1 CONTENT_PREVIOUS='' CONTENT_PREVIOUS_KEYS='' CONTENT_SHRUNK=0 CONTENT_REFUSAL=''
  _cc_keys=$1 _cc_what=$2
  if [ -z "$_cc_keys" ]; then
    _content_wait || :
    _content_unchecked "$_cc_what has no key count (${3:-its keys were not counted}): its content cannot be checked"
    return
  fi
  if [ "$_cc_keys" -eq 0 ] && [ "${BACKUP_CONTENT_ALLOW_EMPTY:-false}" != true ]; then
    CONTENT_REFUSAL="$_cc_what holds no keys: an empty source is refused (spec.contentChecks.allowEmpty: true stores it); nothing stored"
    return 1
  fi
  _cc_st=0
  _content_previous || _cc_st=$?
  case $_cc_st in
    0) ;;
    # none to compare with (no earlier backup, or none that records a count)
    1) return 0 ;;
    *)
      _content_unchecked "the shrink check of $_cc_what cannot be made: $CONTENT_LOOKUP_ERROR"
      return
      ;;
  esac
  [ "$CONTENT_PREVIOUS_KEYS" -gt 0 ] || return 0
  _cc_pct=${BACKUP_CONTENT_SHRINK_BELOW_PERCENT:-50}
  [ $((_cc_keys * 100)) -lt $((CONTENT_PREVIOUS_KEYS * _cc_pct)) ] || return 0
  CONTENT_SHRUNK=1
  _cc_msg="$_cc_what holds $_cc_keys keys, the newest earlier backup $CONTENT_PREVIOUS $CONTENT_PREVIOUS_KEYS: less than $_cc_pct% of them (spec.contentChecks.shrinkBelowPercent)"
  case ${BACKUP_CONTENT_ON_SHRINK:-warn} in
    fail)
      CONTENT_REFUSAL="$_cc_msg; nothing stored (onShrink: fail)"
      return 1
      ;;
    *) log warn "$_cc_msg; stored all the same (onShrink: warn)" ;;
  esac
}

# _content_unchecked MESSAGE: a content check that could not be made (the
# key count, or the earlier backup, is missing). onShrink fail refuses the
# backup (non-zero, CONTENT_REFUSAL); warn warns and stores it. Either way
# CONTENT_CHECKED is 0.
_content_unchecked() {
  CONTENT_CHECKED=0
  case ${BACKUP_CONTENT_ON_SHRINK:-warn} in
    fail)
      CONTENT_REFUSAL="$1; nothing stored (onShrink: fail)"
      return 1
      ;;
    *) log warn "$1; stored all the same (onShrink: warn)" ;;
  esac
}

# content_lookup_start: starts the lookup of the newest earlier backup in the
# background (content_lookup_pid: the caller stops it if it ends first);
# content_verdict waits for it and then logs what it found. Its files are
# TMPDIR/content.*.
content_lookup_start() {
  _content_files=${TMPDIR:-/tmp}/content
  _content_lookup "$_content_files" 2>"$_content_files.log" &
  content_lookup_pid=$!
}

# content_listing: prints the listing (retention_list's format) that the
# lookup read, after content_verdict (which waits for it); non-zero when it
# has none (no lookup, or its listing failed).
content_listing() {
  [ -f "${_content_files:-}.listed" ] && awk '{ print }' "$_content_files.listing"
}

# Waits for the lookup content_lookup_start began, if one runs, and logs what
# it said; its exit status (0 when there is none).
_content_wait() {
  [ -n "${content_lookup_pid:-}" ] || return 0
  _cw_st=0
  wait "$content_lookup_pid" || _cw_st=$?
  content_lookup_pid=''
  awk '{ print }' "$_content_files.log" >&2 2>/dev/null || :
  return "$_cw_st"
}

# The newest earlier backup of the destination that records a key count, and
# that count, into CONTENT_PREVIOUS and CONTENT_PREVIOUS_KEYS. Non-zero when
# there is none to compare with: 1 when the destination holds none (a line
# says so), 2 when it could not be listed or a metadata file could not be
# read (CONTENT_LOOKUP_ERROR says why). Waits for the lookup that
# content_lookup_start began, else looks up now.
_content_previous() {
  if [ -n "${content_lookup_pid:-}" ]; then
    _cp_st=0
    _content_wait || _cp_st=$?
  else
    _content_files=${TMPDIR:-/tmp}/content
    _cp_st=0
    _content_lookup "$_content_files" || _cp_st=$?
  fi
  if [ "$_cp_st" -ne 0 ]; then
    CONTENT_LOOKUP_ERROR=''
    if [ "$_cp_st" -ne 1 ] && ! read -r CONTENT_LOOKUP_ERROR <"$_content_files.why"; then
      CONTENT_LOOKUP_ERROR="the lookup of the newest earlier backup failed (exit $_cp_st)"
    fi
    return "$_cp_st"
  fi
  read -r CONTENT_PREVIOUS <"$_content_files.previous" && read -r CONTENT_PREVIOUS_KEYS <"$_content_files.keys"
}

# How many earlier backups, newest first, the lookup reads the metadata of to
# find one that records a key count: one that could not count its keys (and
# was stored with onShrink warn) is passed over, so that the shrink it hid is
# still seen by the next run.
CONTENT_LOOKUP_DEPTH=5

# _content_lookup FILES: lists the destination (FILES.listing, then
# FILES.listed), writes the name of the newest backup whose metadata records
# a key count into FILES.previous and that count into FILES.keys. Exit 1 when
# there is none to compare with (a line says why), 2 when the listing or a
# metadata read failed (the reason in FILES.why).
_content_lookup() {
  rm -f "$1.why"
  if ! retention_list >"$1.listing" 2>"$1.error"; then
    printf 'cannot list %s (%s: %s)\n' "$(retention_destination)" "$_rt_err" "$(_content_last_line "$1.error")" >"$1.why"
    return 2
  fi
  : >"$1.listed"
  # lines "<epoch>\t<size>\t<name>": the names of the newest, newest first
  LC_ALL=C awk -F '\t' -v depth="$CONTENT_LOOKUP_DEPTH" '
    BEGIN { n = 0 }
    NF == 3 { epoch[n] = $1 + 0; name[n] = $3; n++ }
    END {
      for (k = 0; k < depth && k < n; k++) {
        b = -1
        for (i = 0; i < n; i++) if (!(i in used) && (b < 0 || epoch[i] > epoch[b])) b = i
        used[b] = 1
        print name[b]
      }
    }' "$1.listing" >"$1.newest" || {
    printf 'cannot read the listing of %s\n' "$(retention_destination)" >"$1.why"
    return 2
  }
  if [ ! -s "$1.newest" ]; then
    info "no earlier backup in $(retention_destination): nothing to compare the content with"
    return 1
  fi
  _cl_passed=''
  while IFS= read -r _cl_name; do
    _cl_meta=${_cl_name%.age}${BACKUP_CONTENT_METADATA_SUFFIX:-.json}
    _cl_keys=''
    if retention_read "$_cl_meta" >"$1.metadata" 2>"$1.error"; then
      _cl_keys=$(_content_metadata_keys "$1.metadata")
    else
      case $(_content_last_line "$1.error") in
        # none there (a backup stored without one): no count recorded
        *': no such file' | *'(404)'*) _cl_name="$_cl_name (no $_cl_meta)" ;;
        *)
          printf 'cannot read %s, the metadata of the earlier backup %s (%s)\n' "$_cl_meta" "$_cl_name" "$(_content_last_line "$1.error")" >"$1.why"
          return 2
          ;;
      esac
    fi
    if [ -n "$_cl_keys" ]; then
      [ -z "$_cl_passed" ] || info "the newest earlier backup(s) $_cl_passed record no key count: compared with $_cl_name"
      printf '%s\n' "$_cl_name" >"$1.previous" && printf '%s\n' "$_cl_keys" >"$1.keys"
      return
    fi
    _cl_passed=${_cl_passed:+$_cl_passed, }$_cl_name
  done <"$1.newest"
  info "the newest earlier backup(s) $_cl_passed record no keyCount: nothing to compare the content with"
  return 1
}

# The key count a metadata file records: "keyCount": N, else the sum of
# "databases": {"<db>": N, ...} (no keyCount: a Redis dump that
# redis-check-rdb did not read); nothing when it records neither.
_content_metadata_keys() {
  awk '
    match($0, /"keyCount":[ \t]*[0-9]+/) { v = substr($0, RSTART, RLENGTH); sub(/^[^:]*:[ \t]*/, "", v); print v; found = 1; exit }
    match($0, /"databases":[ \t]*\{[^}]*\}/) {
      d = substr($0, RSTART, RLENGTH); sub(/^[^{]*\{/, "", d); sum = 0; n = 0
      while (match(d, /:[ \t]*[0-9]+/)) { v = substr(d, RSTART + 1, RLENGTH - 1); sub(/^[ \t]*/, "", v); sum += v; n++; d = substr(d, RSTART + RLENGTH) }
      total = sprintf("%.0f", sum); dbs = 1
    }
    END { if (!found && dbs) print total }' "$1"
}

# content_push_metrics success|failure DURATION_SECONDS [SIZE_BYTES [NAME VALUE HELP ...]]:
# push_metrics (metrics.sh) with, once content_verdict ran, the gauge
# <prefix>_content_checked, and when the backup's keys were counted, the
# gauges <prefix>_content_keys and <prefix>_content_shrunk, after the caller's.
content_push_metrics() {
  _cpm_result=$1 _cpm_duration=$2 _cpm_size=${3:-}
  shift 2
  [ "$#" -eq 0 ] || shift
  if [ -n "${CONTENT_CHECKED:-}" ]; then
    set -- "$@" content_checked "$CONTENT_CHECKED" \
      "1 when the last run checked its backup's content, 0 when it could not (its keys, or the newest earlier backup's, could not be counted or read): with onShrink warn it was stored unchecked."
  fi
  if [ -n "${CONTENT_KEYS:-}" ]; then
    set -- "$@" content_keys "$CONTENT_KEYS" \
      "Keys the last checked backup held (etcd: at the snapshot's revision; Redis: in the dump, or the server's INFO keyspace without verifyRdb)." \
      content_shrunk "${CONTENT_SHRUNK:-0}" \
      "1 when the last checked backup held fewer keys than spec.contentChecks.shrinkBelowPercent of the newest earlier backup's, else 0."
  fi
  push_metrics "$_cpm_result" "$_cpm_duration" "$_cpm_size" "$@"
}

# The last non-empty line of FILE (a command's error, for a message).
_content_last_line() {
  awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null || true
}
