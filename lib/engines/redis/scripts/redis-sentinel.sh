# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # globals shared with redis-dump.sh, which sets or reads them
# The server a Redis shard backup dumps (redis-dump.sh): the Sentinels'
# account of the shard's replicas, each candidate's own INFO replication, the
# master as a fallback, and the shard coverage (SENTINEL MASTERS). Step 2 and
# 3 of redis-dump.sh describe the rules.
# Reads: errf (the stderr of the last call), timeout_s and have_timeout (the
# bound of each call), tab, work, result; the REDIS_* credentials.

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
