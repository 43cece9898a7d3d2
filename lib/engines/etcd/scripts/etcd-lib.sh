# shellcheck shell=sh
# needs: retention.sh s3.sh step.sh
# Helpers of the etcd steps (joined after common.sh, and after retention.sh
# where pruning or listing is used). Every path arrives through env vars.
#
# Snapshot files: <BACKUP_NAME_PREFIX><UTC YYYY-MM-DDTHH:MM:SSZ>_<node><ETCD_BACKUP_EXTENSION>
# (".age" after it when encrypted) plus "<name>.json" (metadata) and the
# control-plane files archive. Retention's name suffix is "_<node><extension>":
# scope "node" lists this node's snapshots, scope "cluster" every node's.

# Last non-empty line of a file (for one-line error messages).
etcd_last_line() {
  awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null || true
}

# The unsigned integer value of "FIELD": in the JSON on stdin (compact, or
# with blanks after the colon as the metadata files have it).
etcd_json_num() {
  sed -n "s/.*\"$1\":[[:space:]]*\\([0-9][0-9]*\\).*/\\1/p" | head -n 1
}

# etcd_json_get TEXT FIELD: etcd_json_num without a process (every one a step
# starts costs a fork and an exec): the unsigned integer value of "FIELD" in
# TEXT (which holds it once, as etcdctl's -w json output does) into
# ETCD_JSON_VALUE; empty when TEXT has no such number.
etcd_json_get() {
  ETCD_JSON_VALUE=
  case $1 in *"\"$2\":"*) ;; *) return 0 ;; esac
  _jg=${1#*\""$2"\":}
  while :; do
    case $_jg in
      ' '* | '	'*) _jg=${_jg#?} ;;
      *) break ;;
    esac
  done
  ETCD_JSON_VALUE=${_jg%%[!0-9]*}
}

# etcd_alarms_of STATUS: the alarms an `endpoint status -w json` TEXT reports,
# each type once, space-separated, into ETCD_ALARMS (empty: none). The member
# answers with every alarm of the cluster, one "memberID:<id> alarm:<TYPE> "
# string each in "errors" (etcd's maintenance Status; the same alarms as
# `etcdctl alarm list`).
etcd_alarms_of() {
  ETCD_ALARMS=
  case $1 in *'"errors":['*) ;; *) return 0 ;; esac
  _ea=${1#*\"errors\":\[}
  _ea=${_ea%%]*}
  while :; do
    case $_ea in *'alarm:'*) ;; *) return 0 ;; esac
    _ea=${_ea#*alarm:}
    _ea_type=${_ea%%[!A-Z]*}
    case " $ETCD_ALARMS " in *" $_ea_type "*) ;; *) ETCD_ALARMS=${ETCD_ALARMS:+$ETCD_ALARMS }$_ea_type ;; esac
  done
}

# etcd_read_file VAR FILE: VAR=$(cat FILE) without a process (the file's lines,
# trailing newlines removed); non-zero when FILE cannot be read.
etcd_read_file() {
  _rf='' _rf_line=''
  { while IFS= read -r _rf_line || [ -n "$_rf_line" ]; do
    _rf="$_rf$_rf_line
"
    _rf_line=
  done; } <"$2" || return 1
  while :; do
    case $_rf in
      *'
') _rf=${_rf%?} ;;
      *) break ;;
    esac
  done
  eval "$1=\$_rf"
}

# A JSON string literal for $1 (escapes backslash and double quote; the values
# written here are names, URLs and versions without control characters).
etcd_json_str() {
  case $1 in
    *[\\\"]*) printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')" ;;
    *) printf '"%s"' "$1" ;;
  esac
}

# Fails unless $2 (named $1) is an unsigned integer.
etcd_require_int() {
  case $2 in
    '' | *[!0-9]*) die "$1 is not a number: '$2'" ;;
  esac
}

# Reads one value written by an earlier step into the scratch volume.
etcd_scratch_value() {
  [ -f "$ETCD_BACKUP_SCRATCH/$1" ] || die "$ETCD_BACKUP_SCRATCH/$1 is missing: an earlier step of this pod did not finish"
  cat "$ETCD_BACKUP_SCRATCH/$1"
}

