# shellcheck shell=sh
# needs: step.sh s3.sh redis-stream.sh content.sh redis-metadata.sh
# optional: retention.sh metrics.sh copy.sh
# Upload side of a Redis shard backup: container `s3-upload` (aws CLI image).
# It runs at the same time as container `redis-dump` (redis-dump.sh) of the
# same pod and uploads the backup while it is produced, reading it from the
# named pipe $BACKUP_SCRATCH_DIR/stream.
#
#  1. Opens the stream and reads its header line "<server> <role>" (sent once
#     redis-dump has chosen the server), then starts
#       aws s3 cp - s3://$S3_BUCKET/$S3_PREFIX$BACKUP_NAME_PREFIX<UTC start>$BACKUP_NAME_SUFFIX
#     (redis-backup_<shard>_<time>.rdb.gz; with REDIS_ENCRYPTED=true the
#     stream comes from age-encrypt through stream.age and the object is
#     <that name>.age) on a pipe that this script holds
#     open: the CLI cannot see the end of its input before this script lets it.
#     Beside it, the content checks' lookup (content_lookup_start, content.sh)
#     lists this shard's objects and reads the newest one's metadata (two aws
#     calls) in the background, while the dump streams.
#  2. Copies the stream into that pipe, counting the bytes: with one dd, whose
#     summary line gives them, where dd prints it (GNU; busybox only when built
#     with that line), else tee into a second pipe that wc -c counts (two
#     processes, every byte written twice).
#  3. At the end of the stream, reads redis-dump's verdict (result/ok or
#     result/error, written before the stream ends). Only a good verdict ends
#     the upload's input, and only then does the CLI complete the object
#     (PutObject, or CompleteMultipartUpload): an object appears under its
#     final name once the whole dump has passed redis-check-rdb and the
#     content checks (check_content, redis-metadata.sh: an empty dump, or one
#     shrunk below spec.contentChecks.shrinkBelowPercent of the newest earlier
#     backup's keys with onShrink fail, is refused), never before.
#     Otherwise the CLI is stopped while its input is still open, so it
#     completes nothing, and the unfinished multipart upload is aborted (best
#     effort; a bucket lifecycle rule AbortIncompleteMultipartUpload is the
#     safety net).
#  4. Once the object is complete, stores the metadata <name without .age>.json
#     (redis-metadata.sh: shard, time, server, role, rdbSize, keyCount, the
#     keys per database, size: the bytes counted, encryption.recipients) with a
#     second CLI started beside the upload, which waits for its input on a
#     pipe until then: its start-up overlaps the dump. A completed upload is
#     the whole stream: the CLI ends its input only at EOF, S3 checks each
#     request's length and checksum and stores a PutObject or a
#     CompleteMultipartUpload whole or not at all; restore drills compare the
#     listed size with the metadata's. After any failure from the completion
#     on, the object and its metadata are deleted (a completion that failed
#     client-side may still have happened server-side).
#  5. Pushes the success metrics (content_push_metrics: with content_keys and
#     content_shrunk, as does a failed run once the content was checked; and,
#     after any run, uncovered_shards when
#     redis-dump counted them: result/uncovered), then applies the retention rules to this
#     shard's objects only (prefix $S3_PREFIX$BACKUP_NAME_PREFIX, exact name
#     pattern; the object just verified must be the newest) via retention.sh,
#     on the listing the content lookup read plus the object just stored (no
#     second listing; if that listing failed, retention lists again).
#
# TERM/INT (the Job's deadline, pod deletion): step.sh's frame stops the
# upload and its helpers while this script still holds the upload's input
# open (so that the CLI cannot complete); then this side deletes the object
# if it may have been completed but its metadata is not stored yet, aborts an
# unfinished multipart upload, pushes the failure metrics and exits 1. This side's end leaves the marker upload.exit (see
# redis-stream.sh). Each S3 call of that path has one attempt, a 5 s
# connect and a 10 s read timeout; the pod's terminationGracePeriodSeconds
# (lib/engines/redis/index.ts) covers them.
#
# Env: BACKUP_SCRATCH_DIR, REDIS_SHARD, REDIS_ENCRYPTED, S3_BUCKET, S3_PREFIX, BACKUP_NAME_PREFIX,
# BACKUP_NAME_SUFFIX, S3_ENDPOINT, S3_FORCE_PATH_STYLE, S3_STORAGE_CLASS,
# S3_SSE, S3_SSE_KMS_KEY_ID, AWS_* (credentials from a Secret, region);
# RETENTION_* (optional, see retention.sh); BACKUP_CONTENT_* (content.sh);
# BACKUP_PUSHGATEWAY_URL and BACKUP_METRICS_* (optional, see push_metrics in
# metrics.sh).

