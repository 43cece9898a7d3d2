# shellcheck shell=sh
# needs: redis-stream.sh
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
#     Each stage is its own process, joined by named pipes in
#     $BACKUP_SCRATCH_DIR/dump/, so that each exit status is known and a TERM
#     stops each of them. With spec.encryption, age-encrypt encrypts the
#     stream after it: verification is on the clear RDB.
#  5. Records the verdict in $BACKUP_SCRATCH_DIR/result/ and only then closes
#     the stream: s3-upload reads the verdict when the stream ends and lets
#     the upload complete only after a good one.
#       result/ok       every stage succeeded; with result/rdb_bytes, result/keys
#       result/error    the reason of a failure (one line); this container
#                       then exits 1 as well
#     No verdict at the end of the stream means this container was killed.
#
# TERM/INT (the Job's deadline, pod deletion): stops every stage, records the
# failure, exits 1. The reader ending first (its marker upload.exit or
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

# In a subshell only: replaces it with redis-cli against a Sentinel
# (_rc_exec sentinel HOST PORT ARGS...) or a Redis server (_rc_exec redis
# ...), with that side's credentials in the environment only. `-e`: error
# replies exit non-zero. Bounded by `timeout` unless the first argument after
# the port is --rdb.
_rc_exec() {
  if [ "$1" = sentinel ]; then
    _rc_user=${REDIS_SENTINEL_USERNAME:-} _rc_pass=${REDIS_SENTINEL_PASSWORD:-}
  else
    _rc_user=${REDIS_USERNAME:-} _rc_pass=${REDIS_PASSWORD:-}
  fi
  _rc_host=$2 _rc_port=$3
  shift 3
  if [ -n "$_rc_user" ]; then set -- --user "$_rc_user" "$@"; fi
  set -- redis-cli --no-auth-warning -e -h "$_rc_host" -p "$_rc_port" "$@"
  case $* in
    *' --rdb '*) ;;
    *) if [ -n "$have_timeout" ]; then set -- timeout "$timeout_s" "$@"; fi ;;
  esac
  if [ -n "$_rc_pass" ]; then
    REDISCLI_AUTH=$_rc_pass
    export REDISCLI_AUTH
  else
    unset REDISCLI_AUTH
  fi
  exec "$@" </dev/null 3>&-
}

_rc() { (_rc_exec "$@"); }

# The reason of the last failed call: the line that says the credentials were
# refused if there is one, else the last non-empty line of its stderr.
_reason() {
  _r=$(awk '/WRONGPASS|NOAUTH|AUTH failed|invalid password/ { print; found = 1; exit }
    NF { line = $0 } END { if (!found) print line }' "$errf" 2>/dev/null) || _r=
  if [ "$1" = 124 ]; then _r="no answer within ${timeout_s}s"; fi
  printf '%s' "${_r:-exit code $1}"
}

# True when the last failed call was refused for its credentials.
_auth_refused() { grep -Eq 'WRONGPASS|NOAUTH|AUTH failed|invalid password' "$errf" 2>/dev/null; }

# host and port of "host:port" / "[v6]:port" into _host, _port.
_split() {
  _port=${1##*:}
  _host=${1%:*}
  _host=${_host#\[}
  _host=${_host%\]}
}

# host:port for messages ([v6]:port for IPv6).
_addr() {
  case $1 in
    *:*) printf '[%s]:%s' "$1" "$2" ;;
    *) printf '%s:%s' "$1" "$2" ;;
  esac
}

# Asks the Sentinels in turn for the shard's replicas. Sets replicas_raw and
# sentinel_host/sentinel_port (the Sentinel that answered).
ask_sentinels() {
  _errors=
  _refused=
  for _a in $REDIS_SENTINEL_ADDRESSES; do
    _split "$_a"
    _rc_status=0
    replicas_raw=$(_rc sentinel "$_host" "$_port" SENTINEL replicas "$REDIS_SHARD" 2>"$errf") || _rc_status=$?
    if [ "$_rc_status" -ne 0 ] && grep -qi 'unknown' "$errf"; then
      # Sentinel before Redis 5 knows only SENTINEL slaves.
      _rc_status=0
      replicas_raw=$(_rc sentinel "$_host" "$_port" SENTINEL slaves "$REDIS_SHARD" 2>"$errf") || _rc_status=$?
    fi
    if [ "$_rc_status" -eq 0 ]; then
      sentinel_host=$_host sentinel_port=$_port
      info "Sentinel $_a answered for shard $REDIS_SHARD"
      return 0
    fi
    _why=$(_reason "$_rc_status")
    if _auth_refused; then _refused="${_refused:+$_refused; }$_a: $_why"; fi
    log warn "Sentinel $_a: SENTINEL replicas $REDIS_SHARD failed: $_why"
    _errors="${_errors:+$_errors; }$_a: $_why"
  done
  if [ -n "$_refused" ]; then
    die "the Sentinels refused the credentials for shard $REDIS_SHARD ($_errors): check the Sentinel password and user (REDIS_SENTINEL_PASSWORD, REDIS_SENTINEL_USERNAME); no backup taken"
  fi
  die "no Sentinel answered for shard $REDIS_SHARD ($_errors); no backup taken"
}

