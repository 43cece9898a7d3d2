# shellcheck shell=sh
# Entry of a Vitess backup container. Decides the backup type at run time by
# asking vtctld about the shard, then execs vtbackup with the manifest's flags
# ("$@") plus the type flags:
#   complete backups exist          -> normal backup (initial=false)
#   none, and no primary            -> initial backup of the empty shard
#   none, and a primary             -> allow-first backup only if VITESS_ALLOW_FIRST_BACKUP=true, else fail
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

main() {
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient vtbackup
  shard="$VITESS_KEYSPACE/$VITESS_SHARD"
  scratch=$(mktemp)
  trap 'rm -f "$scratch"' EXIT

  if ! backups=$(vtctld GetBackups --json "$shard" 2>"$scratch"); then
    die "cannot list the backups of $shard from vtctld $VTCTLD_SERVER: $(tail -n 1 "$scratch"); no backup started"
  fi
  complete=$(printf '%s\n' "$backups" | grep -Ec '"status": *"(COMPLETE|VALID)"' || true)

  if [ "$complete" -gt 0 ]; then
    info "$shard has $complete complete backup(s): taking a normal backup"
    set -- "$@" "$(flag initial_backup false)"
  else
    if ! shard_info=$(vtctld GetShard "$shard" 2>"$scratch"); then
      die "cannot read shard $shard from vtctld $VTCTLD_SERVER: $(tail -n 1 "$scratch"); no backup started"
    fi
    if printf '%s\n' "$shard_info" | grep -Eq '"primary_alias": *\{'; then
      if [ "${VITESS_ALLOW_FIRST_BACKUP:-false}" != true ]; then
        die "$shard has a primary but no complete backup: refusing an automated first backup; take one manually (vtctldclient BackupShard $shard) or set allowFirstBackup: true in the policy"
      fi
      info "$shard has a primary and no complete backup: taking a first backup (allowFirstBackup)"
      set -- "$@" "$(flag initial_backup false)" "$(flag allow_first_backup true)"
    else
      info "$shard has no primary and no backup: taking an initial backup of the empty shard"
      set -- "$@" "$(flag initial_backup true)"
    fi
  fi
  rm -f "$scratch"
  trap - EXIT
  exec vtbackup "$@"
}

main "$@"