elapsed() {
  case ${started:-} in
    '' | *[!0-9]*) echo 0 ;;
    *) echo $(($(now_epoch) - started)) ;;
  esac
}

# One failed run: failure metrics, one error line, exit 1. A TERM from here
# on changes nothing (the push is bounded: see metrics.sh).
fail() {
  trap '' TERM INT
  content_push_metrics failure "$(elapsed)"
  push_coverage
  die "backup of shard $REDIS_SHARD failed: $*"
}

# The number of masters no CronJob of the policy backs up, as redis-dump
# counted them (result/uncovered), pushed as gauge uncovered_shards.
push_coverage() {
  _pc=$(cat "$result/uncovered" 2>/dev/null) || return 0
  push_gauges uncovered_shards "$_pc" "Masters the Sentinel monitors that no CronJob of the policy backs up."
}

# The last non-empty line of the last aws command's stderr, without the
# "upload failed: <file> to <url>" / "delete failed: <url>" preamble.
reason() {
  _r=$(awk 'NF { line = $0 } END { print line }' "$errf" 2>/dev/null) || _r=
  _r=$(printf '%s\n' "$_r" | sed -e 's|^upload failed: .* to s3://[^ ]* ||' -e 's|^delete failed: s3://[^ ]* ||')
  printf '%s' "${_r:-exit code $1}"
}

# Options of the S3 calls that clean up after a failure: bounded, so that a
# stop within the grace period gets through them.
cleanup_opts='--cli-connect-timeout 5 --cli-read-timeout 10'

# No object may stay under the final name after a failure: deletes it
# (deleting a missing key succeeds; with Object Lock, version by version: a
# delete without a version id would leave the data behind a delete marker)
# and prints a note for the error line.
remove_final_object() {
  _rf_st=0
  for _rf_key in "$meta_key" "$key"; do
    _rf_s=0
    # shellcheck disable=SC2086 # cleanup_opts: several options
    s3_delete "$_rf_key" $cleanup_opts 2>"$errf" || _rf_s=$?
    # shellcheck disable=SC2154 # s3_lock_why: set by s3_delete (s3.sh)
    case $_rf_s in
      0) ;;
      3) _rf_st=3 _rf_why=$s3_lock_why ;;
      *) _rf_st=1; break ;;
    esac
  done
  case $_rf_st in
    0) printf 'no object left under that name' ;;
    3) printf 'an object stays under that name: %s' "$_rf_why" ;;
    *) printf 'deleting that key to be sure failed too (%s): check that no object is left under it' "$(reason 1)" ;;
  esac
}

# Aborts the unfinished multipart uploads of the final key (a stopped CLI
# leaves its parts stored, invisible, until aborted). One warning when that
# is not possible.
abort_multipart() {
  _am_out=$work/multipart
  # shellcheck disable=SC2086 # cleanup_opts: several options
  if ! (s3_aws s3api list-multipart-uploads --bucket "$S3_BUCKET" --prefix "$key" $cleanup_opts \
    --query 'Uploads[].[Key, UploadId]' --output text) >"$_am_out" 2>"$errf"; then
    log warn "could not list the unfinished multipart uploads of $where ($(reason 1)): parts of this upload may stay stored until a lifecycle rule (AbortIncompleteMultipartUpload) removes them"
    return 0
  fi
  _am_ids=$(_AM_KEY=$key awk -F '\t' '$1 == ENVIRON["_AM_KEY"] { print $2 }' "$_am_out")
  for _am_id in $_am_ids; do
    # shellcheck disable=SC2086 # cleanup_opts: several options
    if (s3_aws s3api abort-multipart-upload --bucket "$S3_BUCKET" --key "$key" --upload-id "$_am_id" $cleanup_opts) >/dev/null 2>"$errf"; then
      info "aborted the unfinished multipart upload $_am_id of $where"
    else
      log warn "could not abort the multipart upload $_am_id of $where ($(reason 1))"
    fi
  done
}

# Stops the CLI first (while this script still holds its input open, so that
# it cannot complete), then the helpers, and waits for them.
stop_children() {
  # shellcheck disable=SC2086 # PIDs or nothing
  step_stop $aws_pid $copy_pid $wc_pid $meta_pid ${content_lookup_pid:-}
  aws_pid='' copy_pid='' wc_pid='' meta_pid='' content_lookup_pid=''
}

# redis-dump's reason when it recorded one, else age-encrypt's; else the dump
# ended without a verdict.
dump_failure() {
  if [ -s "$result/error" ]; then
    cat "$result/error"
  elif [ -s "$result/encrypt-error" ]; then
    cat "$result/encrypt-error"
  else
    printf 'the dump container (redis-dump) ended without a result (killed? see its log); no backup taken'
  fi
}

