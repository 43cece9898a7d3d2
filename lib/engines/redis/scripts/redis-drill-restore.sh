# shellcheck shell=sh
# needs: drill-steps.sh
# Entry of a Redis restore drill's `restore` init container (images.redis):
#  1. gunzips the backup (the fetch or decrypt step's) into
#     BACKUP_DRILL_DIR/dump.rdb, removing the compressed copy;
#  2. checks it with redis-check-rdb (its key count: "N keys read");
#  3. loads it into a temporary redis-server inside the pod: no TCP port
#     (--port 0), a unix socket in BACKUP_DRILL_DIR, --dir BACKUP_DRILL_DIR,
#     --dbfilename dump.rdb, no saving; as a replica of a master that does not
#     exist (127.0.0.1 port 1), because a master drops the keys whose TTL has
#     passed while it loads and a replica keeps them: DBSIZE is then every key
#     of the file, whenever the drill runs;
#  4. waits until it has loaded (INFO persistence loading:0, at most
#     REDIS_DRILL_LOAD_TIMEOUT seconds), sums INFO keyspace, stops it;
#  5. compares that key count with the metadata's keyCount (the keys
#     redis-check-rdb read at backup time) and with the file's own count.
# On every exit -- success, failure, TERM/INT -- the server is stopped and the
# unpacked RDB removed. A failure is recorded for the report step
# (drill-steps.sh).
# Env: BACKUP_DRILL_DIR, REDIS_DRILL_LOAD_TIMEOUT.

undo_restore() {
  if [ -n "${server_pid:-}" ]; then
    kill "$server_pid" 2>/dev/null || :
    wait "$server_pid" 2>/dev/null || :
  fi
  rm -f "$BACKUP_DRILL_DIR/dump.rdb" "${gz:-}"
}

last_line() { awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null || :; }

cli() { redis-cli --no-auth-warning -s "$sock" "$@" </dev/null 2>/dev/null | tr -d '\r'; }

main() {
  drill_step restore undo_restore
  require_cmd redis-server redis-cli redis-check-rdb gunzip awk sed tr sleep mktemp
  name=$(drill_fact name)
  gz=$(drill_fact clear)
  rdb=$BACKUP_DRILL_DIR/dump.rdb
  sock=$BACKUP_DRILL_DIR/redis.sock
  server_pid=
  step_phase "unpacking $gz"
  step_run gunzip -c "$gz" >"$rdb" 2>"$BACKUP_DRILL_DIR/gunzip.err" || die "gunzip of $name failed: $(last_line "$BACKUP_DRILL_DIR/gunzip.err")"
  rm -f "$gz"
  step_phase "checking $rdb with redis-check-rdb"
  if ! step_run redis-check-rdb "$rdb" >"$BACKUP_DRILL_DIR/check.out" 2>&1; then
    _why=$(awk '/RDB ERROR DETECTED/ { if ((getline line) > 0) print line; exit }' "$BACKUP_DRILL_DIR/check.out")
    die "redis-check-rdb rejected $name: ${_why:-$(last_line "$BACKUP_DRILL_DIR/check.out")}"
  fi
  file_keys=$(awk '/keys read/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) { print $i; exit } }' "$BACKUP_DRILL_DIR/check.out")
  recorded=$(sed -n 's/.*"keyCount":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$BACKUP_DRILL_DIR/metadata.json" | head -n 1)

  step_phase "loading $name into a temporary redis-server"
  redis-server --port 0 --unixsocket "$sock" --unixsocketperm 700 --dir "$BACKUP_DRILL_DIR" --dbfilename dump.rdb \
    --save '' --appendonly no --replicaof 127.0.0.1 1 --logfile "$BACKUP_DRILL_DIR/redis.log" </dev/null &
  server_pid=$!
  _limit=${REDIS_DRILL_LOAD_TIMEOUT:-900} _waited=0
  while :; do
    kill -0 "$server_pid" 2>/dev/null || die "the temporary redis-server stopped while loading $name: $(last_line "$BACKUP_DRILL_DIR/redis.log")"
    [ "$(cli INFO persistence | sed -n 's/^loading://p')" != 0 ] || break
    [ "$_waited" -lt "$_limit" ] || die "the temporary redis-server did not load $name within ${_limit}s"
    sleep 1
    _waited=$((_waited + 1))
  done
  loaded=$(cli INFO keyspace | awk -F '[:=,]' '/^db[0-9]+:/ { n += $3 } END { print n + 0 }')
  kill "$server_pid" 2>/dev/null || :
  wait "$server_pid" 2>/dev/null || :
  server_pid=
  if [ -z "$recorded" ]; then
    log warn "the metadata of $name records no keyCount (verifyRdb: false at backup time): compared with the file's own count only"
    recorded=$file_keys
  fi
  [ "$loaded" = "$recorded" ] || die "key count mismatch: $name loaded $loaded keys, the backup recorded $recorded"
  [ "$loaded" = "$file_keys" ] || die "key count mismatch: $name loaded $loaded keys, redis-check-rdb read $file_keys"
  drill_record result "$loaded keys loaded into a temporary redis-server, as recorded at backup time"
  info "$name: redis-check-rdb accepted it, a temporary redis-server loaded $loaded keys, as recorded at backup time"
}

main "$@"
