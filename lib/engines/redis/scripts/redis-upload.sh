# shellcheck shell=sh
# needs: s3.sh
# optional: retention.sh metrics.sh
# Upload step of a Redis shard backup: the main container, in an aws CLI
# image, after the redis-dump init container (redis-dump.sh).
#
#  1. Reads the dump step's result from $BACKUP_SCRATCH_DIR/result/. A
#     recorded failure: push the failure metrics, exit 1 with the reason.
#  2. Uploads $BACKUP_SCRATCH_DIR/redis-dump.rdb.gz to
#     s3://$S3_BUCKET/$S3_PREFIX$BACKUP_NAME_PREFIX<UTC RFC3339 start>$BACKUP_NAME_SUFFIX
#     (redis-backup_<shard>_<time>.rdb.gz) with one `aws s3 cp`. S3 makes an
#     object visible only once all of it is stored (PutObject, or
#     CompleteMultipartUpload, which the CLI never sends after a failed part),
#     so a failed upload leaves nothing under the final name.
#  3. Verifies the stored size (head-object ContentLength) against the local
#     file. After any failure from the upload on, the object under the final
#     name is deleted (an upload that failed client-side may still have
#     completed server-side), so nothing unverified stays there.
#  4. Pushes the success metrics, then applies the retention rules to this
#     shard's objects only (prefix $S3_PREFIX$BACKUP_NAME_PREFIX, exact name
#     pattern; the object just verified must be the newest) via retention.sh.
#  5. Removes the scratch files, whatever happened.
#
# Env: BACKUP_SCRATCH_DIR, REDIS_SHARD, S3_BUCKET, S3_PREFIX, BACKUP_NAME_PREFIX,
# BACKUP_NAME_SUFFIX, S3_ENDPOINT, S3_FORCE_PATH_STYLE, S3_STORAGE_CLASS,
# S3_SSE, S3_SSE_KMS_KEY_ID, AWS_* (credentials from a Secret, region);
# RETENTION_* (optional, see retention.sh); BACKUP_PUSHGATEWAY_URL and
# BACKUP_METRICS_* (optional, see push_metrics in common.sh).

elapsed() {
  case ${started:-} in
    '' | *[!0-9]*) echo 0 ;;
    *) echo $(($(now_epoch) - started)) ;;
  esac
}

# One failed run: failure metrics, one error line, exit 1.
fail() {
  push_metrics failure "$(elapsed)"
  die "backup of shard $REDIS_SHARD failed: $*"
}

# The last non-empty line of the last aws command's stderr, without the
# "upload failed: <file> to <url>" / "delete failed: <url>" preamble.
reason() {
  _r=$(awk 'NF { line = $0 } END { print line }' "$errf" 2>/dev/null) || _r=
  _r=$(printf '%s\n' "$_r" | sed -e 's|^upload failed: .* to s3://[^ ]* ||' -e 's|^delete failed: s3://[^ ]* ||')
  printf '%s' "${_r:-exit code $1}"
}

# No object may stay under the final name after a failure: deletes it
# (deleting a missing key succeeds) and prints a note for the error line.
remove_final_object() {
  if s3_aws s3api delete-object --bucket "$S3_BUCKET" --key "$key" >/dev/null 2>"$errf"; then
    printf 'no object left under that name'
  else
    printf 'deleting that key to be sure failed too (%s): check that no object is left under it' "$(reason 1)"
  fi
}

cleanup() {
  rm -rf "$result" "$BACKUP_SCRATCH_DIR/redis-dump.rdb" "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz" \
    "$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz.partial" "$errf"
}

main() {
  require_env BACKUP_SCRATCH_DIR REDIS_SHARD
  result=$BACKUP_SCRATCH_DIR/result
  errf=$BACKUP_SCRATCH_DIR/redis-upload.err
  started=$(cat "$result/started" 2>/dev/null) || started=
  trap cleanup EXIT
  if [ -s "$result/error" ]; then
    fail "$(cat "$result/error")"
  fi
  [ -f "$result/ok" ] || fail "the dump step left no result in $BACKUP_SCRATCH_DIR (did the redis-dump init container run with the same scratch volume?)"
  require_env S3_BUCKET BACKUP_NAME_PREFIX
  require_cmd aws awk wc cat

  timestamp=$(cat "$result/timestamp")
  case $timestamp in
    [0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]T[0-2][0-9]:[0-5][0-9]:[0-5][0-9]Z) ;;
    *) fail "the dump step recorded a bad start time '$timestamp'" ;;
  esac
  server=$(cat "$result/server")
  role=$(cat "$result/role")
  rdb_bytes=$(cat "$result/rdb_bytes")
  file=$BACKUP_SCRATCH_DIR/redis-dump.rdb.gz
  [ -s "$file" ] || fail "the compressed dump $file is missing or empty"
  size=$(($(wc -c <"$file")))
  [ "$size" = "$(cat "$result/gz_bytes")" ] || fail "the compressed dump changed size since the dump step ($size bytes now, $(cat "$result/gz_bytes") then)"
  key=${S3_PREFIX:-}$BACKUP_NAME_PREFIX$timestamp${BACKUP_NAME_SUFFIX:-}
  where="s3://$S3_BUCKET/$key"

  set -- --only-show-errors --no-progress --metadata \
    "{\"redis-shard\":\"$REDIS_SHARD\",\"redis-server\":\"$server\",\"redis-role\":\"$role\",\"rdb-bytes\":\"$rdb_bytes\"}"
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  info "uploading $size bytes (dump of $server, $role) to $where"
  _st=0
  s3_aws s3 cp "$@" "$file" "$where" >/dev/null 2>"$errf" || _st=$?
  if [ "$_st" -ne 0 ]; then
    _why=$(reason "$_st")
    fail "upload to $where failed: $_why; $(remove_final_object)"
  fi
  _st=0
  stored=$(s3_aws s3api head-object --bucket "$S3_BUCKET" --key "$key" --query ContentLength --output text 2>"$errf") || _st=$?
  if [ "$_st" -ne 0 ]; then
    _why=$(reason "$_st")
    fail "cannot read back the size of $where: $_why; $(remove_final_object)"
  fi
  if [ "$stored" != "$size" ]; then
    fail "$where holds $stored bytes, the local dump $size; $(remove_final_object)"
  fi
  info "verified $where: $size bytes stored (rdb $rdb_bytes bytes, from $server, $role)"
  push_metrics success "$(elapsed)" "$size"
  if retention_configured; then
    retention_apply "$key"
  fi
  info "backup of shard $REDIS_SHARD complete: $where"
}

main "$@"
