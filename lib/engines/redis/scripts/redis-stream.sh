# shellcheck shell=sh
# The named pipe between the two containers of a Redis backup pod
# ($BACKUP_SCRATCH_DIR/stream): redis-dump.sh writes the backup into it,
# redis-upload.sh reads it. Neither side may wait for a container that is
# gone: each side leaves a marker file when it ends, and releases the pipe. An
# open of a FIFO for reading and writing never blocks on Linux, and it lets a
# pending open at the other end return (the stream then ends at once, as
# nothing else writes to it).

# stream_init PIPE: creates the pipe (either side may come first).
stream_init() { mkfifo "$1" 2>/dev/null || [ -p "$1" ]; }

# stream_watch PIPE MARKER: until stream_unwatch, releases this side's pending
# open of PIPE once the other side's MARKER appears (it ended without opening
# the pipe): every second, as the open may not be pending yet.
# Sets stream_watch_pid.
stream_watch() {
  (
    while :; do
      if [ -e "$2" ]; then command : <>"$1" 2>/dev/null || :; fi
      sleep 1
    done
  ) &
  stream_watch_pid=$!
}

# KILL, not TERM: the open often returns at once, and a subshell signalled
# right after its fork may still run this shell's TERM trap, which drops it.
stream_unwatch() {
  if [ -n "${stream_watch_pid:-}" ]; then
    kill -KILL "$stream_watch_pid" 2>/dev/null || :
    wait "$stream_watch_pid" 2>/dev/null || :
    stream_watch_pid=
  fi
}

# stream_leave PIPE MARKER: this side ends: leaves its MARKER, then releases
# an open of PIPE that the other side may be waiting in.
stream_leave() {
  : >"$2" 2>/dev/null || :
  if [ -p "$1" ]; then command : <>"$1" 2>/dev/null || :; fi
}
