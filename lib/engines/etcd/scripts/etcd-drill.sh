# shellcheck shell=sh
# needs: etcd-lib.sh drill-steps.sh
# Entry of a restore drill's `restore` init container (images.etcd, busybox
# sh from the tools step). It needs no certificate and no network but the
# pod's loopback: it never talks to the live cluster.
#  1. checks the snapshot like a backup (size and trailer, `snapshot status`)
#     and against its metadata: the sha256 it ends with, revision, hash and
#     totalSize must be what the backup recorded (not totalKey: etcdutl 3.6
#     counts the live keys there, 3.5 and 3.4 every entry of every bucket,
#     so a backup taken before an upgrade would differ; the sha256 already
#     proves every byte);
#  2. `snapshot restore` (which checks the database against that sha256) into
#     BACKUP_DRILL_DIR/member, as the one-member cluster "drill" on two
#     127.0.0.1 ports nothing uses;
#  3. starts a temporary etcd member on it (log: BACKUP_DRILL_DIR/member.log),
#     waits up to ETCD_DRILL_START_TIMEOUT seconds until it is healthy,
#     reads its revision (`endpoint status`) and its number of keys at that
#     revision (etcd_key_count), and compares them with the keyCountRevision
#     and keyCount the backup recorded (the revision the keys were counted
#     at, which is where the restored member starts: above the snapshot's
#     own after a compaction at the head); a backup without keyCount
#     (written before backups counted keys): its revision only, and the log
#     says so;
#  4. stops the member.
# On every exit -- success, failure, TERM/INT -- the member is stopped (TERM,
# KILL after 10 s) and the restored data removed. A failure is recorded for
# the report step (exit 0).
# Env: BACKUP_DRILL_DIR, ETCD_DRILL_START_TIMEOUT, ETCDCTL_API.

undo_drill() {
  stop_member
  rm -rf "${data:-}"
}

# The value of "sha256" in the metadata file $1.
meta_sha256() {
  sed -n 's/.*"sha256":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$1" | head -n 1
}

# compare FIELD GOT: dies unless the metadata recorded GOT for FIELD.
compare() {
  _cm_want=$(etcd_json_num "$1" <"$meta")
  [ -n "$_cm_want" ] || die "the metadata of $name has no $1: cannot compare"
  [ "$_cm_want" = "$2" ] ||
    die "integrity check failed: $ETCD_TOOL snapshot status reports $1 $2 for $name, its metadata recorded $_cm_want: the backup changed after it was stored"
}

# Two TCP ports nothing on this host uses (per /proc/net/tcp and tcp6), at
# random in 20000-59999.
free_ports() {
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | _FP_SEED=$$ awk '
    function hex(s,   i, n) {
      n = 0
      for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789ABCDEF", toupper(substr(s, i, 1))) - 1
      return n
    }
    $2 ~ /:/ { n = split($2, a, ":"); used[hex(a[n])] = 1 }
    END {
      srand(); base = int(rand() * 40000) + ENVIRON["_FP_SEED"] * 7919
      for (i = 0; i < 40000 && found < 2; i++) {
        p = 20000 + (base + i) % 40000
        if (!(p in used)) { used[p] = 1; port[++found] = p }
      }
      if (found == 2) print port[1], port[2]
    }'
}

# True while the member's process runs (not yet exited, or exited but not reaped).
member_running() {
  [ -n "${member_pid:-}" ] || return 1
  _mr_state=$(awk '{ print $3 }' "/proc/$member_pid/stat" 2>/dev/null) || return 1
  [ -n "$_mr_state" ] && [ "$_mr_state" != Z ]
}

start_member() {
  # a clean env: etcd reads ETCD_* variables as flags
  env -i PATH="$PATH" HOME="$HOME" TMPDIR="$TMPDIR" etcd --name drill --data-dir "$data" \
    --listen-client-urls "$client" --advertise-client-urls "$client" \
    --listen-peer-urls "$peer" --initial-advertise-peer-urls "$peer" --initial-cluster "drill=$peer" \
    >"$BACKUP_DRILL_DIR/member.log" 2>&1 &
  member_pid=$!
}

# Waits until the member is healthy (it answers a linearizable read).
wait_member() {
  _wm_timeout=${ETCD_DRILL_START_TIMEOUT:-300}
  etcd_require_int ETCD_DRILL_START_TIMEOUT "$_wm_timeout"
  _wm_deadline=$(($(now_epoch) + _wm_timeout))
  _wm_out=$TMPDIR/member-health
  while :; do
    member_running || die "the temporary etcd member exited while starting: $(etcd_last_line "$BACKUP_DRILL_DIR/member.log")"
    if step_run etcdctl --dial-timeout=1s --command-timeout=5s endpoint health >"$_wm_out" 2>&1; then return 0; fi
    [ "$(now_epoch)" -lt "$_wm_deadline" ] ||
      die "the temporary etcd member did not become healthy at $ETCDCTL_ENDPOINTS within ${_wm_timeout}s: $(etcd_last_line "$_wm_out")"
    step_run sleep 0.2
  done
}

