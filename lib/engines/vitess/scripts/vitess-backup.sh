# shellcheck shell=sh
# needs: vitess-lib.sh drill.sh
# optional: retention.sh metrics.sh
# Entry of a Vitess backup container. Decides the backup type at run time by
# asking vtctld about the shard, then runs vtbackup with the manifest's flags
# ("$@") plus the type flags:
#   the shard has backups      -> normal backup (initial=false)
#   none, and no primary       -> initial backup of the empty shard
#   none, and a primary        -> allow-first backup only if VITESS_ALLOW_FIRST_BACKUP=true, else fail
# "Has backups" counts the names `vtctldclient GetBackups` lists. Whether one
# of them is complete is left to vtbackup: vtctld never reports it (the
# status of every listed backup is UNKNOWN), and vtbackup restores the latest
# complete backup and fails when there is none.
# After a successful vtbackup it pushes the run's metrics (when
# BACKUP_PUSHGATEWAY_URL is set) and applies the retention rules (when the
# RETENTION_* env is set). TERM/INT stop vtbackup and fail the run (vitess-lib.sh).
# Restore drill: a normal vtbackup run restores the newest complete backup
# before it takes the new one, so a successful normal run is a successful
# restore drill (drill.sh: restore_drill_* gauges), of the newest listed
# backup; an incomplete newer one (a run that died) would make vtbackup restore
# an older one, whose age this then understates. Initial and first backups
# restore nothing and push no drill result.
# With incremental backups (VITESS_INCREMENTAL_CHAINS=true), vtbackup restores
# the newest full backup, never an incremental one (go/vt/mysqlctl,
# FindBackupToRestore skips incremental manifests): the drill's backup is the
# newest one named after vtbackup's alias (<date>.<time>.vtbackup-<uid>), the
# only backups known to be full from their names.
# Coverage drift: each run also compares the keyspace's serving shards with
# the policy's (report_coverage).
# Env: VTCTLD_SERVER, VITESS_KEYSPACE, VITESS_SHARD, VITESS_ALLOW_FIRST_BACKUP,
#      BACKUP_POLICY_SHARDS (the keyspace's shards the policy's CronJobs back up),
#      VITESS_INCREMENTAL_CHAINS (default false),
#      VTCTLD_TIMEOUT (default 30s), VITESS_STOP_WAIT_SECONDS (default 120).
# The type flags take the spelling of the manifest's flags (Vitess >= 22
# registers dashed names, older releases underscores; --init_keyspace or
# --init-keyspace is always among them).

vtctld() {
  vtctldclient --server "$VTCTLD_SERVER" --action_timeout "${VTCTLD_TIMEOUT:-30s}" "$@"
}

# The last non-empty line of stdin (a backup name).
last_line() {
  awk 'NF { line = $0 } END { print line }'
}

# The time of a backup named <YYYY-MM-DD>.<HHMMSS>.<tablet alias> (UTC, as
# vtbackup names them) in epoch seconds; nothing for another name. `date -d`
# as GNU and busybox date read it.
backup_epoch() {
  _be_time=$(printf '%s\n' "$1" | sed -n 's/^\([0-9]\{4\}-[0-9][0-9]-[0-9][0-9]\)\.\([0-9][0-9]\)\([0-9][0-9]\)\([0-9][0-9]\)\..*/\1 \2:\3:\4/p')
  [ -z "$_be_time" ] || date -u -d "$_be_time" +%s 2>/dev/null || :
}