# Reads `SENTINEL replicas` output (one field or value per line) and prints
# "ok<TAB>rank<TAB>ip<TAB>port" for candidates and "skip<TAB>name<TAB>why" for
# the others; candidates sorted: replica-priority 0 first, then by address.
sentinel_candidates() {
  printf '%s\n' "$replicas_raw" | LC_ALL=C awk '
    function flush(   why, n, f, i, rank) {
      if (!("name" in r)) return
      why = ""
      n = split(r["flags"], f, ",")
      for (i = 1; i <= n; i++) {
        if (f[i] == "s_down" || f[i] == "o_down" || f[i] == "disconnected") why = why " " f[i]
      }
      if (r["flags"] !~ /(^|,)slave(,|$)/) why = why " not a replica (flags " r["flags"] ")"
      if (r["master-link-status"] != "ok") why = why " master link " r["master-link-status"]
      if (why != "") printf "skip\t%s\t%s\n", r["name"], substr(why, 2)
      else {
        rank = (r["slave-priority"] == "0") ? 0 : 1
        printf "ok\t%d\t%s\t%s\n", rank, r["ip"], r["port"]
      }
      delete r
    }
    { sub(/\r$/, "") }
    NR % 2 == 1 { key = $0; next }
    { if (key == "name") flush(); r[key] = $0 }
    END { flush() }' | LC_ALL=C sort -t "$tab" -k1,1r -k2,2n -k3,3 -k4,4n
}

