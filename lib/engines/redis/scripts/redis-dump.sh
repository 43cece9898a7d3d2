# shellcheck shell=sh
# needs: step.sh redis-stream.sh redis-sentinel.sh
# shellcheck disable=SC2034,SC2154 # globals shared with redis-sentinel.sh and redis-stream.sh
# Dump side of a Redis shard backup: container `redis-dump` (redis image). It
# runs at the same time as container `s3-upload` (redis-upload.sh) of the same
# pod (with spec.encryption, through container `age-encrypt`, redis-encrypt.sh:
# REDIS_STREAM_READER=encrypt) and hands it the backup through the named pipe
# $BACKUP_SCRATCH_DIR/stream as it is produced: no copy of the dump is ever
# stored in the pod.
#
#  1. Opens the stream for writing (that waits until s3-upload opens it).
#  2. Asks the Sentinels (REDIS_SENTINEL_ADDRESSES, in order, until one
#     answers) for the replicas of the shard (Sentinel master REDIS_SHARD).
#     Candidates: flags without s_down, o_down or disconnected, Sentinel's
#     master-link-status ok. Order: replica-priority 0 first (never promoted:
#     the usual way to dedicate a backup replica), then by address. The first
#     candidate whose own INFO replication says role:slave,
#     master_link_status:up, slave_read_only:1, master_sync_in_progress:0 is
#     dumped. None: the master, only with REDIS_ALLOW_MASTER_FALLBACK=true. A
#     server or Sentinel that refuses the credentials ends the run with that
#     error (WRONGPASS/NOAUTH), not with "no healthy replica".
#  3. Coverage (issue: a shard the policy does not list): asks the Sentinel
#     that answered for every master it monitors (SENTINEL MASTERS), logs
#     those not in BACKUP_POLICY_SHARDS in one line, and writes their number
#     into result/uncovered for s3-upload to push (gauge uncovered_shards).
#     A failed listing is a warning, never a failure.
#  4. Writes one header line "<host:port> <replica|master>" to the stream,
#     then the dump:
#       redis-cli --rdb -  >  strip the end mark  >  tee  >  gzip -N  >  stream
#                                                       >  redis-check-rdb
#     Each stage is its own process, joined by named pipes in the step's
#     temporary directory (step.sh), so that each exit status is known and a
#     TERM stops each of them. With spec.encryption, age-encrypt encrypts the
#     stream after it: verification is on the clear RDB.
#     Just before the dump, the server's INFO keyspace: its keys per database
#     (for the metadata and, without verifyRdb, the content checks), into
#     result/databases as "<db> <keys>" lines. A failed call is a warning: no
#     result/databases.
#  5. Records the verdict in $BACKUP_SCRATCH_DIR/result/ and only then closes
#     the stream: s3-upload reads the verdict when the stream ends and lets
#     the upload complete only after a good one.
#       result/ok       every stage succeeded; with result/rdb_bytes, result/keys
#                       (the keys redis-check-rdb read; empty without verifyRdb)
#       result/error    the reason of a failure (one line); this container
#                       then exits 1 as well
#     No verdict at the end of the stream means this container was killed.
#
# TERM/INT (the Job's deadline, pod deletion): step.sh's frame stops every
# stage; this side records the failure and exits 1. The reader ending first (its marker upload.exit or
# encrypt.exit, or a broken stream) fails this side too, with a line saying so; this side's end
# leaves the marker dump.exit (see redis-stream.sh).
#
# Env: REDIS_SHARD, REDIS_SENTINEL_ADDRESSES (space-separated host:port or
# [ipv6]:port), REDIS_SENTINEL_USERNAME, REDIS_SENTINEL_PASSWORD,
# REDIS_USERNAME, REDIS_PASSWORD (both optional; passed to redis-cli as
# REDISCLI_AUTH, never on a command line), REDIS_ALLOW_MASTER_FALLBACK,
# REDIS_GZIP_LEVEL (1-9), REDIS_VERIFY_RDB, BACKUP_SCRATCH_DIR,
# REDIS_TIMEOUT_SECONDS (each Sentinel and INFO call; default 10),
# BACKUP_POLICY_SHARDS (space-separated: every shard of the policy).

# Stage between redis-cli and the rest: copies its stdin (redis-cli's stdout)
# to stdout without the end mark. With diskless replication on the server
# (repl-diskless-sync yes, the default since Redis 7.0) the transfer ends with
# a 40-byte mark, which `redis-cli --rdb -` passes on: it strips the mark only
# from a regular file, by ftruncate (redis-cli.c, getRDB). redis-cli announces
# the mode on stderr ("... writing bytes of bulk transfer until EOF marker
# ...") before it writes its first byte, so the mode is known once that byte
# has arrived.
strip_eof_mark() {
  dd bs=1 count=1 2>/dev/null || exit 1
  if grep -q 'until EOF marker' "$cli_err"; then exec head -c -40; fi
  exec cat
}