# etcd_scratch_read VAR NAME: VAR=$(etcd_scratch_value NAME) without a process.
etcd_scratch_read() {
  [ -f "$ETCD_BACKUP_SCRATCH/$2" ] || die "$ETCD_BACKUP_SCRATCH/$2 is missing: an earlier step of this pod did not finish"
  etcd_read_file "$1" "$ETCD_BACKUP_SCRATCH/$2" || die "cannot read $ETCD_BACKUP_SCRATCH/$2"
}

# Bytes in regular file $1, from its inode (busybox's `wc -c` reads every
# byte: about 14 s per GB).
etcd_file_size() {
  stat -c %s "$1"
}

# Sets ETCD_TOOL: etcdutl (etcd >= 3.5, where the offline snapshot commands
# live) or etcdctl (3.4, where they still are).
etcd_pick_tool() {
  if command -v etcdutl >/dev/null 2>&1; then
    ETCD_TOOL=etcdutl
  elif command -v etcdctl >/dev/null 2>&1; then
    ETCD_TOOL=etcdctl
  else
    die "neither etcdutl nor etcdctl is in this image (PATH=$PATH): images.etcd must be an etcd image"
  fi
}

# ---------------------------------------------------------------------------------------------
# etcd_step_start UNDO: the start of every entry's main, framed by step.sh
# (step_begin: UNDO runs on any exit; TERM/INT fail the step with one line
# naming its step_phase).
etcd_step_start() {
  step_phase starting
  step_begin "$1" etcd-step
}

# The undo of a step that writes nothing that outlives the pod.
etcd_nothing_to_undo() { :; }

# ---------------------------------------------------------------------------------------------
# Checks of a snapshot file

# etcd_check_snapshot FILE STATUS_JSON [sha256 | restore DIR]: proves FILE is a complete
# etcd snapshot and writes `snapshot status -w json` to STATUS_JSON. Sets
# ETCD_SNAP_SIZE, ETCD_SNAP_SHA256, ETCD_SNAP_REVISION, ETCD_SNAP_HASH,
# ETCD_SNAP_TOTAL_KEY, ETCD_SNAP_TOTAL_SIZE, ETCD_TOOL. Dies on any problem.
#  1. `snapshot save` appends the sha256 of the database to it, so a complete
#     file is 32 bytes more than a multiple of 512 (bbolt pages), and its last
#     32 bytes are that checksum;
#  2. `snapshot status` opens the bbolt database, checks every page and walks
#     every key; the database size it reports must be the file's minus 32;
#  3. with "sha256", the database's sha256 must be the checksum it ends with.
#     Without it the caller restores FILE next: `snapshot restore` checks
#     that sha256 itself (unless --skip-hash-check), in Go, faster than
#     busybox, so a separate pass would only read the file once more.
#     With "restore DIR" that restore starts here, once the layout is right,
#     beside `snapshot status` (both only read FILE): the caller waits for it
#     with etcd_restore_wait; a failure of status still comes first.
etcd_check_snapshot() {
  _cs_file=$1 _cs_out=$2
  [ -f "$_cs_file" ] || die "no snapshot file at $_cs_file: the snapshot step did not produce one"
  _cs_size=$(etcd_file_size "$_cs_file") || die "cannot read the size of $_cs_file"
  if [ "$_cs_size" -le 32 ] || [ $((_cs_size % 512)) -ne 32 ]; then
    die "integrity check failed: $_cs_file ($_cs_size bytes) does not end with etcd's 32-byte sha256 after whole 512-byte blocks: truncated or not a snapshot"
  fi
  _cs_db=$((_cs_size - 32))
  _cs_want=$(tail -c 32 "$_cs_file" | od -An -v -tx1 | tr -d ' \n')
  [ "${#_cs_want}" -eq 64 ] || die "cannot read the checksum at the end of $_cs_file"
  etcd_pick_tool
  if [ "${3:-}" = restore ]; then etcd_restore_start "$_cs_file" "$4"; fi
  if ! step_run "$ETCD_TOOL" snapshot status "$_cs_file" -w json >"$_cs_out" 2>"$_cs_out.err"; then
    die "integrity check failed: $ETCD_TOOL snapshot status rejected $_cs_file: $(etcd_last_line "$_cs_out.err")"
  fi
  _cs_status=''
  etcd_read_file _cs_status "$_cs_out" || die "cannot read $_cs_out"
  etcd_json_get "$_cs_status" revision
  ETCD_SNAP_REVISION=$ETCD_JSON_VALUE
  etcd_json_get "$_cs_status" hash
  ETCD_SNAP_HASH=$ETCD_JSON_VALUE
  etcd_json_get "$_cs_status" totalKey
  ETCD_SNAP_TOTAL_KEY=$ETCD_JSON_VALUE
  etcd_json_get "$_cs_status" totalSize
  ETCD_SNAP_TOTAL_SIZE=$ETCD_JSON_VALUE
  if [ -z "$ETCD_SNAP_REVISION" ] || [ -z "$ETCD_SNAP_HASH" ] || [ -z "$ETCD_SNAP_TOTAL_KEY" ] || [ -z "$ETCD_SNAP_TOTAL_SIZE" ]; then
    die "integrity check failed: $ETCD_TOOL snapshot status printed no hash/revision/totalKey/totalSize: $(head -c 300 "$_cs_out")"
  fi
  if [ "$ETCD_SNAP_TOTAL_SIZE" != "$_cs_db" ]; then
    die "integrity check failed: $ETCD_TOOL snapshot status reports a $ETCD_SNAP_TOTAL_SIZE-byte database, but $_cs_file holds $_cs_db bytes before its checksum"
  fi
  if [ "${3:-}" = sha256 ]; then
    step_run etcd_sha256_head "$_cs_file" "$_cs_db" >"$_cs_out.sha256" || die "cannot read $_cs_file"
    _cs_got=$(awk '{ print $1 }' "$_cs_out.sha256")
    [ "$_cs_want" = "$_cs_got" ] ||
      die "integrity check failed: the sha256 of $_cs_file's database ($_cs_got) is not the checksum it ends with ($_cs_want): the snapshot is corrupt"
  fi
  # shellcheck disable=SC2034 # read by the entry scripts
  ETCD_SNAP_SIZE=$_cs_size ETCD_SNAP_SHA256=$_cs_want
}

