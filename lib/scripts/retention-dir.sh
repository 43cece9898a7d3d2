# shellcheck shell=sh disable=SC2154 # _rt_tab, _rt_nl: set by _rt_init (retention.sh)
# Retention destination "dir" (BACKUP_DEST_KIND=dir), joined with retention.sh:
# the backups are the regular files BACKUP_DIR/<BACKUP_NAME_PREFIX><time><BACKUP_NAME_SUFFIX>
# or ...<BACKUP_NAME_SUFFIX>.age (encrypted), sizes from stat, deleted with
# their sidecars (BACKUP_SIDECAR_SUFFIXES).

_rt_check_dest() {
  _rt_kind dir
  _rt_check_names
  require_env BACKUP_DIR
  require_cmd stat
}

# One line naming the destination, for logs.
retention_destination() {
  printf '%s/%s<time>%s\n' "${BACKUP_DIR:-}" "${BACKUP_NAME_PREFIX:-}" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the listing (regular files only, no symlinks); non-zero on any
# failure, the reason in _rt_err.
retention_list() {
  _rt_init
  [ -d "$BACKUP_DIR" ] || { _rt_err="directory $BACKUP_DIR does not exist"; return 1; }
  { [ -r "$BACKUP_DIR" ] && [ -x "$BACKUP_DIR" ]; } || { _rt_err="directory $BACKUP_DIR is not readable"; return 1; }
  _rt_raw=$(
    # with no suffix, the first pattern matches the encrypted names too
    for _rt_f in "$BACKUP_DIR/$BACKUP_NAME_PREFIX"*"${BACKUP_NAME_SUFFIX:-}" \
      ${BACKUP_NAME_SUFFIX:+"$BACKUP_DIR/$BACKUP_NAME_PREFIX"*"$BACKUP_NAME_SUFFIX.age"}; do
      { [ -f "$_rt_f" ] && [ ! -L "$_rt_f" ]; } || continue
      _rt_b=${_rt_f##*/}
      case $_rt_b in *"$_rt_tab"* | *"$_rt_nl"*) continue ;; esac
      _rt_sz=$(stat -c %s -- "$_rt_f") || exit 1
      printf '%s\t%s\n' "$_rt_sz" "$_rt_b"
    done
  ) || { _rt_err="cannot read the size of a file in $BACKUP_DIR"; return 1; }
  _rt_err="unexpected listing of $BACKUP_DIR"
  [ -z "$_rt_raw" ] || printf '%s\n' "$_rt_raw" | _rt_parse_names size_name "$BACKUP_NAME_PREFIX" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the file NAME of the directory (a backup's sidecar); non-zero when it
# cannot be read.
retention_read() {
  # the shell's own read (no cat in every image)
  [ -e "$BACKUP_DIR/$1" ] || { printf 'cannot read %s: no such file\n' "$BACKUP_DIR/$1" >&2; return 1; }
  [ -r "$BACKUP_DIR/$1" ] || { printf 'cannot read %s\n' "$BACKUP_DIR/$1" >&2; return 1; }
  while IFS= read -r _rt_line || [ -n "$_rt_line" ]; do printf '%s\n' "$_rt_line"; done <"$BACKUP_DIR/$1"
}

# Deletes one backup, sidecars first (of its name without ".age", either
# encrypted or not) (a failure leaves the backup listed, so
# the next run retries it). Non-zero on failure.
retention_delete() {
  _rt_c=${1%.age}
  for _rt_s in ${BACKUP_SIDECAR_SUFFIXES:-}; do
    rm -f "$BACKUP_DIR/$_rt_c$_rt_s" "$BACKUP_DIR/$_rt_c$_rt_s.age" || return 1
  done
  rm -f "$BACKUP_DIR/$1" && [ ! -e "$BACKUP_DIR/$1" ]
}
