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

# content_check KEYS WHAT: KEYS is the backup's key count (empty: not counted,
# nothing checked), WHAT names it in messages. Dies (the run fails, nothing is
# stored) when content_verdict refuses the backup.
content_check() {
  content_verdict "$@" || die "$CONTENT_REFUSAL"
}

# content_verdict KEYS WHAT: as content_check, but a refusal returns non-zero
# with its line in CONTENT_REFUSAL, for a step that has to undo its own work
# before it fails: a backup that holds no key when the source may not be
# empty, and one that shrank below the threshold with onShrink fail. Warns
# when it shrank with onShrink warn. Sets CONTENT_KEYS (KEYS), CONTENT_PREVIOUS
# (the backup compared with; empty: none), CONTENT_PREVIOUS_KEYS and
# CONTENT_SHRUNK (1 or 0).
content_verdict() {
  CONTENT_KEYS=$1 CONTENT_PREVIOUS='' CONTENT_PREVIOUS_KEYS='' CONTENT_SHRUNK=0 CONTENT_REFUSAL=''
  _cc_keys=$1 _cc_what=$2
  if [ -z "$_cc_keys" ]; then
    _content_wait || :
    info "$_cc_what has no key count: its content is not checked"
    return 0
  fi
  if [ "$_cc_keys" -eq 0 ] && [ "${BACKUP_CONTENT_ALLOW_EMPTY:-false}" != true ]; then
    CONTENT_REFUSAL="$_cc_what holds no keys: an empty source is refused (spec.contentChecks.allowEmpty: true stores it); nothing stored"
    return 1
  fi
  _content_previous || return 0
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

# The newest backup of the destination and its recorded key count, into
# CONTENT_PREVIOUS and CONTENT_PREVIOUS_KEYS; non-zero, with a line saying
# why, when there is none to compare with. Waits for the lookup that
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
  [ "$_cp_st" -eq 0 ] || return 1
  read -r CONTENT_PREVIOUS <"$_content_files.previous" && read -r CONTENT_PREVIOUS_KEYS <"$_content_files.keys"
}

# _content_lookup FILES: lists the destination (FILES.listing, then
# FILES.listed), writes the newest backup's name into FILES.previous and the
# key count its metadata records into FILES.keys; non-zero, with a line saying why, when there
# is none to compare with.
_content_lookup() {
  if ! retention_list >"$1.listing" 2>"$1.error"; then
    log warn "the shrink check is skipped: cannot list $(retention_destination) ($_rt_err: $(_content_last_line "$1.error"))"
    return 1
  fi
  : >"$1.listed"
  # lines "<epoch>\t<size>\t<name>": the newest epoch
  _cl_name=$(LC_ALL=C awk -F '\t' 'NF == 3 && ($1 + 0 > e || n == "") { e = $1 + 0; n = $3 } END { print n }' "$1.listing")
  if [ -z "$_cl_name" ]; then
    info "no earlier backup in $(retention_destination): nothing to compare the content with"
    return 1
  fi
  _cl_meta=${_cl_name%.age}${BACKUP_CONTENT_METADATA_SUFFIX:-.json}
  if ! retention_read "$_cl_meta" >"$1.metadata" 2>"$1.error"; then
    log warn "the shrink check is skipped: cannot read $_cl_meta, the metadata of the newest earlier backup ($(_content_last_line "$1.error"))"
    return 1
  fi
  # "keyCount": N, else the sum of "databases": {"<db>": N, ...} (no keyCount: a
  # Redis dump that redis-check-rdb did not read)
  _cl_keys=$(awk '
    match($0, /"keyCount":[ \t]*[0-9]+/) { v = substr($0, RSTART, RLENGTH); sub(/^[^:]*:[ \t]*/, "", v); print v; found = 1; exit }
    match($0, /"databases":[ \t]*\{[^}]*\}/) {
      d = substr($0, RSTART, RLENGTH); sub(/^[^{]*\{/, "", d); sum = 0; n = 0
      while (match(d, /:[ \t]*[0-9]+/)) { v = substr(d, RSTART + 1, RLENGTH - 1); sub(/^[ \t]*/, "", v); sum += v; n++; d = substr(d, RSTART + RLENGTH) }
      total = sprintf("%.0f", sum); dbs = 1
    }
    END { if (!found && dbs) print total }' "$1.metadata")
  if [ -z "$_cl_keys" ]; then
    info "the metadata of $_cl_name records no keyCount: nothing to compare the content with"
    return 1
  fi
  printf '%s\n' "$_cl_name" >"$1.previous" && printf '%s\n' "$_cl_keys" >"$1.keys"
}

# content_push_metrics success|failure DURATION_SECONDS [SIZE_BYTES [NAME VALUE HELP ...]]:
# push_metrics (metrics.sh) with, once the content was checked, the gauges
# <prefix>_content_keys and <prefix>_content_shrunk after the caller's.
content_push_metrics() {
  _cpm_result=$1 _cpm_duration=$2 _cpm_size=${3:-}
  shift 2
  [ "$#" -eq 0 ] || shift
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
