#!/bin/sh
# Peak resident memory (GNU time's %M, KiB) and CPU seconds of the tools the
# backup containers run, against real servers on loopback, with data of a
# given size: the evidence behind the default requests and memory limits in
# docs/operations/resources.md.
#
#   sh bench/peak-rss.sh [MiB]     (default 64; needs etcd, etcdctl, redis-server,
#                                   redis-cli, busybox, gzip, age, aws, node + s3rver)
# Prints one line per tool: "<step> <tool> peak_rss_kib=<n> cpu_s=<user+sys> wall_s=<n>".
set -eu
size_mib=${1:-64}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
pids=
cleanup() {
  for p in $pids; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

measure() { # <step> <label> <command...>
  step=$1 label=$2
  shift 2
  /usr/bin/time -o "$work/time" -f '%M %U %S %e' "$@" >"$work/out" 2>"$work/err" || {
    echo "$step $label FAILED:" >&2
    cat "$work/err" >&2
    exit 1
  }
  read -r rss user sys wall <"$work/time"
  printf '%s %s peak_rss_kib=%s cpu_s=%s wall_s=%s\n' "$step" "$label" "$rss" "$(echo "$user $sys" | awk '{print $1 + $2}')" "$wall"
}

# random-ish data that compresses like a database dump (half random, half repeated)
mkdata() { # <file> <MiB>
  head -c $(($2 * 524288)) /dev/urandom >"$1.r"
  yes 'some repeated text of a key and a value' | head -c $(($2 * 524288)) >"$1.t"
  cat "$1.r" "$1.t" >"$1"
  rm -f "$1.r" "$1.t"
}

echo "# data size: ${size_mib} MiB; $(uname -sr); $(nproc) cores"
mkdata "$work/data" "$size_mib"

# etcd: one member, filled with size_mib MiB of 64 KiB values
etcd --name m --data-dir "$work/etcd" --listen-client-urls http://127.0.0.1:22379 --advertise-client-urls http://127.0.0.1:22379 \
  --listen-peer-urls http://127.0.0.1:22380 --initial-advertise-peer-urls http://127.0.0.1:22380 --initial-cluster m=http://127.0.0.1:22380 \
  --quota-backend-bytes=8589934592 >"$work/etcd.log" 2>&1 &
pids="$pids $!"
export ETCDCTL_API=3 ETCDCTL_ENDPOINTS=http://127.0.0.1:22379
i=0
until etcdctl endpoint health >/dev/null 2>&1; do i=$((i + 1)); [ "$i" -lt 50 ] || exit 1; sleep 0.2; done
head -c 65536 /dev/urandom | base64 -w0 >"$work/value"
i=0
while [ "$i" -lt $((size_mib * 16)) ]; do etcdctl put "key-$i" <"$work/value" >/dev/null || etcdctl put "key-$i" "$(cat "$work/value")" >/dev/null; i=$((i + 1)); done
measure snapshot 'etcdctl endpoint status' etcdctl endpoint status -w json
measure snapshot 'etcdctl snapshot save' etcdctl snapshot save "$work/snap.db"
echo "# snapshot: $(wc -c <"$work/snap.db") bytes"
measure snapshot 'etcdctl snapshot status' etcdctl snapshot status -w json "$work/snap.db"
measure snapshot 'etcdctl snapshot restore (restore check)' etcdctl snapshot restore "$work/snap.db" --data-dir "$work/restored"
measure snapshot 'busybox sha256sum' busybox sha256sum "$work/snap.db"
measure snapshot 'busybox tar (control-plane files)' busybox tar -czf "$work/files.tgz" -C "$here" lib
# shellcheck disable=SC2016 # the loop is busybox sh's, not this script's
measure snapshot 'busybox sh' busybox sh -c 'i=0; while [ $i -lt 1000 ]; do i=$((i + 1)); done'
age-keygen -o "$work/key" 2>/dev/null
recipient=$(age-keygen -y "$work/key")
measure encrypt 'age -r (stream)' age -r "$recipient" -o "$work/snap.db.age" "$work/snap.db"
measure drill 'age -d (stream)' age -d -i "$work/key" -o "$work/snap.dec" "$work/snap.db.age"

# redis: master and replica, size_mib MiB of data; the replica dumps with --rdb
redis-server --port 26390 --bind 127.0.0.1 --dir "$work" --dbfilename m.rdb --save '' --appendonly no --repl-diskless-sync-delay 0 >"$work/m.log" 2>&1 &
pids="$pids $!"
mkdir -p "$work/replica"
redis-server --port 26391 --bind 127.0.0.1 --dir "$work/replica" --save '' --appendonly no --replicaof 127.0.0.1 26390 --repl-diskless-sync-delay 0 >"$work/r.log" 2>&1 &
pids="$pids $!"
i=0
until redis-cli -p 26390 ping >/dev/null 2>&1; do i=$((i + 1)); [ "$i" -lt 50 ] || exit 1; sleep 0.2; done
v=$(head -c 49152 /dev/urandom | base64 -w0)
i=0
while [ "$i" -lt $((size_mib * 16)) ]; do echo "SET key-$i $v"; i=$((i + 1)); done | redis-cli -p 26390 >/dev/null
i=0
until redis-cli -p 26391 info replication | grep -q 'master_link_status:up'; do i=$((i + 1)); [ "$i" -lt 100 ] || exit 1; sleep 0.2; done
sleep 1
measure dump 'redis-cli --rdb' redis-cli -p 26391 --rdb "$work/dump.rdb"
echo "# rdb: $(wc -c <"$work/dump.rdb") bytes"
measure dump 'gzip -c' sh -c "gzip -c '$work/dump.rdb' >'$work/dump.rdb.gz'"
measure drill 'gzip -dc' sh -c "gzip -dc '$work/dump.rdb.gz' >/dev/null"
measure drill 'redis-check-rdb' redis-check-rdb "$work/dump.rdb"
# the drill's temporary server: loads the dump, then is shut down
mkdir -p "$work/drill"
cp "$work/dump.rdb" "$work/drill/dump.rdb"
keys=$(redis-cli -p 26391 dbsize)
( until [ "$(redis-cli -p 26392 dbsize 2>/dev/null)" = "$keys" ] && redis-cli -p 26392 info persistence | grep -q 'loading:0'; do sleep 0.2; done
  redis-cli -p 26392 info memory | grep '^used_memory:' >"$work/used_memory"
  redis-cli -p 26392 shutdown nosave >/dev/null 2>&1 || true ) &
measure drill 'redis-server (loads the dump)' redis-server --port 26392 --bind 127.0.0.1 --dir "$work/drill" --save '' --appendonly no
echo "# the loaded server's $(tr -d '\r' <"$work/used_memory")"

# S3: s3rver and the aws CLI (multipart upload of size_mib MiB, then a download)
node "$here/node_modules/s3rver/bin/s3rver.js" -d "$work/s3" -a 127.0.0.1 -p 24568 --configure-bucket backups --silent >"$work/s3.log" 2>&1 &
pids="$pids $!"
i=0
until curl -s -o /dev/null http://127.0.0.1:24568/; do i=$((i + 1)); [ "$i" -lt 100 ] || exit 1; sleep 0.2; done
export AWS_ACCESS_KEY_ID=S3RVER AWS_SECRET_ACCESS_KEY=S3RVER AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null
unset AWS_CA_BUNDLE
aws=/usr/bin/aws
measure report 'curl (a metrics push)' curl -s -o /dev/null --data-binary @"$work/value" http://127.0.0.1:24568/
measure upload 'aws s3 cp (file)' $aws --endpoint-url http://127.0.0.1:24568 s3 cp "$work/data" s3://backups/data
measure upload 'aws s3 cp - (stdin)' sh -c "$aws --endpoint-url http://127.0.0.1:24568 s3 cp - s3://backups/stdin <'$work/data'"
measure prune 'aws s3api list-objects-v2' $aws --endpoint-url http://127.0.0.1:24568 s3api list-objects-v2 --bucket backups
measure drill 'aws s3 cp (download)' $aws --endpoint-url http://127.0.0.1:24568 s3 cp s3://backups/data "$work/data.down"