# Stops the member: TERM, KILL after 10 s.
stop_member() {
  [ -n "${member_pid:-}" ] || return 0
  if member_running; then
    kill -s TERM "$member_pid" 2>/dev/null || :
    _sm_n=0
    while member_running && [ "$_sm_n" -lt 100 ]; do
      sleep 0.1
      _sm_n=$((_sm_n + 1))
    done
    if member_running; then kill -s KILL "$member_pid" 2>/dev/null || :; fi
  fi
  wait "$member_pid" 2>/dev/null || :
  member_pid=
}

main() {
  require_env BACKUP_DRILL_DIR
  drill_step restore undo_drill
  require_cmd etcd etcdctl env awk sed grep head tail od tr stat mktemp cat rm chmod sleep
  name=$(drill_fact name)
  [ -s "$BACKUP_DRILL_DIR/clear" ] ||
    die "the newest backup $name is encrypted (.age) and the policy sets no spec.encryption to decrypt it with"
  snap=$(drill_fact clear)
  meta=$BACKUP_DRILL_DIR/metadata.json

  step_phase "checking $snap"
  # no sha256 pass: snapshot restore checks it
  etcd_check_snapshot "$snap" "$TMPDIR/status.json"
  recorded=$(meta_sha256 "$meta")
  [ -n "$recorded" ] || die "the metadata of $name has no sha256: cannot compare"
  [ "$recorded" = "$ETCD_SNAP_SHA256" ] ||
    die "integrity check failed: $name ends with the sha256 $ETCD_SNAP_SHA256, its metadata recorded $recorded: the backup changed after it was stored"
  compare revision "$ETCD_SNAP_REVISION"
  compare hash "$ETCD_SNAP_HASH"
  compare totalSize "$ETCD_SNAP_TOTAL_SIZE"
  key_count=$(etcd_json_num keyCount <"$meta")
  want_revision=$(etcd_json_num keyCountRevision <"$meta")
  want_revision=${want_revision:-$ETCD_SNAP_REVISION}

  ports=$(free_ports)
  [ -n "$ports" ] || die "no two free TCP ports in 20000-59999 for the temporary etcd member"
  client=http://127.0.0.1:${ports% *}
  peer=http://127.0.0.1:${ports#* }
  data=$BACKUP_DRILL_DIR/member
  rm -rf "$data"
  step_phase "restoring $snap into $data"
  etcd_restore_into "$snap" "$data" --name drill --initial-cluster "drill=$peer" --initial-advertise-peer-urls "$peer"
  chmod 0700 "$data" || die "cannot chmod $data"
  # a downloaded or decrypted copy is no longer needed: the restored member holds it
  case $snap in "$BACKUP_DRILL_DIR"/*) rm -f "$snap" ;; esac

  step_phase "starting a temporary etcd member on $data"
  ETCDCTL_ENDPOINTS=$client
  export ETCDCTL_ENDPOINTS
  start_member
  wait_member
  step_phase "reading the temporary etcd member at $client"
  out=$TMPDIR/member-status.json
  step_run etcdctl --command-timeout=15s endpoint status -w json >"$out" 2>"$out.err" ||
    die "cannot get the status of the temporary etcd member at $client: $(etcd_last_line "$out.err")"
  revision=$(etcd_json_num revision <"$out")
  [ -n "$revision" ] || die "etcdctl endpoint status of the temporary member printed no revision: $(head -c 300 "$out")"
  [ "$revision" = "$want_revision" ] ||
    die "the restored member is at revision $revision, the backup $name recorded $want_revision"
  etcd_key_count "$revision" ||
    die "cannot count the keys of the temporary etcd member at $client at revision $revision: $ETCD_KEY_COUNT_ERROR"
  if [ -n "$key_count" ]; then
    [ "$ETCD_KEY_COUNT" = "$key_count" ] ||
      die "the restored member holds $ETCD_KEY_COUNT keys at revision $revision, the backup $name recorded $key_count"
    result="revision $revision and $ETCD_KEY_COUNT keys, as recorded"
  else
    info "the metadata of $name records no keyCount (written before backups counted keys): compared the revision only"
    result="revision $revision as recorded, $ETCD_KEY_COUNT keys (no count recorded)"
  fi
  step_phase "stopping the temporary etcd member"
  stop_member
  drill_record result "$result"
  info "restored $name with $ETCD_TOOL and started a temporary etcd member on it: $result"
}

main "$@"