# The RDB size from redis-cli's report: "Transfer finished with success after
# N bytes" (diskless) or "SYNC sent to master, writing N bytes to '-'".
rdb_size() {
  awk '/^Transfer finished with success after [0-9]+ bytes/ { n = $(NF - 1) }
    /^SYNC sent to master, writing [0-9]+ bytes/ { n = $6 }
    END { print n + 0 }' "$cli_err"
}

# The last non-empty line of FILE, or "exit code STATUS".
last_line() {
  _l=$(awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null) || _l=
  printf '%s' "${_l:-exit code $2}"
}

# Waits for a stage; sets _st to its exit status (128 + signal when killed).
# A TERM interrupts the wait at once (step.sh).
wait_stage() {
  _st=0
  wait "$1" || _st=$?
}

# The keys per database of the server about to be dumped, from its INFO
# keyspace, into result/databases ("<db> <keys>" lines; none when the server
# holds no key). The section is one line per database that holds keys or
# volatile keys, "db<N>:keys=<n>,expires=<n>,avg_ttl=<n>" (Redis src/server.c,
# genRedisInfoString, section "keyspace"; 7.4 adds ",subexpiry=<n>"), lines
# ending in CRLF. A failed call is one warning, and no file.
record_keyspace() {
  _st=0
  _ks=$(_rc redis "$server_host" "$server_port" INFO keyspace 2>"$errf") || _st=$?
  if [ "$_st" -ne 0 ]; then
    log warn "INFO keyspace of $(_addr "$server_host" "$server_port") failed: $(_reason "$_st"); the metadata records no keys per database"
    return 0
  fi
  _ks=$(printf '%s\n' "$_ks" | LC_ALL=C awk '
    { sub(/\r$/, "") }
    /^db[0-9]+:keys=[0-9]+/ { split($0, f, /[:=,]/); print substr(f[1], 3), f[3] }')
  printf '%s\n' "$_ks" >"$result/databases" || log warn "cannot record the keys per database in $result/databases"
}

send_header() {
  # Write errors (the upload side gone) as a status, not a SIGPIPE.
  trap '' PIPE
  _st=0
  printf '%s %s\n' "$(_addr "$server_host" "$server_port")" "$role" >&3 || _st=$?
  trap - PIPE
  [ "$_st" -eq 0 ] || die "$reader_label stopped reading the stream before the dump started (see its log); no backup taken"
}

dump() {
  _name=$(_addr "$server_host" "$server_port")
  cli_err=$work/redis-cli.err
  check_out=$work/redis-check-rdb.out
  gzip_err=$work/gzip.err
  verify=${REDIS_VERIFY_RDB:-true}
  mkfifo "$work/raw" "$work/rdb" || die "cannot create named pipes in $work; no backup taken"
  (_rc_exec redis "$server_host" "$server_port" --rdb -) >"$work/raw" 2>"$cli_err" &
  cli_pid=$!
  children=$cli_pid
  (strip_eof_mark) <"$work/raw" >"$work/rdb" 3>&- &
  strip_pid=$!
  children="$children $strip_pid"
  _gzip_in=$work/rdb
  if [ "$verify" = true ]; then
    mkfifo "$work/check" "$work/gz" || die "cannot create named pipes in $work; no backup taken"
    tee "$work/check" <"$work/rdb" >"$work/gz" 3>&- &
    tee_pid=$!
    redis-check-rdb "$work/check" >"$check_out" 2>&1 3>&- &
    check_pid=$!
    children="$children $tee_pid $check_pid"
    _gzip_in=$work/gz
  fi
  gzip -"$REDIS_GZIP_LEVEL" <"$_gzip_in" >&3 2>"$gzip_err" &
  gzip_pid=$!
  children="$children $gzip_pid"

  wait_stage "$cli_pid"
  cli_st=$_st
  wait_stage "$strip_pid"
  strip_st=$_st
  tee_st=0 check_st=0
  if [ "$verify" = true ]; then
    wait_stage "$tee_pid"
    tee_st=$_st
    wait_stage "$check_pid"
    check_st=$_st
  fi
  wait_stage "$gzip_pid"
  gzip_st=$_st
  children=

  rdb_bytes=$(rdb_size)
  # The first cause wins: a reader that stops early breaks every stage before it.
  if [ "$cli_st" -ne 0 ] && [ "$cli_st" -ne 141 ]; then
    errf=$cli_err
    if _auth_refused; then
      die "Redis $_name ($role of shard $REDIS_SHARD) refused the credentials for the dump: $(_reason "$cli_st"); check the Redis password and user (REDIS_PASSWORD, REDIS_USERNAME); no backup taken"
    fi
    die "redis-cli --rdb from $_name (shard $REDIS_SHARD) failed: $(_reason "$cli_st"); no backup taken"
  fi
  if [ "$gzip_st" -eq 141 ]; then
    die "$reader_label stopped reading the stream (see its log); no backup taken"
  fi
  [ "$gzip_st" -eq 0 ] || die "gzip of the dump failed: $(last_line "$gzip_err" "$gzip_st"); no backup taken"
  if [ "$check_st" -ne 0 ]; then
    _why=$(awk '/RDB ERROR DETECTED/ { if ((getline line) > 0) print line; exit }' "$check_out")
    [ -n "$_why" ] || _why=$(last_line "$check_out" "$check_st")
    case $_why in
      *"Can't handle RDB format version"*)
        _why="$_why (the image's redis-check-rdb is older than the server: use an images.redis at least as new as the servers, or verifyRdb: false)" ;;
    esac
    die "redis-check-rdb rejected the dump from $_name: $_why; no backup taken"
  fi
  [ "$strip_st" -eq 0 ] || die "copying the dump from redis-cli failed (exit $strip_st); no backup taken"
  [ "$tee_st" -eq 0 ] || die "copying the dump to redis-check-rdb failed (exit $tee_st); no backup taken"
  [ "$cli_st" -eq 0 ] || die "redis-cli --rdb from $_name stopped: its output was closed early (exit $cli_st); no backup taken"
  grep -q '^Transfer finished with success' "$cli_err" || die "redis-cli --rdb from $_name did not report a finished transfer: $(last_line "$cli_err" 0); no backup taken"
  [ "$rdb_bytes" -gt 0 ] || die "redis-cli --rdb from $_name sent an empty dump; no backup taken"
  keys=
  if [ "$verify" = true ]; then
    keys=$(awk '/keys read/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$check_out")
    info "redis-check-rdb: the dump from $_name is valid (${keys:-?} keys, $rdb_bytes bytes)"
  fi
}

# On any exit (step.sh): stops what still runs, leaves the marker dump.exit.
undo_dump() {
  stream_unwatch
  # shellcheck disable=SC2086 # children: PIDs
  step_stop $children
  children=
  stream_leave "$stream" "$BACKUP_SCRATCH_DIR/dump.exit"
}

# After a TERM/INT has stopped every stage (step.sh).
dump_stopped() {
  stream_watch_pid='' children=''
  die "stopped by SIG$1 (the Job's deadline, or the pod was deleted); no backup taken"
}

main() {
  [ -n "${BACKUP_SCRATCH_DIR:-}" ] || { log error "environment variable BACKUP_SCRATCH_DIR is required but empty"; exit 1; }
  stream=$BACKUP_SCRATCH_DIR/stream
  result=$BACKUP_SCRATCH_DIR/result
  tab=$(printf '\t')
  children=
  # Who reads the stream: s3-upload, or age-encrypt with spec.encryption.
  case ${REDIS_STREAM_READER:-upload} in
    upload) reader=upload reader_label='the upload container (s3-upload)' ;;
    encrypt) reader=encrypt reader_label='the encryption container (age-encrypt)' ;;
    *) log error "REDIS_STREAM_READER must be upload or encrypt, got '$REDIS_STREAM_READER'"; exit 1 ;;
  esac
  mkdir -p "$result" || { log error "cannot create $result: the scratch volume is not writable"; exit 1; }
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$result/error
  stream_init "$stream" || die "cannot create the named pipe $stream; no backup taken"
  step_begin undo_dump redis-dump
  step_on_stop dump_stopped
  work=$TMPDIR
  errf=$work/redis-cli.err
  require_env REDIS_SHARD REDIS_SENTINEL_ADDRESSES
  require_cmd redis-cli gzip awk sort head cat tr sed grep dd mkfifo
  case ${REDIS_GZIP_LEVEL:=1} in
    [1-9]) ;;
    *) die "REDIS_GZIP_LEVEL must be 1-9, got '$REDIS_GZIP_LEVEL'" ;;
  esac
  if [ "${REDIS_VERIFY_RDB:-true}" = true ]; then require_cmd redis-check-rdb tee; fi
  timeout_s=${REDIS_TIMEOUT_SECONDS:-10}
  have_timeout=
  if command -v timeout >/dev/null 2>&1; then have_timeout=1; fi

  stream_watch "$stream" "$BACKUP_SCRATCH_DIR/$reader.exit"
  command exec 3>"$stream" || die "cannot open the stream $stream; no backup taken"
  stream_unwatch
  if [ -e "$BACKUP_SCRATCH_DIR/$reader.exit" ]; then
    die "$reader_label ended before the dump started (see its log); no backup taken"
  fi
  ask_sentinels
  report_coverage
  choose_server
  send_header
  record_keyspace
  dump
  printf '%s\n' "$rdb_bytes" >"$result/rdb_bytes"
  printf '%s\n' "$keys" >"$result/keys"
  : >"$result/ok"
  info "shard $REDIS_SHARD: dump of $(_addr "$server_host" "$server_port") ($role) streamed: $rdb_bytes bytes (gzip -$REDIS_GZIP_LEVEL)"
}

main "$@"
