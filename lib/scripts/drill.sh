# shellcheck shell=sh
# Restore-drill results, for the entry of a drill container (and for engines
# whose backup run restores the newest backup first, e.g. vtbackup).
# Pushed with push_gauges (metrics.sh, when the policy pushes metrics) into
# the run's group; the PrometheusRule alerts on them:
#   <prefix>_restore_drill_success                     1 after a good drill, 0 after a failed one
#   <prefix>_restore_drill_duration_seconds            the drill's duration (a recovery time figure)
#   <prefix>_restore_drill_backup_age_seconds          age of the restored backup at the drill's end (a recovery point figure)
#   <prefix>_restore_drill_last_success_timestamp_seconds  end of the last good drill; kept by failures
#   <prefix>_restore_drill_backup_info{backup="NAME"}  1: the backup the last drill took (other characters than [A-Za-z0-9._:-] as _)
# Env: BACKUP_DRILL_MAX_AGE_SECONDS (optional, spec.drill.maxBackupAge).

# drill_check_age BACKUP_EPOCH NAME: fails the drill when the newest backup is
# older than BACKUP_DRILL_MAX_AGE_SECONDS allows.
drill_check_age() {
  [ -n "${BACKUP_DRILL_MAX_AGE_SECONDS:-}" ] || return 0
  _dr_age=$(($(now_epoch) - $1))
  [ "$_dr_age" -le "$BACKUP_DRILL_MAX_AGE_SECONDS" ] ||
    die "the newest backup $2 is ${_dr_age}s old; spec.drill.maxBackupAge allows ${BACKUP_DRILL_MAX_AGE_SECONDS}s"
}

# drill_result success|failure STARTED_EPOCH [BACKUP_EPOCH [BACKUP_NAME]]:
# pushes the drill's result (the backup's age only when its time is known,
# its name when it is given).
drill_result() {
  _dr_now=$(now_epoch) _dr_ok=0 _dr_started=$2 _dr_backup=${3:-} _dr_name=${4:-}
  [ "$1" = success ] && _dr_ok=1
  case $_dr_started$_dr_backup in *[!0-9]*) log warn "drill metrics not pushed: times must be epoch seconds, got '$_dr_started' '$_dr_backup'"; return 0 ;; esac
  set -- restore_drill_success "$_dr_ok" "1 if the last restore drill succeeded, 0 if it failed." \
    restore_drill_duration_seconds "$((_dr_now - _dr_started))" "Duration of the last restore drill in seconds."
  [ -z "$_dr_backup" ] ||
    set -- "$@" restore_drill_backup_age_seconds "$((_dr_now - _dr_backup))" "Age of the backup the last restore drill restored, at its end, in seconds."
  if [ -n "$_dr_name" ]; then
    _dr_name=$(printf '%s' "$_dr_name" | tr -c 'A-Za-z0-9._:-' '_')
    set -- "$@" "restore_drill_backup_info{backup=\"$_dr_name\"}" 1 "The backup the last restore drill took (label backup)."
  fi
  [ "$_dr_ok" = 0 ] ||
    set -- "$@" restore_drill_last_success_timestamp_seconds "$_dr_now" "End of the last successful restore drill (unix time)."
  push_gauges "$@"
}
