# shellcheck shell=sh
# Dump step of a Redis shard backup: the init container, in a redis image.
#
#  1. Ask the Sentinels (REDIS_SENTINEL_ADDRESSES, in order, until one
#     answers) for the replicas of the shard (Sentinel master REDIS_SHARD).
#  2. Candidates: flags without s_down, o_down or disconnected, Sentinel's
#     master-link-status ok. Order: replica-priority 0 first (never promoted:
#     the usual way to dedicate a backup replica), then by address. The first
#     candidate whose own INFO replication says role:slave,
#     master_link_status:up, slave_read_only:1, master_sync_in_progress:0 is
#     dumped. None: the master, only with REDIS_ALLOW_MASTER_FALLBACK=true.
#  3. redis-cli --rdb (a full sync served by the chosen server), the RDB
#     magic, redis-check-rdb (REDIS_VERIFY_RDB), gzip -REDIS_GZIP_LEVEL, gzip -t.
#
# This step never fails the pod for a backup failure: it records the outcome
# in $BACKUP_SCRATCH_DIR/result/ and exits 0, so that the upload container
# always runs, pushes the failure metrics and fails the Job with the reason.
#   result/started    epoch seconds of the start
#   result/timestamp  the start as UTC RFC3339 (the object name's time)
#   result/error      on failure: the reason (one line)
#   result/ok         on success, with result/server (host:port), result/role
#                     (replica|master), result/rdb_bytes, result/gz_bytes,
#                     result/keys; the dump is $BACKUP_SCRATCH_DIR/redis-dump.rdb.gz
#
# Env: REDIS_SHARD, REDIS_SENTINEL_ADDRESSES (space-separated host:port or
# [ipv6]:port), REDIS_SENTINEL_USERNAME, REDIS_SENTINEL_PASSWORD,
# REDIS_USERNAME, REDIS_PASSWORD (both optional; passed to redis-cli as
# REDISCLI_AUTH, never on a command line), REDIS_ALLOW_MASTER_FALLBACK,
# REDIS_GZIP_LEVEL (1-9), REDIS_VERIFY_RDB, BACKUP_SCRATCH_DIR,
# REDIS_TIMEOUT_SECONDS (each Sentinel and INFO call; default 10).

# redis-cli against a Sentinel (_rc sentinel HOST PORT ARGS...) or a Redis
# server (_rc redis HOST PORT ARGS...), with that side's credentials in the
# environment only. `-e`: error replies exit non-zero. Bounded by `timeout`
# unless the first argument after the port is --rdb.
_rc() {
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
  (
    if [ -n "$_rc_pass" ]; then
      REDISCLI_AUTH=$_rc_pass
      export REDISCLI_AUTH
    else
      unset REDISCLI_AUTH
    fi
    exec "$@" </dev/null
  )
}

# The reason of the last failed call: the last non-empty line of its stderr.
_reason() {
  _r=$(awk 'NF { line = $0 } END { print line }' "$errf" 2>/dev/null) || _r=
  if [ "$1" = 124 ]; then _r="no answer within ${timeout_s}s"; fi
  printf '%s' "${_r:-exit code $1}"
}

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
    log warn "Sentinel $_a: SENTINEL replicas $REDIS_SHARD failed: $_why"
    _errors="${_errors:+$_errors; }$_a: $_why"
  done
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

# INFO replication of a server, CRs removed; non-zero on failure.
info_replication() {
  _ir=$(_rc redis "$1" "$2" INFO replication 2>"$errf") || return $?
  printf '%s\n' "$_ir" | tr -d '\r'
}

# The first candidate that is a healthy read-only replica by its own account.
# Sets server_host, server_port, role.
choose_server() {
  sentinel_candidates >"$result/candidates" || die "cannot parse the Sentinel answer for shard $REDIS_SHARD"
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
  done <"$result/candidates"

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
  [ "$_st" -eq 0 ] || die "master $_name of shard $REDIS_SHARD: INFO replication failed: $(_reason "$_st"); no backup taken"
  printf '%s\n' "$_info" | grep -qx 'role:master' || die "master $_name of shard $REDIS_SHARD does not report role:master (failover in progress?); no backup taken"
  role=master
  info "shard $REDIS_SHARD: dumping the master $_name"
}

