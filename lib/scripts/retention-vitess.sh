# shellcheck shell=sh
# Retention destination "vitess" (BACKUP_DEST_KIND=vitess), joined with
# retention.sh: the backups of VITESS_KEYSPACE/VITESS_SHARD as vtctld lists
# them (GetBackups; no sizes, so RETENTION_MAX_TOTAL_BYTES is refused),
# deleted with RemoveBackup.

_rt_check_dest() {
  _rt_kind vitess
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient
  [ -z "${RETENTION_MAX_TOTAL_BYTES:-}" ] || die "RETENTION_MAX_TOTAL_BYTES is not supported for vitess: vtctldclient GetBackups lists no sizes"
}

# One line naming the destination, for logs.
retention_destination() {
  printf 'vitess %s/%s via %s\n' "${VITESS_KEYSPACE:-}" "${VITESS_SHARD:-}" "${VTCTLD_SERVER:-}"
}

# Prints the listing (sizes 0); non-zero on any failure, the reason in _rt_err.
retention_list() {
  _rt_init
  _rt_raw=$(vtctldclient --server "$VTCTLD_SERVER" GetBackups "$VITESS_KEYSPACE/$VITESS_SHARD" </dev/null) || { _rt_err="vtctldclient GetBackups failed"; return 1; }
  [ -z "$_rt_raw" ] || printf '%s\n' "$_rt_raw" | awk '$0 != "" { print "0\t" $0 }' | _rt_parse_names size_name vitess "" ""
}

# A backup's sidecar: vtctld keeps none (a backup is the directory of its
# MANIFEST and files in the backup storage). Non-zero.
retention_read() {
  _rt_err="vitess backups have no sidecar files"
  return 1
}

# Deletes one backup. Non-zero on failure.
retention_delete() {
  vtctldclient --server "$VTCTLD_SERVER" RemoveBackup "$VITESS_KEYSPACE/$VITESS_SHARD" "$1" </dev/null >/dev/null
}
