# shellcheck shell=sh
# needs: step.sh
# The steps of a restore-drill pod (spec.drill), any engine's, hand their
# facts on to each other in BACKUP_DRILL_DIR, in the pod's scratch volume:
#   started   epoch seconds of the drill's start (the fetch step's)
#   name      the backup drilled, as listed (file name or object key)
#   time      its time (epoch seconds, from its name)
#   result    what the restored instance answered (a good drill)
#   error     why the drill failed: one line
# plus the files an engine's steps pass on (its fetch step lists them). Each
# step before the report (drill-report.sh) records its failure in `error` and
# exits 0, and a step that finds an `error` does nothing: the report step
# always runs, pushes the result and fails the Job with that line. Each
# step is framed by step.sh (deadlines, its temporary directory).

# drill_start UNDO: the start of a drill, in its first step (fetch): an
# empty BACKUP_DRILL_DIR, the fact `started`, then drill_step fetch UNDO.
drill_start() {
  require_env BACKUP_DRILL_DIR
  rm -rf "$BACKUP_DRILL_DIR"
  mkdir -p "$BACKUP_DRILL_DIR" || die "cannot create $BACKUP_DRILL_DIR: the scratch volume is not writable"
  now_epoch >"$BACKUP_DRILL_DIR/started"
  drill_step fetch "$1"
}

# drill_step STEP UNDO: starts the drill step STEP, unless an earlier step
# failed (then it exits 0 at once). From here on:
#  - TERM/INT stops every process of the step (they share its process group)
#    and fails the step with one line naming what it was doing (step_phase);
#  - on any exit, UNDO (a function of the step) runs with the exit status: it
#    stops what the step started and removes what a failed step wrote; then
#    the step's temporary directory (TMPDIR from here on) goes;
#  - a failure (die, a non-zero exit, TERM/INT) is recorded for the report
#    step, and the step exits 0.
drill_step() {
  require_env BACKUP_DRILL_DIR
  if [ -s "$BACKUP_DRILL_DIR/error" ]; then
    info "skipped: an earlier step of this drill failed"
    exit 0
  fi
  _ds_step=$1 _ds_undo=$2
  step_phase "running the $1 step"
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$BACKUP_DRILL_DIR/error
  step_begin _drill_step_undo drill-step
}

_drill_step_undo() {
  "$_ds_undo" "$1" || :
  [ "$1" -ne 0 ] || return 0
  [ -s "$BACKUP_DRILL_DIR/error" ] || printf 'the %s step ended with exit status %s\n' "$_ds_step" "$1" >"$BACKUP_DRILL_DIR/error"
  info "the failure is left for the report step"
  # shellcheck disable=SC2034 # read by step_exit (step.sh)
  step_exit_status=0
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

# drill_newest LISTING WHERE: the newest backup of LISTING (retention.sh's
# listing of WHERE: time, size and name a line; ties: the greater name),
# recorded as the facts name and time. Sets DRILL_NAME, DRILL_TIME and
# DRILL_SIZE.
drill_newest() {
  _dn_tab=$(printf '\t')
  _dn_line=$(LC_ALL=C sort -t "$_dn_tab" -k1,1nr -k3r "$1" | head -n 1)
  [ -n "$_dn_line" ] || die "no backup among $2: nothing to drill"
  DRILL_TIME=${_dn_line%%"$_dn_tab"*}
  DRILL_SIZE=${_dn_line#*"$_dn_tab"} DRILL_SIZE=${DRILL_SIZE%%"$_dn_tab"*}
  DRILL_NAME=${_dn_line##*"$_dn_tab"}
  drill_record name "$DRILL_NAME"
  drill_record time "$DRILL_TIME"
}