dump() {
  _name=$(_addr "$server_host" "$server_port")
  rdb=$BACKUP_SCRATCH_DIR/redis-dump.rdb
  _st=0
  _rc redis "$server_host" "$server_port" --rdb "$rdb" >/dev/null 2>"$errf" || _st=$?
  [ "$_st" -eq 0 ] || die "redis-cli --rdb from $_name (shard $REDIS_SHARD) failed: $(_reason "$_st"); no backup taken"
  [ -s "$rdb" ] || die "redis-cli --rdb from $_name wrote an empty file; no backup taken"
  [ "$(head -c 5 "$rdb")" = REDIS ] || die "the dump from $_name is not an RDB file (no REDIS magic); no backup taken"
  rdb_bytes=$(($(wc -c <"$rdb")))
  keys=
  if [ "${REDIS_VERIFY_RDB:-true}" = true ]; then
    require_cmd redis-check-rdb
    if ! redis-check-rdb "$rdb" >"$errf" 2>&1; then
      _why=$(awk '/RDB ERROR DETECTED/ { if ((getline line) > 0) print line; exit }' "$errf")
      [ -n "$_why" ] || _why=$(_reason 1)
      case $_why in
        *"Can't handle RDB format version"*)
          _why="$_why (the image's redis-check-rdb is older than the server: use an images.redis at least as new as the servers, or verifyRdb: false)" ;;
      esac
      die "redis-check-rdb rejected the dump from $_name ($rdb_bytes bytes): $_why; no backup taken"
    fi
    keys=$(awk '/keys read/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$errf")
    info "redis-check-rdb: the dump from $_name is valid (${keys:-?} keys, $rdb_bytes bytes)"
  fi
  gz=$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz
  gzip -"$REDIS_GZIP_LEVEL" -c "$rdb" >"$gz.partial" 2>"$errf" || die "gzip of the dump failed: $(_reason 1); no backup taken"
  gzip -t "$gz.partial" 2>"$errf" || die "the compressed dump does not pass gzip -t: $(_reason 1); no backup taken"
  mv "$gz.partial" "$gz" || die "cannot rename $gz.partial; no backup taken"
  rm -f "$rdb"
  gz_bytes=$(($(wc -c <"$gz")))
}

run() {
  require_env REDIS_SHARD REDIS_SENTINEL_ADDRESSES
  require_cmd redis-cli gzip awk sort head wc tr sed grep
  case ${REDIS_GZIP_LEVEL:=1} in
    [1-9]) ;;
    *) die "REDIS_GZIP_LEVEL must be 1-9, got '$REDIS_GZIP_LEVEL'" ;;
  esac
  timeout_s=${REDIS_TIMEOUT_SECONDS:-10}
  have_timeout=
  if command -v timeout >/dev/null 2>&1; then have_timeout=1; fi
  ask_sentinels
  choose_server
  dump
  printf '%s\n' "$(_addr "$server_host" "$server_port")" >"$result/server"
  printf '%s\n' "$role" >"$result/role"
  printf '%s\n' "$rdb_bytes" >"$result/rdb_bytes"
  printf '%s\n' "$gz_bytes" >"$result/gz_bytes"
  printf '%s\n' "$keys" >"$result/keys"
  : >"$result/ok"
  info "shard $REDIS_SHARD: dump of $(_addr "$server_host" "$server_port") ($role) ready: $rdb_bytes bytes, $gz_bytes compressed (gzip -$REDIS_GZIP_LEVEL)"
}

main() {
  [ -n "${BACKUP_SCRATCH_DIR:-}" ] || { log error "environment variable BACKUP_SCRATCH_DIR is required but empty"; exit 1; }
  result=$BACKUP_SCRATCH_DIR/result
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$result/error
  errf=$BACKUP_SCRATCH_DIR/redis-dump.err
  tab=$(printf '\t')
  # A fresh start: nothing from an earlier attempt of this pod counts.
  rm -rf "$result" "$BACKUP_SCRATCH_DIR/redis-dump.rdb" "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz" "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz.partial"
  mkdir -p "$result" || { log error "cannot create $result: the scratch volume is not writable"; exit 1; }
  _now=$(date -u '+%s %Y-%m-%dT%H:%M:%SZ')
  printf '%s\n' "${_now% *}" >"$result/started"
  printf '%s\n' "${_now#* }" >"$result/timestamp"
  _status=0
  set +e
  (
    set -e
    run
  )
  _status=$?
  set -e
  rm -f "$errf" "$result/candidates"
  if [ "$_status" -ne 0 ]; then
    rm -f "$BACKUP_SCRATCH_DIR/redis-dump.rdb" "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz" "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz.partial" "$result/ok"
    [ -s "$result/error" ] || printf 'the dump step stopped unexpectedly (exit %s)\n' "$_status" >"$result/error"
    info "dump step recorded the failure for the upload step"
  fi
  exit 0
}

main "$@"