# Reads the header line; sets server and role.
read_header() {
  if ! IFS=' ' read -r server role <&5; then
    fail "$(dump_failure)"
  fi
  printf '%s\n' "$server" | grep -Eqx '[][A-Za-z0-9.:_-]+' || fail "the dump container sent a bad header line (server '$server')"
  case $role in
    replica | master) ;;
    *) fail "the dump container sent a bad header line (role '$role')" ;;
  esac
}

# Starts the CLI on the pipe $work/upload and the metadata's (start_metadata),
# opens that pipe as fd 4 (held until the verdict) and copies the stream (fd
# 5) into it, counting the bytes.
start_upload() {
  mkfifo "$work/upload" "$work/count" "$work/metadata" || fail "cannot create named pipes in $work"
  set -- --only-show-errors --no-progress --metadata \
    "{\"redis-shard\":\"$REDIS_SHARD\",\"redis-server\":\"$server\",\"redis-role\":\"$role\"}"
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  info "uploading the dump of $server ($role) to $where"
  (s3_exec s3 cp "$@" - "$where") <"$work/upload" >/dev/null 2>"$errf" 5<&- &
  aws_pid=$!
  start_metadata
  command exec 4>"$work/upload" || fail "cannot open the upload pipe $work/upload"
  phase=streaming
  if [ "$dd_counts" = true ]; then
    LC_ALL=C dd bs=65536 <&5 >&4 2>"$work/copied" 6>&- &
    copy_pid=$!
  else
    tee "$work/count" <&5 >&4 6>&- &
    copy_pid=$!
    wc -c <"$work/count" >"$work/bytes" 4>&- 6>&- &
    wc_pid=$!
  fi
  exec 5<&-
}

# Whether this image's dd reports the bytes it copied ("<n> bytes ..."; a
# busybox built without its third status line prints only the records).
dd_reports_bytes() {
  LC_ALL=C dd if=/dev/null of=/dev/null 2>&1 | grep -q '^0 bytes'
}

# Ends the upload's input after a good verdict and waits for the CLI.
complete_upload() {
  phase=completing
  exec 4>&-
  _st=0
  wait "$aws_pid" || _st=$?
  aws_pid=
  if [ "$_st" -ne 0 ]; then
    fail "upload to $where failed: $(reason "$_st"); $(remove_final_object)"
  fi
  phase=stored
}

# Stops the upload after a bad verdict: nothing completes. A stream shorter
# than the CLI's multipart threshold (8 MiB unless its config says otherwise)
# is sent with one PutObject at its end, which never came; a longer one has
# parts stored: they are aborted.
cancel_upload() {
  stop_children
  exec 4>&- 6>&-
  if [ "$bytes" -ge 8388608 ]; then abort_multipart; fi
  phase=start
}

# retention_apply for the object just verified, in the environment the pod
# gave: without the config file pinned for this script's own aws calls.
prune_after_backup() {
  if [ -n "${s3_pinned_config:-}" ]; then unset AWS_CONFIG_FILE; fi
  _rt_lister=listing_with_new
  retention_apply "$1"
}

# The shard's objects for retention: the listing the content lookup read
# while the dump streamed, plus the object just stored ($key, $bytes), in
# retention_list's format; without that listing, a new one. Runs of a shard
# never overlap, and a retention-prune CronJob replaces this pruning: an
# object that left since is deleted again (a no-op), none can have come.
listing_with_new() {
  content_listing || { retention_list; return; }
  printf '%s\t%s\n' "$key" "$bytes" | _rt_parse_names name_size "${S3_PREFIX:-}$BACKUP_NAME_PREFIX" "${BACKUP_NAME_SUFFIX:-}"
}

# After a TERM/INT has stopped every process of this side (step.sh): what
# the phase leaves to clean up, with one attempt per S3 call.
upload_stopped() {
  # shellcheck disable=SC2034 # stream_watch_pid: redis-stream.sh's
  stream_watch_pid='' aws_pid='' copy_pid='' wc_pid='' meta_pid='' content_lookup_pid=''
  AWS_MAX_ATTEMPTS=1
  export AWS_MAX_ATTEMPTS
  exec 4>&- 5<&- 6>&-
  case $phase in
    verified) die "stopped by SIG$1 after $where was verified, during retention: the backup is complete, retention did not finish" ;;
    streaming) abort_multipart ;;
    completing | stored)
      if [ "$phase" = completing ]; then abort_multipart; fi
      fail "stopped by SIG$1 (the Job's deadline, or the pod was deleted) before $where was verified; $(remove_final_object)" ;;
  esac
  fail "stopped by SIG$1 (the Job's deadline, or the pod was deleted); no object stored under $where"
}

