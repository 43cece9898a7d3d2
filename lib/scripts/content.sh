# shellcheck shell=sh disable=SC2034,SC2154 # CONTENT_*: read by the entry; _rt_err: set by retention_list
# needs: retention.sh
# Content checks (spec.contentChecks) of a backup before it is stored: what it
# holds against the newest earlier backup of the same target, found with the
# destination's retention_list and read from its metadata sidecar
# (<name without .age>BACKUP_CONTENT_METADATA_SUFFIX, its "keyCount").
# Env: BACKUP_CONTENT_ALLOW_EMPTY (true|false), BACKUP_CONTENT_SHRINK_BELOW_PERCENT
# (1-100), BACKUP_CONTENT_ON_SHRINK (warn|fail), BACKUP_CONTENT_METADATA_SUFFIX.

# content_check KEYS WHAT: KEYS is the backup's key count (empty: not counted,
# nothing checked), WHAT names it in messages. Dies (the run fails, nothing is
# stored) when it holds no key and the source may not be empty, and when it
# shrank below the threshold with onShrink fail; warns when it shrank with
# onShrink warn. Sets CONTENT_KEYS (KEYS), CONTENT_PREVIOUS (the backup
# compared with; empty: none), CONTENT_PREVIOUS_KEYS and CONTENT_SHRUNK (1 or 0).
content_check() {
  CONTENT_KEYS=$1 CONTENT_PREVIOUS='' CONTENT_PREVIOUS_KEYS='' CONTENT_SHRUNK=0
  _cc_keys=$1 _cc_what=$2
  if [ -z "$_cc_keys" ]; then
    info "$_cc_what has no key count: its content is not checked"
    return 0
  fi
  if [ "$_cc_keys" -eq 0 ] && [ "${BACKUP_CONTENT_ALLOW_EMPTY:-false}" != true ]; then
    die "$_cc_what holds no keys: an empty source is refused (spec.contentChecks.allowEmpty: true stores it); nothing stored"
  fi
  _content_previous || return 0
  [ "$CONTENT_PREVIOUS_KEYS" -gt 0 ] || return 0
  _cc_pct=${BACKUP_CONTENT_SHRINK_BELOW_PERCENT:-50}
  [ $((_cc_keys * 100)) -lt $((CONTENT_PREVIOUS_KEYS * _cc_pct)) ] || return 0
  CONTENT_SHRUNK=1
  _cc_msg="$_cc_what holds $_cc_keys keys, the newest earlier backup $CONTENT_PREVIOUS $CONTENT_PREVIOUS_KEYS: less than $_cc_pct% of them (spec.contentChecks.shrinkBelowPercent)"
  case ${BACKUP_CONTENT_ON_SHRINK:-warn} in
    fail) die "$_cc_msg; nothing stored (onShrink: fail)" ;;
    *) log warn "$_cc_msg; stored all the same (onShrink: warn)" ;;
  esac
}

# The newest backup of the destination and its recorded keyCount, into
# CONTENT_PREVIOUS and CONTENT_PREVIOUS_KEYS; non-zero, with a line saying
# why, when there is none to compare with.
_content_previous() {
  _cp_file=${TMPDIR:-/tmp}/content-listing
  if ! retention_list >"$_cp_file" 2>"$_cp_file.err"; then
    log warn "the shrink check is skipped: cannot list $(retention_destination) ($_rt_err: $(_content_last_line "$_cp_file.err"))"
    return 1
  fi
  # lines "<epoch>\t<size>\t<name>": the newest epoch
  CONTENT_PREVIOUS=$(LC_ALL=C awk -F '\t' 'NF == 3 && ($1 + 0 > e || n == "") { e = $1 + 0; n = $3 } END { print n }' "$_cp_file")
  if [ -z "$CONTENT_PREVIOUS" ]; then
    info "no earlier backup in $(retention_destination): nothing to compare the content with"
    return 1
  fi
  _cp_meta=${CONTENT_PREVIOUS%.age}${BACKUP_CONTENT_METADATA_SUFFIX:-.json}
  if ! _cp_text=$(retention_read "$_cp_meta" 2>"$_cp_file.err"); then
    log warn "the shrink check is skipped: cannot read $_cp_meta, the metadata of the newest earlier backup ($(_content_last_line "$_cp_file.err"))"
    return 1
  fi
  CONTENT_PREVIOUS_KEYS=$(printf '%s\n' "$_cp_text" |
    awk 'match($0, /"keyCount":[ \t]*[0-9]+/) { v = substr($0, RSTART, RLENGTH); sub(/^[^:]*:[ \t]*/, "", v); print v; exit }')
  if [ -z "$CONTENT_PREVIOUS_KEYS" ]; then
    info "the metadata of $CONTENT_PREVIOUS records no keyCount: nothing to compare the content with"
    return 1
  fi
}

# The last non-empty line of FILE (a command's error, for a message).
_content_last_line() {
  awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null || true
}
