# shellcheck shell=sh
# needs: vitess-lib.sh
# optional: metrics.sh
# Entry of a Vitess incremental-backup container (one CronJob per shard of a
# schedule with `incremental`). Takes an incremental backup of
# VITESS_KEYSPACE/VITESS_SHARD -- the binary logs since the shard's latest
# backup -- once a full backup exists:
#   1. `vtctldclient GetBackups <ks/shard>` lists the shard's backups.
#   2. No full backup among them -> one warning line, the gauge
#      incremental_skipped{reason="no-full-backup"} = 1, exit 0: nothing to
#      chain from yet (the policy's vtbackup CronJob takes the first full
#      backup), so no failure storm until it has.
#   3. Otherwise `vtctldclient BackupShard --incremental-from-pos=auto
#      <ks/shard>` (Vitess 18 and newer): vtctld picks the shard's most
#      up-to-date REPLICA, RDONLY or SPARE tablet (the primary too with
#      --allow-primary, VITESS_INCREMENTAL_ALLOW_PRIMARY=true), which rotates
#      its binary logs and backs up those since the position of the shard's
#      last successful backup. A run that finds no new writes takes an empty
#      backup (nothing stored): still a success, the recovery point is now.
#   4. On success: the run's metrics (push_metrics), the gauge
#      incremental_last_success_timestamp_seconds, and the skip gauge at 0.
#      A vtctld error fails the run with vtctldclient's error line.
# Which backups are full: a listing carries names only (vtctld's BackupInfo
# has no backup type), so a full backup is one named after vtbackup's tablet
# alias, <YYYY-MM-DD>.<HHMMSS>.vtbackup-<uid>: vtbackup only takes full
# backups, and an incremental backup is taken by a tablet and named after
# its alias (<cell>-<uid>). A full backup taken on a tablet by hand is not
# recognised as one (it cannot be told from an incremental by its name).
# Env: VTCTLD_SERVER, VITESS_KEYSPACE, VITESS_SHARD,
#      VITESS_INCREMENTAL_ALLOW_PRIMARY (default false),
#      VITESS_INCREMENTAL_ACTION_TIMEOUT (vtctldclient's --action_timeout of
#      the backup, default 9m30s), VTCTLD_TIMEOUT (of the listing, default 30s),
#      VITESS_STOP_WAIT_SECONDS (default 120).

# vtctldclient against VTCTLD_SERVER with the listing's timeout.
incremental_vtctld() {
  vtctldclient --server "$VTCTLD_SERVER" --action_timeout "${VTCTLD_TIMEOUT:-30s}" "$@"
}

# The last non-empty line of stdin (a backup name).
incremental_last_line() {
  awk 'NF { line = $0 } END { print line }'
}

# The names of stdin that are vtbackup's (full) backups, oldest first.
full_backups() {
  awk '/^[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]\.[0-9][0-9][0-9][0-9][0-9][0-9]\.vtbackup-[0-9]+$/'
}

main() {
  start_run
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient awk grep
  shard="$VITESS_KEYSPACE/$VITESS_SHARD"
  scratch=$(mktemp)
  output=$(mktemp)
  trap 'rm -f "$scratch" "$output"' EXIT

  now_doing "the listing of the backups of $shard"
  # One name per line, oldest first; a shard without backups prints one empty line.
  names=$(incremental_vtctld GetBackups "$shard" 2>"$scratch") ||
    fail "cannot list the backups of $shard from vtctld $VTCTLD_SERVER: $(vtctldclient_error <"$scratch"); no incremental backup started"
  count=$(printf '%s\n' "$names" | awk 'NF { n++ } END { print n + 0 }')
  full=$(printf '%s\n' "$names" | full_backups | incremental_last_line)
  if [ -z "$full" ]; then
    log warn "skipping the incremental backup of $shard: no full backup yet (vtctld lists $count backup(s), none taken by vtbackup), so there is nothing to start from; the policy's vtbackup CronJob takes the first full backup"
    push_gauges 'incremental_skipped{reason="no-full-backup"}' 1 'Whether the last incremental run skipped its backup, by reason.'
    exit 0
  fi
  info "$shard has $count backup(s), the latest full one $full, the latest $(printf '%s\n' "$names" | incremental_last_line): taking an incremental backup from the latest backup's position"

  set -- --server "$VTCTLD_SERVER" --action_timeout "${VITESS_INCREMENTAL_ACTION_TIMEOUT:-9m30s}" BackupShard --incremental-from-pos=auto
  [ "${VITESS_INCREMENTAL_ALLOW_PRIMARY:-false}" != true ] || set -- "$@" --allow-primary
  set -- "$@" "$shard"
  now_doing "the incremental backup of $shard"
  status=0
  run_child vtctldclient "$@" >"$output" 2>"$scratch" || status=$?
  # The tablet's log events, one line each (backups.go prints them on stdout).
  awk 'NF { print "vtctldclient: " $0 }' "$output" >&2
  [ "$status" -eq 0 ] ||
    fail "incremental backup of $shard failed (vtctldclient exit status $status): $(vtctldclient_error <"$scratch")"
  # A vtctld older than the client (before Vitess 18) drops the position it does not know
  # (its BackupShard passed only concurrency and allow_primary on): the tablet then logs an
  # empty incrementalFromPos and takes a full backup (builtinbackupengine.go, ExecuteBackup).
  if grep -q 'incrementalFromPos: "' "$output"; then
    fail "vtctld $VTCTLD_SERVER ignored --incremental-from-pos (a vtctld before Vitess 18?): the tablet of $shard took a full backup instead of an incremental one; upgrade vtctld to the client's version"
  fi
  info "incremental backup of $shard finished"
  succeed
  push_gauges incremental_last_success_timestamp_seconds "$(now_epoch)" 'End of the last successful incremental backup of the shard (unix time).' \
    'incremental_skipped{reason="no-full-backup"}' 0 'Whether the last incremental run skipped its backup, by reason.'
}

main "$@"