# Logs the masters the answering Sentinel monitors that no CronJob of the
# policy backs up (not in BACKUP_POLICY_SHARDS) in one line and records their
# number in result/uncovered. `SENTINEL MASTERS` as redis-cli prints it off a
# terminal: each master's fields and values one per line, `name` first.
report_coverage() {
  _st=0
  _cv=$(_rc sentinel "$sentinel_host" "$sentinel_port" SENTINEL MASTERS 2>"$errf") || _st=$?
  _sentinel=$(_addr "$sentinel_host" "$sentinel_port")
  if [ "$_st" -ne 0 ]; then
    log warn "shard coverage not checked: SENTINEL MASTERS on $_sentinel failed: $(_reason "$_st")"
    return 0
  fi
  # "<masters> <uncovered> <uncovered names>"
  _cv=$(printf '%s\n' "$_cv" | _CV_COVERED=" ${BACKUP_POLICY_SHARDS:-} " awk '
    { sub(/\r$/, "") }
    NR % 2 == 1 { key = $0; next }
    key == "name" { masters++; if (!index(ENVIRON["_CV_COVERED"], " " $0 " ")) { n++; list = list " " $0 } }
    END { printf "%d %d%s\n", masters, n, list }')
  _cv_masters=${_cv%% *} _cv=${_cv#* }
  _cv_count=${_cv%% *} _cv_names=${_cv#"$_cv_count"}
  if [ "$_cv_masters" -eq 0 ]; then
    log warn "shard coverage not checked: Sentinel $_sentinel monitors no master"
    return 0
  elif [ "$_cv_count" -gt 0 ]; then
    log warn "Sentinel $_sentinel monitors $_cv_count master(s) that no CronJob of policy ${BACKUP_POLICY:-} backs up:$_cv_names"
  fi
  printf '%s\n' "$_cv_count" >"$result/uncovered" || :
}

# INFO replication of a server, CRs removed; non-zero on failure.
info_replication() {
  _ir=$(_rc redis "$1" "$2" INFO replication 2>"$errf") || return $?
  printf '%s\n' "$_ir" | tr -d '\r'
}

# Ends the run when a server refused the credentials of the last call.
refused_credentials() {
  _auth_refused || return 0
  die "Redis $1 ($2 of shard $REDIS_SHARD) refused the credentials: $(_reason 1); check the Redis password and user (REDIS_PASSWORD, REDIS_USERNAME); no backup taken"
}

# The first candidate that is a healthy read-only replica by its own account.
# Sets server_host, server_port, role.
choose_server() {
  sentinel_candidates >"$work/candidates" || die "cannot parse the Sentinel answer for shard $REDIS_SHARD"
  _skipped=
  while IFS="$tab" read -r _kind _f1 _f2 _f3; do
    if [ "$_kind" = skip ]; then
      log warn "replica $_f1 of shard $REDIS_SHARD skipped: $_f2"
      _skipped="${_skipped:+$_skipped; }$_f1: $_f2"
      continue
    fi
    _name=$(_addr "$_f2" "$_f3")
    _st=0
    _info=$(info_replication "$_f2" "$_f3") || _st=$?
    if [ "$_st" -ne 0 ] || [ -z "$_info" ]; then
      refused_credentials "$_name" replica
      _why=$(_reason "$_st")
      log warn "replica $_name of shard $REDIS_SHARD skipped: INFO replication failed: $_why"
      _skipped="${_skipped:+$_skipped; }$_name: INFO replication failed: $_why"
      continue
    fi
    _why=$(printf '%s\n' "$_info" | awk -F: '
      { v[$1] = $2 }
      END {
        w = ""
        if (v["role"] != "slave") w = w ", role " v["role"]
        if (v["master_link_status"] != "up") w = w ", master_link_status " v["master_link_status"]
        if (v["slave_read_only"] != "1") w = w ", not read-only"
        if (v["master_sync_in_progress"] != "0") w = w ", sync in progress"
        print substr(w, 3)
      }')
    if [ -n "$_why" ]; then
      log warn "replica $_name of shard $REDIS_SHARD skipped: $_why"
      _skipped="${_skipped:+$_skipped; }$_name: $_why"
      continue
    fi
    server_host=$_f2 server_port=$_f3 role=replica
    info "shard $REDIS_SHARD: dumping read-only replica $_name"
    return 0
  done <"$work/candidates"

  _known=${_skipped:-no replicas known to Sentinel}
  if [ "${REDIS_ALLOW_MASTER_FALLBACK:-false}" != true ]; then
    die "shard $REDIS_SHARD has no healthy read-only replica ($_known) and allowMasterFallback is false; no backup taken"
  fi
  log warn "shard $REDIS_SHARD has no healthy read-only replica ($_known): falling back to the master (allowMasterFallback)"
  _st=0
  _master=$(_rc sentinel "$sentinel_host" "$sentinel_port" SENTINEL get-master-addr-by-name "$REDIS_SHARD" 2>"$errf") || _st=$?
  [ "$_st" -eq 0 ] || die "cannot ask Sentinel $(_addr "$sentinel_host" "$sentinel_port") for the master of shard $REDIS_SHARD: $(_reason "$_st"); no backup taken"
  server_host=$(printf '%s\n' "$_master" | sed -n 1p | tr -d '\r')
  server_port=$(printf '%s\n' "$_master" | sed -n 2p | tr -d '\r')
  if [ -z "$server_host" ] || [ -z "$server_port" ]; then
    die "Sentinel knows no master address for shard $REDIS_SHARD; no backup taken"
  fi
  _name=$(_addr "$server_host" "$server_port")
  _st=0
  _info=$(info_replication "$server_host" "$server_port") || _st=$?
  if [ "$_st" -ne 0 ]; then
    refused_credentials "$_name" master
    die "master $_name of shard $REDIS_SHARD: INFO replication failed: $(_reason "$_st"); no backup taken"
  fi
  printf '%s\n' "$_info" | grep -qx 'role:master' || die "master $_name of shard $REDIS_SHARD does not report role:master (failover in progress?); no backup taken"
  role=master
  info "shard $REDIS_SHARD: dumping the master $_name"
}

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

# Kills the running stages (each by its PID) and waits for them.
stop_children() {
  for _p in $children; do kill "$_p" 2>/dev/null || :; done
  for _p in $children; do wait "$_p" 2>/dev/null || :; done
  children=
}

# Waits for a stage; sets _st to its exit status (128 + signal when killed).
# A TERM interrupts the wait at once and runs on_signal.
wait_stage() {
  _st=0
  wait "$1" || _st=$?
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

on_signal() {
  trap '' TERM INT
  stream_unwatch
  stop_children
  die "stopped by SIG$1 (the Job's deadline, or the pod was deleted); no backup taken"
}

on_exit() {
  # ending already: a TERM now would only log a second error line
  trap '' TERM INT
  stream_unwatch
  stop_children
  rm -rf "$work"
  stream_leave "$stream" "$BACKUP_SCRATCH_DIR/dump.exit"
}

main() {
  [ -n "${BACKUP_SCRATCH_DIR:-}" ] || { log error "environment variable BACKUP_SCRATCH_DIR is required but empty"; exit 1; }
  stream=$BACKUP_SCRATCH_DIR/stream
  result=$BACKUP_SCRATCH_DIR/result
  work=$BACKUP_SCRATCH_DIR/dump
  errf=$work/redis-cli.err
  tab=$(printf '\t')
  children=
  # Who reads the stream: s3-upload, or age-encrypt with spec.encryption.
  case ${REDIS_STREAM_READER:-upload} in
    upload) reader=upload reader_label='the upload container (s3-upload)' ;;
    encrypt) reader=encrypt reader_label='the encryption container (age-encrypt)' ;;
    *) log error "REDIS_STREAM_READER must be upload or encrypt, got '$REDIS_STREAM_READER'"; exit 1 ;;
  esac
  mkdir -p "$result" "$work" || { log error "cannot create $result and $work: the scratch volume is not writable"; exit 1; }
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$result/error
  stream_init "$stream" || die "cannot create the named pipe $stream; no backup taken"
  trap on_exit EXIT
  trap 'on_signal TERM' TERM
  trap 'on_signal INT' INT
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
  dump
  printf '%s\n' "$rdb_bytes" >"$result/rdb_bytes"
  printf '%s\n' "$keys" >"$result/keys"
  : >"$result/ok"
  info "shard $REDIS_SHARD: dump of $(_addr "$server_host" "$server_port") ($role) streamed: $rdb_bytes bytes (gzip -$REDIS_GZIP_LEVEL)"
}

main "$@"
