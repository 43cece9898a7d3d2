# shellcheck shell=sh
# needs: etcd-lib.sh
# Helpers of the restore-drill steps (spec.drill). The steps of a drill pod
# hand their facts on in ETCD_DRILL_DIR, in the scratch volume:
#   started        epoch seconds of the drill's start (the fetch step's)
#   name           the backup drilled, as listed (file name, or object key)
#   time           its time (epoch seconds, from its name)
#   source         where it is: in the mounted destination, or downloaded into ETCD_DRILL_DIR
#   metadata.json  its metadata (<name without .age>.json)
#   snapshot       the clear snapshot to restore, once nothing is left to decrypt
#   result         what the restored member answered (a good drill)
#   error          why the drill failed: one line
# Each step before the report records its failure in `error` and exits 0,
# and a step finding an `error` does nothing: the report step always runs,
# pushes the result and fails the Job with that line.

# drill_step_start STEP UNDO: etcd_step_start for the drill step STEP (UNDO
# runs on any exit with its status), unless an earlier step failed.
drill_step_start() {
  _dr_step=$1 _dr_undo=$2
  if [ -s "$ETCD_DRILL_DIR/error" ]; then
    info "skipped: an earlier step of this drill failed"
    exit 0
  fi
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$ETCD_DRILL_DIR/error
  etcd_step_start drill_step_undo
}

drill_step_undo() {
  "$_dr_undo" "$1" || :
  [ "$1" -ne 0 ] || return 0
  [ -s "$ETCD_DRILL_DIR/error" ] || printf '%s\n' "the $_dr_step step ended with exit status $1" >"$ETCD_DRILL_DIR/error"
  info "the failure is left for the report step"
  # shellcheck disable=SC2034 # read by etcd_step_exit (etcd-lib.sh)
  etcd_exit_status=0
}

# drill_fact NAME: a fact an earlier step recorded (dies when it is missing).
drill_fact() {
  [ -s "$ETCD_DRILL_DIR/$1" ] || die "$ETCD_DRILL_DIR/$1 is missing: an earlier step of this drill did not finish"
  cat "$ETCD_DRILL_DIR/$1"
}
