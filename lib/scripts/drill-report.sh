# shellcheck shell=sh
# needs: drill.sh
# optional: metrics.sh
# Entry of a restore drill's `report` container, any engine's (an image with
# curl when the policy pushes metrics): reads the drill's outcome from
# BACKUP_DRILL_DIR (see drill-steps.sh), pushes it with drill_result
# (drill.sh: success, duration, backup age, last success) and ends with one
# line naming the backup, the drill's duration (the recovery time it took:
# from the fetch to the restored instance's answers) and the backup's age
# (the recovery point it gave). A failed drill -- an error recorded by a step, or
# no result at all -- pushes a failure, then exits 1 with that line as its
# one error line.
# Env: BACKUP_DRILL_DIR, BACKUP_PUSHGATEWAY_URL (and the other metrics variables).

# A fact of the drill, empty when no step recorded it.
fact() {
  cat "$BACKUP_DRILL_DIR/$1" 2>/dev/null || :
}

main() {
  require_env BACKUP_DRILL_DIR
  now=$(now_epoch)
  started=$(fact started)
  case $started in '' | *[!0-9]*) started=$now ;; esac
  time=$(fact time)
  case $time in *[!0-9]*) time='' ;; esac
  name=$(fact name)
  duration=$((now - started))
  backup=''
  if [ -n "$name" ] && [ -n "$time" ]; then backup="$name, $((now - time))s old"; fi
  if [ -s "$BACKUP_DRILL_DIR/error" ] || [ ! -s "$BACKUP_DRILL_DIR/result" ]; then
    reason=$(fact error)
    [ -n "$reason" ] || reason="no step recorded a result: the fetch step did not run"
    drill_result failure "$started" "$time" "$name"
    die "restore drill failed after ${duration}s${backup:+ ($backup)}: $reason"
  fi
  drill_result success "$started" "$time" "$name"
  info "restore drill succeeded: $name restored, $(fact result); RTO ${duration}s (fetch to answers), backup age ${time:+$((now - time))}s (RPO)"
}

main "$@"
