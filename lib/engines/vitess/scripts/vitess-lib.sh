# shellcheck shell=sh
# The run of vitess-backup.sh: its clock, its result (pushed once), and
# TERM/INT handling. The entry calls start_run first.

# Logs one error line, pushes a failure, exits 1 (a signal meanwhile changes nothing).
fail() {
  trap '' TERM INT
  push_metrics failure "$(($(now_epoch) - started))"
  die "$*"
}

# Starts the run's clock and traps TERM and INT. At the Job's
# activeDeadlineSeconds (or when the pod is deleted) the kubelet sends TERM to
# PID 1 -- this shell -- and SIGKILLs whatever is left after
# terminationGracePeriodSeconds; PID 1 ignores signals it does not trap. A
# foreground command finishes before the trap runs; a child started with
# run_child is stopped at once.
start_run() {
  started=$(now_epoch)
  doing=startup
  trap_signals
}

trap_signals() {
  trap 'stopped SIGTERM' TERM
  trap 'stopped SIGINT' INT
}

# Pushes the run's success; a later stop no longer pushes a failure. A signal
# during the push is handled right after it.
succeed() {
  _sc_signal=
  trap '_sc_signal=SIGTERM' TERM
  trap '_sc_signal=SIGINT' INT
  push_metrics success "$(($(now_epoch) - started))"
  result_pushed=1
  trap_signals
  [ -z "$_sc_signal" ] || stopped "$_sc_signal"
}

# Names what the run does now, for the stop message.
now_doing() {
  doing=$*
}

# Runs "$@" (a command, not a function) as a child and returns its exit
# status; `child` holds its PID meanwhile.
run_child() {
  "$@" &
  child=$!
  _rc_status=0
  wait "$child" || _rc_status=$?
  child=
  return "$_rc_status"
}

# The TERM/INT trap: stops the running child (TERM; KILL after
# VITESS_STOP_WAIT_SECONDS, default 120, so that the failure is still pushed
# within the grace period), pushes a failure unless this run's result was
# pushed already (succeed), and exits 1 with one error line.
stopped() {
  trap '' TERM INT
  if [ -n "${child:-}" ]; then
    kill -TERM "$child" 2>/dev/null || :
    (sleep "${VITESS_STOP_WAIT_SECONDS:-120}" && kill -KILL "$child") >/dev/null 2>&1 &
    _st_watchdog=$!
    wait "$child" || :
    kill -KILL "$_st_watchdog" 2>/dev/null || :
  fi
  case $1 in
    SIGTERM) _st_why="the Job reached its activeDeadlineSeconds (raise timeout in the policy if runs need longer) or the pod was deleted" ;;
    *) _st_why="interrupted" ;;
  esac
  _st_message="stopped by $1 during $doing: $_st_why"
  [ -z "${result_pushed:-}" ] || die "$_st_message"
  fail "$_st_message"
}

# The error vtctldclient logged last, read from its stderr on stdin: the last
# non-empty line. vtctldclient 24 and newer log JSON records by default,
# {"time", "level", "source", "msg"} (go/vt/log/flags.go); of such a record
# the msg, unescaped. Before 24 the line is glog's "E<date> <pid> main.go:56]
# <msg>", printed as it is.
vtctldclient_error() {
  awk 'NF { line = $0 }
    END {
      at = index(line, "\"msg\":\"")
      if (substr(line, 1, 1) == "{" && at > 0) {
        rest = substr(line, at + 7); msg = ""
        while (rest != "") {
          c = substr(rest, 1, 1)
          if (c == "\"") break
          if (c == "\\") {
            e = substr(rest, 2, 1)
            if (e == "u") { msg = msg "\\u" substr(rest, 3, 4); rest = substr(rest, 7); continue }
            msg = msg (e == "n" || e == "t" || e == "r" ? " " : e); rest = substr(rest, 3); continue
          }
          msg = msg c; rest = substr(rest, 2)
        }
        line = msg
      }
      print line
    }'
}
