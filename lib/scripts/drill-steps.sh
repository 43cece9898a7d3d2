# shellcheck shell=sh
# The steps of a restore-drill pod (spec.drill) hand their facts on to each
# other in BACKUP_DRILL_DIR, in the pod's scratch volume:
#   started   epoch seconds of the drill's start (the first step's)
#   name      the backup drilled, as listed (file name or object key)
#   time      its time (epoch seconds, from its name)
#   result    what the restored instance answered (a good drill)
#   error     why the drill failed: one line
# plus any files an engine's steps pass on. Each step before the report
# (drill-report.sh) records its failure in `error` and exits 0, and a step
# that finds an `error` does nothing: the report step always runs, pushes the
# result and fails the Job with that line.

# drill_step STEP: starts the drill step STEP, unless an earlier step failed.
# From here on, any failure (die, a non-zero exit, TERM/INT) is recorded for
# the report step and the step exits 0; drill_step_cleanup (a function the
# step may define) runs first on any exit, with the exit status.
drill_step() {
  require_env BACKUP_DRILL_DIR
  if [ -s "$BACKUP_DRILL_DIR/error" ]; then
    info "skipped: an earlier step of this drill failed"
    exit 0
  fi
  _ds_step=$1
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$BACKUP_DRILL_DIR/error
  trap '_drill_step_exit $?' EXIT
  trap '_drill_step_signal TERM' TERM
  trap '_drill_step_signal INT' INT
}

_drill_step_signal() {
  trap '' TERM INT
  die "stopped by SIG$1 (the Job's deadline, or the pod was deleted) during the $_ds_step step"
}

_drill_step_exit() {
  if command -v drill_step_cleanup >/dev/null 2>&1; then drill_step_cleanup "$1" || :; fi
  [ "$1" -ne 0 ] || exit 0
  [ -s "$BACKUP_DRILL_DIR/error" ] || printf 'the %s step ended with exit status %s\n' "$_ds_step" "$1" >"$BACKUP_DRILL_DIR/error"
  info "the failure is left for the report step"
  exit 0
}

# drill_fact NAME: a fact an earlier step recorded (dies when it is missing).
drill_fact() {
  [ -s "$BACKUP_DRILL_DIR/$1" ] || die "$BACKUP_DRILL_DIR/$1 is missing: an earlier step of this drill did not finish"
  cat "$BACKUP_DRILL_DIR/$1"
}

# drill_record NAME VALUE: records a fact for the later steps.
drill_record() {
  printf '%s\n' "$2" >"$BACKUP_DRILL_DIR/$1" || die "cannot write $BACKUP_DRILL_DIR/$1"
}