# etcd_sha256_head FILE BYTES: the sha256 of the first BYTES (a multiple of
# 512) of FILE, read by dd in the largest power-of-two blocks up to 1 MiB that
# divide BYTES (busybox's `head -c` copies byte by byte: 3x slower).
etcd_sha256_head() {
  _sh_block=512
  while [ "$_sh_block" -lt 1048576 ] && [ $(($2 % (_sh_block * 2))) -eq 0 ]; do _sh_block=$((_sh_block * 2)); done
  dd if="$1" bs="$_sh_block" count=$(($2 / _sh_block)) 2>/dev/null | sha256sum
}

# etcd_restore_into FILE DATA_DIR [restore flags...]: `snapshot restore`,
# which checks the sha256 FILE ends with and rebuilds a member's data
# directory (the bbolt database, a WAL, a v2 store snapshot).
etcd_restore_into() {
  etcd_restore_start "$@"
  etcd_restore_wait
}

# etcd_restore_start FILE DIR [ARGS...]: that restore in the background
# (ETCD_RESTORE_PID), for etcd_restore_wait. An undo that removes DIR calls
# etcd_restore_stop first.
etcd_restore_start() {
  _ri_file=$1 _ri_dir=$2
  shift 2
  etcd_pick_tool
  _ri_log=${TMPDIR:-/tmp}/etcd-restore.log
  "$ETCD_TOOL" snapshot restore "$_ri_file" --data-dir "$_ri_dir" "$@" >"$_ri_log" 2>&1 &
  ETCD_RESTORE_PID=$!
}

# etcd_restore_wait: waits for the restore etcd_restore_start began (a TERM
# stops it at once, as step_run does); dies, removing its directory, unless it
# built a data directory.
etcd_restore_wait() {
  _ri_rc=0
  wait "$ETCD_RESTORE_PID" || _ri_rc=$?
  ETCD_RESTORE_PID=
  if [ "$_ri_rc" -ne 0 ]; then
    rm -rf "$_ri_dir"
    case $(etcd_last_line "$_ri_log") in
      *'expected sha256'*)
        die "integrity check failed: $ETCD_TOOL snapshot restore found that the database in $_ri_file does not match the sha256 it ends with: the snapshot is corrupt ($(etcd_last_line "$_ri_log"))"
        ;;
    esac
    die "$ETCD_TOOL snapshot restore of $_ri_file failed: $(etcd_last_line "$_ri_log")"
  fi
  [ -f "$_ri_dir/member/snap/db" ] || die "$ETCD_TOOL snapshot restore of $_ri_file left no member/snap/db in $_ri_dir"
}

