# shellcheck shell=sh
# The frame of one step of a pod (one container's entry script), any engine's.
# At the Job's activeDeadlineSeconds (or when the pod is deleted) the kubelet
# sends TERM to a container's first process -- the step's shell -- and KILL
# after the pod's grace period. A shell runs a trap only once its foreground
# command has returned, so whatever can take long runs through step_run (in
# the background, waited for): TERM then stops it at once.

# step_begin UNDO NAME: from here on, on any exit UNDO (a function of the step)
# runs with the exit status -- it stops what the step started and removes what
# a failed run wrote; it may set step_exit_status to end the step with another
# status -- and then the step's temporary directory goes; TERM/INT stops every
# process of the step (they share its process group) and fails it with one
# line naming what it was doing (step_phase); TMPDIR is the step's own
# temporary directory (NAME.XXXXXX).
step_begin() {
  step_undo=$1
  # the step's own stdout and stderr, for a trap that runs inside a redirection
  exec 8>&1 9>&2
  trap step_exit EXIT
  trap 'step_signalled TERM' TERM
  trap 'step_signalled INT' INT
  step_tmp=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX") || die "cannot create a temporary directory in ${TMPDIR:-/tmp}"
  TMPDIR=$step_tmp
  export TMPDIR
}

step_exit() {
  _sx_rc=$?
  trap '' TERM INT
  "$step_undo" "$_sx_rc" || :
  rm -rf "${step_tmp:-}"
  exit "${step_exit_status:-$_sx_rc}"
}

# step_run CMD...: CMD (a command or a function) in the background, waited
# for, so that a TERM stops it at once; its exit status. Output goes where the
# caller redirects it (never use it inside $(...), which the shell waits for in
# the foreground); its input is /dev/null.
step_run() {
  "$@" &
  wait "$!"
}

# step_phase WHAT: what the step is doing, for the line a TERM/INT ends it with.
step_phase() {
  step_doing=$*
}

# step_on_stop FUNC: a TERM/INT, once every process of the step has stopped,
# calls FUNC SIGNAL (TERM or INT) instead of failing with the line above: FUNC
# ends the step its own way (its cleanup after a stop, its own line). Any PID
# the step kept is gone by then.
step_on_stop() {
  step_stopped=$1
}

# step_stop PID...: stops those processes of the step (TERM), in that order,
# each waited for before the next; for an undo or a cancel, where the rest of
# the step goes on.
step_stop() {
  for _ss_pid in "$@"; do
    kill "$_ss_pid" 2>/dev/null || :
    wait "$_ss_pid" 2>/dev/null || :
  done
}

# Stops every process of the step, waits for its own children, then fails.
step_signalled() {
  trap '' TERM INT
  # the trap runs where the wait was, inside that command's redirections
  exec 1>&8 2>&9
  kill -s TERM 0 2>/dev/null || :
  wait || :
  if [ -n "${step_stopped:-}" ]; then "$step_stopped" "$1"; fi
  die "stopped by SIG$1 (the Job's deadline, or the pod was deleted) while $step_doing"
}
