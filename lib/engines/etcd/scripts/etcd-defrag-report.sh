# shellcheck shell=sh
# needs: etcd-alarm-gauges.sh
# optional: metrics.sh
# Entry of the defragmentation's `report` container (the shell image: curl
# when the policy pushes metrics). Reads what the defrag step recorded in
# ETCD_DEFRAG_DIR (see etcd-defrag.sh), pushes it to the run's group with
# push_gauges (metrics.sh; names after BACKUP_METRICS_PREFIX):
#   <prefix>_defrag_<gauge>{member}           each member's sizes, fragmentation before and
#                                             after, duration, defragmented (the step's gauges)
#   <prefix>_source_alarm{alarm}              1 for each alarm raised, 0 for the other
#                                             ETCD_BACKUP_ALARM_TYPES (as the backups push them;
#                                             only once a member answered)
#   <prefix>_defrag_last_run{outcome}         1 for this run's outcome (success, skipped,
#                                             failed), 0 for the other two
#   <prefix>_defrag_duration_seconds          the run's duration
#   <prefix>_defrag_last_success_timestamp_seconds   after a success only
# then ends the run: success and skipped exit 0 (a skipped run is one warning
# line with its reasons), failed exits 1 with its one error line. No outcome
# at all (the defrag step was killed, or never ran) is a failure.
# Env: ETCD_DEFRAG_DIR, ETCD_BACKUP_ALARM_TYPES, BACKUP_PUSHGATEWAY_URL (and
# the other metrics variables).

# A fact the defrag step recorded, empty when it did not.
fact() {
  cat "$ETCD_DEFRAG_DIR/$1" 2>/dev/null || :
}

main() {
  require_env ETCD_DEFRAG_DIR
  require_cmd cat sort date
  now=$(now_epoch)
  started=$(fact started)
  case $started in '' | *[!0-9]*) started=$now ;; esac
  outcome=$(fact outcome)
  reason=$(fact error)
  case $outcome in
    success | skipped | failed) ;;
    *)
      outcome=failed
      [ -n "$reason" ] || reason="the defrag step recorded no outcome: it was stopped, or did not run"
      ;;
  esac
  set --
  # push_gauges wants the series of one name together: sorted, every member's series of a name are
  if [ -f "$ETCD_DEFRAG_DIR/gauges" ] && LC_ALL=C sort "$ETCD_DEFRAG_DIR/gauges" >"$ETCD_DEFRAG_DIR/gauges.sorted"; then
    while read -r name value help; do
      [ -n "$name" ] || continue
      set -- "$@" "$name" "$value" "$help"
    done <"$ETCD_DEFRAG_DIR/gauges.sorted"
  fi
  for o in success skipped failed; do
    value=0
    [ "$o" != "$outcome" ] || value=1
    set -- "$@" "defrag_last_run{outcome=\"$o\"}" "$value" \
      "1 for the outcome of the last defragmentation run (success, skipped: a member unhealthy or an alarm raised, failed), 0 for the others."
  done
  set -- "$@" defrag_duration_seconds $((now - started)) "Duration of the last defragmentation run in seconds."
  [ "$outcome" != success ] ||
    set -- "$@" defrag_last_success_timestamp_seconds "$now" "End of the last successful defragmentation run (unix time)."
  etcd_with_alarms "$ETCD_DEFRAG_DIR/alarms" push_gauges "$@"
  case $outcome in
    success) info "defragmentation succeeded in $((now - started))s" ;;
    skipped) log warn "defragmentation skipped, nothing defragmented: $reason" ;;
    *) die "defragmentation failed after $((now - started))s: $reason" ;;
  esac
}

main "$@"