# etcd_restore_stop: ends a restore still running (a step failing beside it).
etcd_restore_stop() {
  [ -n "${ETCD_RESTORE_PID:-}" ] || return 0
  kill -s TERM "$ETCD_RESTORE_PID" 2>/dev/null || :
  wait "$ETCD_RESTORE_PID" 2>/dev/null || :
  ETCD_RESTORE_PID=
}

# etcd_key_count REV: the number of keys at revision REV (0: the current
# one) of the member at ETCDCTL_ENDPOINTS, in ETCD_KEY_COUNT; non-zero, the
# reason in ETCD_KEY_COUNT_ERROR, when it does not answer. One range read
# over the whole keyspace that returns a single key: etcdctl's `get "" --prefix`
# reads from "\x00" on (etcd v3.5.16 etcdctl/ctlv3/command/get_command.go,
# getGetOp), and a RangeResponse's count is the number of keys in the range
# whatever the limit (server/mvcc/kvstore_txn.go, rangeKeys), printed as JSON
# without "count" when it is 0 (api/etcdserverpb/rpc.pb.go: `json:"count,omitempty"`).
# (`--count-only` is refused with `-w json` -- get_command.go allows it only
# with `-w fields` -- and etcdctl 3.4 has no such flag.)
# shellcheck disable=SC2034 # ETCD_KEY_COUNT_ERROR: read by the entry scripts
etcd_key_count() {
  _kc_out=${TMPDIR:-/tmp}/key-count.json
  if ! step_run env ETCDCTL_COMMAND_TIMEOUT="${ETCD_BACKUP_STATUS_TIMEOUT:-15s}" \
    etcdctl get "" --prefix --keys-only --limit=1 --rev="$1" -w json >"$_kc_out" 2>"$_kc_out.err"; then
    ETCD_KEY_COUNT_ERROR=$(etcd_last_line "$_kc_out.err")
    return 1
  fi
  _kc_answer=''
  etcd_read_file _kc_answer "$_kc_out" || _kc_answer=
  case $_kc_answer in
    *'"header":'*) ;;
    *)
      ETCD_KEY_COUNT_ERROR="unexpected answer: $(head -c 200 "$_kc_out")"
      return 1
      ;;
  esac
  etcd_json_get "$_kc_answer" count
  ETCD_KEY_COUNT=${ETCD_JSON_VALUE:-0}
}

# Free bytes of the filesystem holding directory $1.
etcd_free_bytes() {
  _fb_kib=$(df -Pk "$1" | awk 'NR == 2 { print $4 }') || return 1
  case $_fb_kib in '' | *[!0-9]*) return 1 ;; esac
  printf '%s\n' $((_fb_kib * 1024))
}

# ---------------------------------------------------------------------------------------------
# S3 (the aws CLI), listing and retention

# etcd_s3_download KEY DST: downloads s3://S3_BUCKET/KEY to DST and checks
# its size against the stored object's; dies (removing DST) on any failure.
# Run it through step_run: TERM then stops the download at once.
etcd_s3_download() {
  _dl_err=${TMPDIR:-/tmp}/aws-download.err
  s3_aws s3api head-object --bucket "$S3_BUCKET" --key "$1" --query ContentLength --output text >"$_dl_err.size" 2>"$_dl_err" ||
    die "cannot find s3://$S3_BUCKET/$1: $(etcd_last_line "$_dl_err")"
  _dl_stored=$(cat "$_dl_err.size")
  if ! s3_aws s3 cp "s3://$S3_BUCKET/$1" "$2" --only-show-errors 2>"$_dl_err" >&2; then
    rm -f "$2"
    die "downloading s3://$S3_BUCKET/$1 failed: $(etcd_last_line "$_dl_err")"
  fi
  _dl_got=$(etcd_file_size "$2") || die "cannot read the size of $2"
  if [ "$_dl_got" != "$_dl_stored" ]; then
    rm -f "$2"
    die "downloaded $_dl_got bytes of s3://$S3_BUCKET/$1, which holds $_dl_stored"
  fi
  info "downloaded s3://$S3_BUCKET/$1 ($_dl_got bytes)"
}

