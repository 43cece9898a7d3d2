# shellcheck shell=sh
# shellcheck disable=SC2034,SC2154 # globals shared with redis-upload.sh, which sets or reads them
# needs: content.sh
# What the upload side of a Redis shard backup (redis-upload.sh) records and
# checks about the dump's content: the metadata sidecar <name without .age>.json
# and the content checks (spec.contentChecks, content.sh) at the verdict.
#
# The metadata: name, shard, time, server, role, rdbSize, keyCount (the keys
# redis-check-rdb read in the dump itself; none with verifyRdb false),
# databases (the server's own keys per database, {"<db>": <keys>, ...}, from
# its INFO keyspace just before the dump: redis-dump's result/databases; {}
# for a server without keys; absent when that call failed), size (the bytes
# counted), encryption.recipients (the fingerprints age-encrypt recorded),
# policy.
# Reads: key, timestamp, server, role, rdb_bytes, keys, bytes, encrypted,
# result, work, errf, meta_key; sets databases_json, keyspace_total.

# A JSON string of $1 (backslashes and quotes escaped: sed only for those).
json_str() {
  case $1 in
    *[\\\"]*) printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')" ;;
    *) printf '"%s"' "$1" ;;
  esac
}

# The backup's metadata (see the header): what the restore drill compares with
# (keyCount), the content checks of later runs read (keyCount, else the sum of
# databases) and, encrypted, the recipients' fingerprints.
metadata() {
  printf '{\n  "name": '
  json_str "${key##*/}"
  printf ',\n  "shard": '
  json_str "$REDIS_SHARD"
  printf ',\n  "time": '
  json_str "$timestamp"
  printf ',\n  "server": '
  json_str "$server"
  printf ',\n  "role": '
  json_str "$role"
  printf ',\n  "rdbSize": %s' "$rdb_bytes"
  if [ -n "$keys" ]; then printf ',\n  "keyCount": %s' "$keys"; fi
  if [ -n "$databases_json" ]; then printf ',\n  "databases": %s' "$databases_json"; fi
  printf ',\n  "size": %s' "$bytes"
  if [ "$encrypted" = true ]; then printf ',\n  "encryption": {"tool": "age", "recipients": %s}' "$(cat "$result/age_fingerprints")"; fi
  if [ -n "${lock_until:-}" ]; then
    printf ',\n  "objectLock": {"mode": '
    json_str "$S3_OBJECT_LOCK_MODE"
    printf ', "retainUntil": '
    json_str "$lock_until"
    printf '}'
  fi
  printf ',\n  "policy": '
  json_str "${BACKUP_POLICY:-}"
  printf '\n}\n'
}

# Starts the CLI that stores the metadata as <name without .age>.json
# (meta_pid), reading it from the pipe $work/metadata, which this script opens
# as fd 6 and holds: the CLI starts up beside the upload and sends nothing
# before store_metadata writes the metadata and ends its input. Stopped while
# fd 6 is open (any failure before), it stores nothing. Retention deletes the
# metadata with the backup.
start_metadata() {
  set -- --only-show-errors --no-progress --content-type application/json
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  (s3_exec s3 cp "$@" - "s3://$S3_BUCKET/$meta_key") <"$work/metadata" >/dev/null 2>"$work/metadata.err" 5<&- &
  meta_pid=$!
  command exec 6>"$work/metadata" || fail "cannot open the metadata pipe $work/metadata"
}

# Stores the metadata once the object is complete; fails the run (and deletes
# the backup) if that fails.
store_metadata() {
  trap '' PIPE
  _st=0
  metadata >&6 || _st=$?
  trap - PIPE
  exec 6>&-
  wait "$meta_pid" || _st=$?
  meta_pid=
  [ "$_st" -eq 0 ] || { cp "$work/metadata.err" "$errf" 2>/dev/null || :; fail "cannot store the metadata s3://$S3_BUCKET/$meta_key: $(reason "$_st"); $(remove_final_object)"; }
}