# Logs the keyspace's serving shards that no CronJob of the policy backs up
# (not in BACKUP_POLICY_SHARDS) in one line and pushes their number (gauge
# uncovered_shards). A failed or empty listing is a warning, never a failure.
report_coverage() {
  _cv=$(vtctld FindAllShardsInKeyspace "$VITESS_KEYSPACE" 2>"$scratch") || {
    log warn "shard coverage not checked: cannot list the shards of keyspace $VITESS_KEYSPACE from vtctld $VTCTLD_SERVER: $(vtctldclient_error <"$scratch")"
    return 0
  }
  # cli.MarshalJSON (protojson, two-space indent) of {"shards": {"<name>":
  # {"keyspace", "name", "shard": {..., "is_primary_serving"}}}}: an entry's
  # "name" at 6 spaces, its shard record's fields at 8. Prints
  # "<shards> <uncovered> <uncovered names>".
  _cv=$(printf '%s\n' "$_cv" | _CV_COVERED=" ${BACKUP_POLICY_SHARDS:-} " awk '
    /^      "name": / { name = $2; gsub(/[",]/, "", name); shards++ }
    /^        "is_primary_serving": +true/ && !index(ENVIRON["_CV_COVERED"], " " name " ") { n++; list = list " " name }
    END { printf "%d %d%s\n", shards, n, list }')
  _cv_shards=${_cv%% *} _cv=${_cv#* }
  _cv_count=${_cv%% *} _cv_names=${_cv#"$_cv_count"}
  if [ "$_cv_shards" -eq 0 ]; then
    log warn "shard coverage not checked: vtctld $VTCTLD_SERVER lists no shard of keyspace $VITESS_KEYSPACE"
    return 0
  elif [ "$_cv_count" -gt 0 ]; then
    log warn "keyspace $VITESS_KEYSPACE has $_cv_count serving shard(s) that no CronJob of policy ${BACKUP_POLICY:-} backs up:$_cv_names"
  else
    info "every serving shard of keyspace $VITESS_KEYSPACE is backed up by a CronJob of policy ${BACKUP_POLICY:-}"
  fi
  push_gauges uncovered_shards "$_cv_count" "Serving shards of the keyspace that no CronJob of the policy backs up."
}

main() {
  start_run
  require_env VTCTLD_SERVER VITESS_KEYSPACE VITESS_SHARD
  require_cmd vtctldclient vtbackup awk
  shard="$VITESS_KEYSPACE/$VITESS_SHARD"
  case " $* " in *" --init-keyspace="*) sep=- ;; *) sep=_ ;; esac
  scratch=$(mktemp)
  trap 'rm -f "$scratch"' EXIT

  now_doing "the backup-type decision for $shard"
  # One name per line, oldest first; a shard without backups prints one empty line.
  names=$(vtctld GetBackups "$shard" 2>"$scratch") ||
    fail "cannot list the backups of $shard from vtctld $VTCTLD_SERVER: $(vtctldclient_error <"$scratch"); no backup started"
  report_coverage
  count=$(printf '%s\n' "$names" | awk 'NF { n++ } END { print n + 0 }')
  latest=$(printf '%s\n' "$names" | last_line)
  if [ "${VITESS_INCREMENTAL_CHAINS:-false}" = true ]; then
    latest=$(printf '%s\n' "$names" | awk '/^[0-9-]*\.[0-9]*\.vtbackup-[0-9]+$/' | last_line)
    [ -n "$latest" ] || latest="(no full backup listed)"
  fi

  if [ "$count" -gt 0 ]; then
    info "$shard has $count backup(s), the latest $latest: taking a normal backup (vtbackup restores the latest complete one)"
    set -- "$@" "--initial${sep}backup=false"
  else
    shard_info=$(vtctld GetShard "$shard" 2>"$scratch") ||
      fail "cannot read shard $shard from vtctld $VTCTLD_SERVER: $(vtctldclient_error <"$scratch"); no backup started"
    # "primary_alias": {...} or null (one or two spaces after the colon).
    primary=$(printf '%s\n' "$shard_info" | awk '
      /^ *"primary_alias": *\{/ { print "yes"; exit }
      /^ *"primary_alias": *null/ { print "no"; exit }')
    case $primary in
      yes)
        [ "${VITESS_ALLOW_FIRST_BACKUP:-false}" = true ] ||
          fail "$shard has a primary but no backup: refusing an automated first backup (vtbackup would start from an empty database and replay the primary's whole binlog history); take one manually (vtctldclient BackupShard $shard) or set allowFirstBackup: true in the policy"
        info "$shard has a primary and no backup: taking a first backup (allowFirstBackup)"
        set -- "$@" "--initial${sep}backup=false" "--allow${sep}first${sep}backup=true"
        ;;
      no)
        info "$shard has no primary and no backup: taking an initial backup of the empty shard"
        set -- "$@" "--initial${sep}backup=true"
        ;;
      *) fail "vtctldclient GetShard $shard printed no primary_alias field; no backup started" ;;
    esac
  fi

  now_doing "vtbackup of $shard"
  status=0
  run_child vtbackup "$@" || status=$?
  [ "$status" -eq 0 ] || fail "vtbackup of $shard failed with exit status $status"
  info "vtbackup of $shard finished"
  succeed
  if [ "$count" -gt 0 ]; then
    info "restore drill passed: vtbackup restored $latest before taking this backup"
    # shellcheck disable=SC2154 # started: the run's start, set by start_run (vitess-lib.sh)
    drill_result success "$started" "$(backup_epoch "$latest")" "$latest"
  fi
  # A failed prune fails the run (the backup itself is kept and counted).
  if retention_configured; then
    now_doing "the retention of $shard"
    retention_apply
  fi
}

main "$@"