# Whether BACKUP_DIR can be listed (the reason in _rt_err when not): an
# unreadable directory is a failed listing, never one without snapshots. Call
# it outside $(...) to keep the reason.
etcd_dir_listable() {
  [ -d "$BACKUP_DIR" ] || { _rt_err="directory $BACKUP_DIR does not exist"; return 1; }
  { [ -r "$BACKUP_DIR" ] && [ -x "$BACKUP_DIR" ]; } || { _rt_err="directory $BACKUP_DIR is not readable"; return 1; }
}

# The node names found in this policy's snapshot names, encrypted (".age")
# or not (one per line, sorted).
etcd_nodes_seen() {
  case $BACKUP_DEST_KIND in
    dir)
      etcd_dir_listable || return 1
      _ns_names=$(
        for _ns_f in "$BACKUP_DIR/$BACKUP_NAME_PREFIX"*"$ETCD_BACKUP_EXTENSION" "$BACKUP_DIR/$BACKUP_NAME_PREFIX"*"$ETCD_BACKUP_EXTENSION.age"; do
          if [ -f "$_ns_f" ]; then printf '%s\n' "${_ns_f##*/}"; fi
        done
      )
      _ns_prefix=$BACKUP_NAME_PREFIX
      ;;
    s3)
      _ns_prefix=${S3_PREFIX:-}$BACKUP_NAME_PREFIX
      _ns_names=$(s3_aws s3api list-objects-v2 --bucket "$S3_BUCKET" --prefix "$_ns_prefix" \
        --query 'Contents[].Key' --output text) || return 1
      _ns_names=$(printf '%s\n' "$_ns_names" | tr '\t' '\n')
      ;;
    *) return 1 ;;
  esac
  printf '%s\n' "$_ns_names" | _NS_PREFIX=$_ns_prefix _NS_EXT=$ETCD_BACKUP_EXTENSION awk '
    BEGIN { p = ENVIRON["_NS_PREFIX"]; x = ENVIRON["_NS_EXT"] }
    # an encrypted snapshot: the same name and ".age"
    { sub(/\.age$/, "") }
    substr($0, 1, length(p)) == p && length($0) > length(p) + 21 + length(x) {
      rest = substr($0, length(p) + 21)
      if (substr(rest, 1, 1) != "_" || substr(rest, length(rest) - length(x) + 1) != x) next
      node = substr(rest, 2, length(rest) - 1 - length(x))
      if (node ~ /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/) print node
    }' | LC_ALL=C sort -u
}

# The retention listing of this policy's snapshots: this node's (scope node)
# or every node's (scope cluster: retention_list once per node suffix).
etcd_list() {
  if [ "${ETCD_BACKUP_RETENTION_SCOPE:-node}" != cluster ]; then
    retention_list
    return
  fi
  _el_own=${BACKUP_NAME_SUFFIX:-}
  if [ "$BACKUP_DEST_KIND" = dir ]; then etcd_dir_listable || return 1; fi
  _el_nodes=$(etcd_nodes_seen) || return 1
  for _el_n in $_el_nodes; do
    BACKUP_NAME_SUFFIX=_$_el_n$ETCD_BACKUP_EXTENSION
    if ! retention_list; then
      BACKUP_NAME_SUFFIX=$_el_own
      return 1
    fi
  done
  BACKUP_NAME_SUFFIX=$_el_own
}

# etcd_prune [NEW]: retention right after NEW (its listing name) was stored
# and verified, or -- without NEW, in the retention-prune CronJob
# (etcd-prune.sh) -- of what is there: retention_apply over this node's
# snapshots (scope node) or every node's (scope cluster, listed by etcd_list).
etcd_prune() {
  if [ "${ETCD_BACKUP_RETENTION_SCOPE:-node}" = cluster ]; then
    _rt_lister=etcd_list _rt_scope="every node's snapshots"
  fi
  retention_apply "${1:-}"
  _rt_lister='' _rt_scope=''
}