# On any exit (step.sh): stops what still runs (the CLI first), leaves the
# marker upload.exit. The pinned aws config is in the step's TMPDIR.
undo_upload() {
  stream_unwatch
  stop_children
  stream_leave "$stream" "$BACKUP_SCRATCH_DIR/upload.exit"
}

main() {
  require_env BACKUP_SCRATCH_DIR REDIS_SHARD
  started=$(now_epoch)
  timestamp=$(date -u +%Y-%m-%dT%H:%M:%SZ)
  encrypted=${REDIS_ENCRYPTED:-false}
  # with spec.encryption, age-encrypt writes the stream this side reads
  if [ "$encrypted" = true ]; then stream=$BACKUP_SCRATCH_DIR/stream.age writer=encrypt; else stream=$BACKUP_SCRATCH_DIR/stream writer=dump; fi
  result=$BACKUP_SCRATCH_DIR/result
  phase=start
  aws_pid='' copy_pid='' wc_pid='' meta_pid=''
  stream_init "$stream" || die "cannot create the named pipe $stream"
  step_begin undo_upload redis-upload
  step_on_stop upload_stopped
  work=$TMPDIR
  errf=$work/aws.err
  require_env S3_BUCKET BACKUP_NAME_PREFIX
  require_cmd aws awk dd tee wc cat mkfifo sed grep date mktemp
  dd_counts=false
  if dd_reports_bytes; then dd_counts=true; fi
  key=${S3_PREFIX:-}$BACKUP_NAME_PREFIX$timestamp${BACKUP_NAME_SUFFIX:-}
  meta_key=$key.json
  if [ "$encrypted" = true ]; then key=$key.age; fi
  where="s3://$S3_BUCKET/$key"
  s3_pin_config || die "cannot write the aws config file into ${TMPDIR:-/tmp}"

  stream_watch "$stream" "$BACKUP_SCRATCH_DIR/$writer.exit"
  command exec 5<"$stream" || fail "cannot open the stream $stream"
  stream_unwatch
  read_header
  # without the stream: a reader that ends must break it for redis-dump
  content_lookup_start 5<&-
  start_upload
  _st=0
  wait "$copy_pid" || _st=$?
  copy_pid=
  if [ "$_st" -ne 0 ]; then
    # Usually the CLI failed (and stopped reading) before the end of its
    # input: it completed nothing and aborted its own multipart upload.
    # Otherwise the copy failed: stop the CLI before its input ends.
    copy_st=$_st
    kill "$aws_pid" 2>/dev/null || :
    _st=0
    wait "$aws_pid" || _st=$?
    aws_pid=
    exec 4>&-
    if [ ! -s "$errf" ]; then
      abort_multipart
      fail "copying the stream into the upload to $where failed (copy exit $copy_st); nothing was stored under that name"
    fi
    fail "upload to $where failed: $(reason "$_st"); nothing was stored under that name"
  fi
  if [ "$dd_counts" = true ]; then
    bytes=$(awk '/^[0-9]+ bytes/ { n = $1 } END { print n + 0 }' "$work/copied" 2>/dev/null) || bytes=
  else
    wait "$wc_pid" || :
    wc_pid=
    bytes=$(cat "$work/bytes" 2>/dev/null) || bytes=
  fi
  bytes=$((${bytes:-0}))
  if [ ! -f "$result/ok" ]; then
    cancel_upload
    fail "$(dump_failure)"
  fi
  if [ "$encrypted" = true ] && [ ! -f "$result/encrypt-ok" ]; then
    cancel_upload
    if [ -s "$result/encrypt-error" ]; then fail "$(cat "$result/encrypt-error")"; fi
    fail "the encryption container (age-encrypt) ended without a result (killed? see its log); no backup taken"
  fi
  read -r rdb_bytes <"$result/rdb_bytes" || :
  read -r keys <"$result/keys" || :
  if [ "$bytes" -le 0 ]; then
    cancel_upload
    fail "the stream from the dump container was empty"
  fi
  read_databases
  check_content
  lock_date
  complete_upload
  store_metadata
  lock_objects
  phase=verified
  info "stored $where: $bytes bytes (rdb $rdb_bytes bytes${keys:+, $keys keys}, from $server, $role)"
  content_push_metrics success "$(elapsed)" "$bytes"
  push_coverage
  if retention_configured; then
    # A failure has logged its own error line.
    _st=0
    step_run prune_after_backup "$key" || _st=$?
    [ "$_st" -eq 0 ] || exit "$_st"
  fi
  if [ -n "${BACKUP_COPIES:-}" ]; then copies; fi
  info "backup of shard $REDIS_SHARD complete: $where"
}

main "$@"
