# shellcheck shell=sh
# optional: retention.sh metrics.sh
# Entry of a Vitess backup container. Decides the backup type at run time by
# asking vtctld about the shard, then runs vtbackup with the manifest's flags
# ("$@") plus the type flags:
#   complete backups exist          -> normal backup (initial=false)
#   none, and no primary            -> initial backup of the empty shard
#   none, and a primary             -> allow-first backup only if VITESS_ALLOW_FIRST_BACKUP=true, else fail
# After a successful vtbackup it applies the retention rules (when the
# RETENTION_* env is set) and pushes the run's metrics (when
# BACKUP_PUSHGATEWAY_URL is set).
# Env: VTCTLD_SERVER, VITESS_KEYSPACE, VITESS_SHARD, VITESS_ALLOW_FIRST_BACKUP,
#      VITESS_FLAG_STYLE (underscore|dashed), VTCTLD_TIMEOUT (default 30s).

# Prints "--<name>=<value>" in the configured spelling.
flag() {
  if [ "${VITESS_FLAG_STYLE:-underscore}" = dashed ]; then
    printf -- '--%s=%s' "$(printf '%s' "$1" | tr _ -)" "$2"
  else
    printf -- '--%s=%s' "$1" "$2"
  fi
}

vtctld() {
  vtctldclient --server "$VTCTLD_SERVER" --action_timeout "${VTCTLD_TIMEOUT:-30s}" "$@"
}

# Logs one error line, pushes a failure, exits 1.
fail() {
  push_metrics failure "$(($(now_epoch) - started))"
  die "$*"
}

main() {
  started=$(now_epoch)
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient vtbackup
  shard="$VITESS_KEYSPACE/$VITESS_SHARD"
  scratch=$(mktemp)
  trap 'rm -f "$scratch"' EXIT

  if ! backups=$(vtctld GetBackups --json "$shard" 2>"$scratch"); then
    fail "cannot list the backups of $shard from vtctld $VTCTLD_SERVER: $(tail -n 1 "$scratch"); no backup started"
  fi
  complete=$(printf '%s\n' "$backups" | grep -Ec '"status": *"(COMPLETE|VALID)"' || true)

  if [ "$complete" -gt 0 ]; then
    info "$shard has $complete complete backup(s): taking a normal backup"
    set -- "$@" "$(flag initial_backup false)"
  else
    if ! shard_info=$(vtctld GetShard "$shard" 2>"$scratch"); then
      fail "cannot read shard $shard from vtctld $VTCTLD_SERVER: $(tail -n 1 "$scratch"); no backup started"
    fi
    if printf '%s\n' "$shard_info" | grep -Eq '"primary_alias": *\{'; then
      if [ "${VITESS_ALLOW_FIRST_BACKUP:-false}" != true ]; then
        fail "$shard has a primary but no complete backup: refusing an automated first backup; take one manually (vtctldclient BackupShard $shard) or set allowFirstBackup: true in the policy"
      fi
      info "$shard has a primary and no complete backup: taking a first backup (allowFirstBackup)"
      set -- "$@" "$(flag initial_backup false)" "$(flag allow_first_backup true)"
    else
      info "$shard has no primary and no backup: taking an initial backup of the empty shard"
      set -- "$@" "$(flag initial_backup true)"
    fi
  fi

  # vtbackup runs as a child so that retention and metrics follow it; a TERM
  # (the Job deadline) is passed on to it.
  vtbackup "$@" &
  child=$!
  trap 'kill -TERM "$child" 2>/dev/null' TERM INT
  status=0
  wait "$child" || status=$?
  trap - TERM INT
  [ "$status" -eq 0 ] || fail "vtbackup of $shard failed with exit status $status"
  info "vtbackup of $shard finished"
  push_metrics success "$(($(now_epoch) - started))"
  # A failed prune fails the run (the backup itself is kept and counted).
  if retention_configured; then
    retention_apply
  fi
}

main "$@"