# The keys per database redis-dump recorded (result/databases, "<db> <keys>"
# lines) as the JSON object databases_json, and their sum keyspace_total;
# both empty when there is no such file or a line is not two numbers.
read_databases() {
  databases_json='' keyspace_total=''
  [ -f "$result/databases" ] || return 0
  _rd=$(LC_ALL=C awk '
    NF == 0 { next }
    NF != 2 || $1 !~ /^[0-9]+$/ || $2 !~ /^[0-9]+$/ { bad = 1; exit }
    { json = json sep "\"" $1 "\": " $2; sep = ", "; sum += $2 }
    END { if (!bad) printf "%.0f {%s}\n", sum, json }' "$result/databases") || _rd=
  [ -n "$_rd" ] || { log warn "unexpected content in $result/databases: the metadata records no keys per database"; return 0; }
  keyspace_total=${_rd%% *} databases_json=${_rd#* }
}

# The content checks at the verdict, before the upload may complete: on the
# dump's key count, or without one (verifyRdb false) on the server's INFO
# keyspace just before the dump; with neither (that INFO call failed), a dump
# whose content cannot be checked, which content_verdict never passes as
# checked (onShrink fail: refused). A refusal cancels the upload (nothing
# completes) and fails the run with content_verdict's line.
check_content() {
  _ck_keys=$keys _ck_what="the dump of $server"
  if [ -z "$_ck_keys" ] && [ -n "$keyspace_total" ]; then
    _ck_keys=$keyspace_total _ck_what="$server (INFO keyspace just before the dump, not read by redis-check-rdb: verifyRdb false)"
  fi
  if ! content_verdict "$_ck_keys" "$_ck_what" "neither redis-check-rdb (verifyRdb) nor the server's INFO keyspace just before the dump counted its keys: see the redis-dump log"; then
    cancel_upload
    fail "$CONTENT_REFUSAL"
  fi
}

# With S3_OBJECT_LOCK_MODE, sets lock_until: the time in the backup's name
# plus S3_OBJECT_LOCK_SECONDS (what retention reads off the name).
lock_date() {
  lock_until=''
  [ -n "${S3_OBJECT_LOCK_MODE:-}" ] || return 0
  if ! _ld_epoch=$(name_epoch) || ! lock_until=$(s3_lock_until "$_ld_epoch"); then
    fail "cannot compute the Object Lock's retain-until date from $timestamp"
  fi
}

# With S3_OBJECT_LOCK_MODE, locks the stored metadata and backup until
# lock_until (PutObjectRetention: `aws s3 cp` has no Object Lock options);
# a refusal fails the run and removes both (remove_final_object: with
# Object Lock, version by version).
lock_objects() {
  [ -n "${lock_until:-}" ] || return 0
  for _lo_key in "$meta_key" "$key"; do
    s3_lock_object "$_lo_key" "$lock_until" >/dev/null 2>"$errf" ||
      fail "cannot lock s3://$S3_BUCKET/$_lo_key (s3.objectLock; the bucket must have Object Lock enabled): $(reason 1); $(remove_final_object)"
  done
}

# The time in the backup's name (timestamp), in epoch seconds.
name_epoch() {
  date -u -d "$(printf '%s' "$timestamp" | sed 's/T/ /; s/Z$//')" +%s
}

# The further copies (copy.sh) of what this run stored: the metadata, then the
# backup, streamed from this destination (no copy of the dump in the pod), with
# the environment the pod gave (no aws config pinned for this script's calls).
copies() {
  _cp_list=$work/copy-objects
  if ! {
    printf 's3://%s/%s\t%s\n' "$S3_BUCKET" "$meta_key" "${meta_key#"${S3_PREFIX:-}"}"
    printf 's3://%s/%s\t%s\n' "$S3_BUCKET" "$key" "${key#"${S3_PREFIX:-}"}"
  } >"$_cp_list" || ! _cp_epoch=$(name_epoch); then
    log warn "cannot list the objects to copy in $work: no copy made"
    return 0
  fi
  (
    if [ -n "${s3_pinned_config:-}" ]; then unset AWS_CONFIG_FILE; fi
    copy_backup "$_cp_list" "$_cp_epoch"
  )
}
