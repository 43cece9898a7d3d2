# shellcheck shell=sh
# Retention destination "vitess" (BACKUP_DEST_KIND=vitess), joined with
# retention.sh: the backups of VITESS_KEYSPACE/VITESS_SHARD as vtctld lists
# them (GetBackups; no sizes, so RETENTION_MAX_TOTAL_BYTES is refused),
# deleted with RemoveBackup.
#
# Incremental chains (VITESS_INCREMENTAL_CHAINS=true: a schedule of the policy
# takes incremental backups of the shard): a point-in-time restore needs a
# full backup and every incremental backup after it up to the time, so the
# rules count the full backups only -- named after vtbackup's tablet alias,
# <YYYY-MM-DD>.<HHMMSS>.vtbackup-<uid> (vtbackup takes full backups only;
# vtctld lists names, no backup type) -- and a full backup is deleted together
# with its chain: the other backups after it and before the next full one
# (for the oldest full backup, the ones before it too, which no full backup
# precedes). A kept full backup keeps its whole chain; no kept incremental
# backup ever loses the full backup it needs. The chain's backups go first,
# then the full one, so a failed deletion never leaves incremental backups
# without their full backup.

_rt_check_dest() {
  _rt_kind vitess
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient
  [ -z "${RETENTION_MAX_TOTAL_BYTES:-}" ] || die "RETENTION_MAX_TOTAL_BYTES is not supported for vitess: vtctldclient GetBackups lists no sizes"
  case ${VITESS_INCREMENTAL_CHAINS:-false} in
    true | false) ;;
    *) die "VITESS_INCREMENTAL_CHAINS must be true or false, got '${VITESS_INCREMENTAL_CHAINS:-}'" ;;
  esac
}

# One line naming the destination, for logs.
retention_destination() {
  printf 'vitess %s/%s via %s\n' "${VITESS_KEYSPACE:-}" "${VITESS_SHARD:-}" "${VTCTLD_SERVER:-}"
}

# Prints the listing (sizes 0) of the names vtctld lists,
# <YYYY-MM-DD>.<HHMMSS>.<tablet alias> in UTC; non-zero on any failure, the reason in _rt_err.
# With incremental chains, the full backups only; every listed name stays in
# _rt_vitess_names for retention_delete.
retention_list() {
  _rt_init
  _rt_raw=$(vtctldclient --server "$VTCTLD_SERVER" GetBackups "$VITESS_KEYSPACE/$VITESS_SHARD" </dev/null) || { _rt_err="vtctldclient GetBackups failed"; return 1; }
  _rt_vitess_names=$_rt_raw
  if [ "${VITESS_INCREMENTAL_CHAINS:-false}" = true ]; then
    info "incremental chains: the retention rules count the full backups of $VITESS_KEYSPACE/$VITESS_SHARD; each is kept or deleted with the incremental backups after it"
    _rt_raw=$(printf '%s\n' "$_rt_raw" | _rt_vitess_full)
  fi
  [ -z "$_rt_raw" ] || printf '%s\n' "$_rt_raw" | awk '$0 != "" { print "0\t" $0 }' | _rt_parse_names size_name "" "" \
    '^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9][.][0-9][0-9][0-9][0-9][0-9][0-9][.][^ /]+$' '1 6 9 12 14 16'
}

# The names of stdin that are vtbackup's (full) backups.
_rt_vitess_full() {
  awk '/^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\.[0-9][0-9][0-9][0-9][0-9][0-9]\.vtbackup-[0-9]+$/'
}

# A backup's sidecar: vtctld keeps none (a backup is the directory of its
# MANIFEST and files in the backup storage). Non-zero.
retention_read() {
  _rt_err="vitess backups have no sidecar files"
  return 1
}

# Deletes one backup (with incremental chains: the full backup NAME after its
# chain, newest first). Non-zero on failure.
retention_delete() {
  if [ "${VITESS_INCREMENTAL_CHAINS:-false}" = true ]; then
    for _rt_member in $(_rt_vitess_chain "$1"); do
      _rt_vitess_remove "$_rt_member" || return 1
      info "deleted $_rt_member (an incremental chain member of $1)"
    done
  fi
  _rt_vitess_remove "$1"
}

_rt_vitess_remove() {
  vtctldclient --server "$VTCTLD_SERVER" RemoveBackup "$VITESS_KEYSPACE/$VITESS_SHARD" "$1" </dev/null >/dev/null
}

# The chain of the full backup FULL, newest first: the listed backups that
# are not full ones, after FULL and before the next full backup, and, when
# FULL is the oldest full backup, before it too. Names sort by their time.
_rt_vitess_chain() {
  printf '%s\n' "${_rt_vitess_names:-}" | LC_ALL=C awk '
    /^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\.[0-9][0-9][0-9][0-9][0-9][0-9]\.[^ \t\/]+$/ { print }' |
    LC_ALL=C sort | _RT_FULL=$1 LC_ALL=C awk '
    BEGIN { full = ENVIRON["_RT_FULL"] }
    /\.vtbackup-[0-9]+$/ { if ($0 == full) seen = 1; else if (seen) exit; else { older = 1; n = 0 }; next }
    { if (seen || !older) names[++n] = $0 }
    END { for (i = n; i >= 1; i--) print names[i] }'
}
