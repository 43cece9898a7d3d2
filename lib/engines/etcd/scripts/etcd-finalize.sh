# shellcheck shell=sh
# needs: etcd-lib.sh
# optional: metrics.sh
# Entry of the `finalize` container: gives the verified temporary snapshot its
# final name, then applies retention, then pushes metrics.
#   name: <BACKUP_NAME_PREFIX><UTC YYYY-MM-DDTHH:MM:SSZ of the run's start><BACKUP_NAME_SUFFIX>
#         (the suffix is _<node>.db), plus <name>.json with the metadata
#   dir:  metadata written under a temporary name, renamed to <name>.json,
#         then the snapshot renamed (same directory: atomic) to <name>; both 0600
#   s3:   <name>.json uploaded, then the snapshot, then its stored size checked
# Retention (retention.sh, scope node or cluster; only with rules) runs only
# after that, and only ever on names of this policy. Before the commit point
# any failure -- or TERM/INT, the Job's deadline -- stops what runs, removes
# what this run wrote (final names included) and pushes a failure; nothing is
# left under a final name. Once the snapshot is stored the run counts as a
# success in the metrics; a retention failure (or TERM) after that still
# fails the Job. After a TERM the cleanup takes at most ~21 s (the S3
# deletions, <= 17 s, and the failure push, <= 20 s, side by side), within
# the pod's default 30 s grace period.
# Env: ETCD_BACKUP_SCRATCH, ETCD_BACKUP_PARTIAL, ETCD_BACKUP_NODE,
# ETCD_BACKUP_ENDPOINT, ETCD_BACKUP_EXTENSION, ETCD_BACKUP_RETENTION_SCOPE,
# BACKUP_DEST_KIND, BACKUP_DIR | S3_*, BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX,
# RETENTION_*, S3_SSE, S3_SSE_KMS_KEY_ID, S3_STORAGE_CLASS,
# BACKUP_PUSHGATEWAY_URL.

state=start

undo_finalize() {
  case $state in finished | stored) return 0 ;; esac
  push_metrics failure "$(($(now_epoch) - ${started:-$(now_epoch)}))" &
  case $state in
    dir-meta) rm -f "$BACKUP_DIR/.$name.json.partial" "$BACKUP_DIR/$name.json" ;;
    dir-snapshot) rm -f "$BACKUP_DIR/$name.json" "$BACKUP_DIR/$name" ;;
    s3-meta | s3-snapshot) remove_uploads "$key.json" "$key" ;;
  esac
  rm -f "$ETCD_BACKUP_PARTIAL"
  wait
}

# Deletes this run's objects side by side, each within ~17 s (3 s to connect,
# 5 s to answer, 2 attempts), warning about any that stays.
remove_uploads() {
  for _ru_key in "$@"; do
    (
      export AWS_MAX_ATTEMPTS=2
      s3_aws --cli-connect-timeout 3 --cli-read-timeout 5 s3api delete-object --bucket "$S3_BUCKET" --key "$_ru_key" >/dev/null 2>&1 ||
        log warn "could not remove s3://$S3_BUCKET/$_ru_key, which this failed run uploaded: remove it by hand"
    ) &
  done
}

# The metadata document of the snapshot being stored.
metadata() {
  printf '{\n'
  printf '  "name": %s,\n' "$(etcd_json_str "$name")"
  printf '  "node": %s,\n' "$(etcd_json_str "$ETCD_BACKUP_NODE")"
  printf '  "time": %s,\n' "$(etcd_json_str "$stamp")"
  printf '  "revision": %s,\n' "$revision"
  printf '  "hash": %s,\n' "$hash"
  printf '  "totalKey": %s,\n' "$total_key"
  if [ -n "$key_count" ]; then printf '  "keyCount": %s,\n' "$key_count"; fi
  printf '  "totalSize": %s,\n' "$total_size"
  printf '  "size": %s,\n' "$size"
  printf '  "sha256": %s,\n' "$(etcd_json_str "$sha256")"
  printf '  "verifiedWith": %s,\n' "$(etcd_json_str "$tool")"
  printf '  "restoreChecked": %s,\n' "$restored"
  printf '  "endpoint": %s,\n' "$(etcd_json_str "${ETCD_BACKUP_ENDPOINT:-}")"
  printf '  "policy": %s\n' "$(etcd_json_str "${BACKUP_POLICY:-}")"
  printf '}\n'
}

store_dir() {
  final=$BACKUP_DIR/$name
  if [ -e "$final" ] || [ -e "$final.json" ]; then
    die "$final already exists: refusing to overwrite a snapshot"
  fi
  etcd_phase "storing $final"
  state=dir-meta
  metadata >"$BACKUP_DIR/.$name.json.partial" || die "cannot write the metadata into $BACKUP_DIR"
  chmod 0600 "$BACKUP_DIR/.$name.json.partial" || die "cannot chmod the metadata in $BACKUP_DIR"
  mv -f "$BACKUP_DIR/.$name.json.partial" "$final.json" || die "cannot rename the metadata to $final.json"
  chmod 0600 "$ETCD_BACKUP_PARTIAL" || die "cannot chmod $ETCD_BACKUP_PARTIAL"
  state=dir-snapshot
  mv "$ETCD_BACKUP_PARTIAL" "$final" || die "cannot rename $ETCD_BACKUP_PARTIAL to $final"
  state=stored
  listed=$name
  where=$final
}

store_s3() {
  require_cmd aws
  key=${S3_PREFIX:-}$name
  set --
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  meta=$TMPDIR/metadata.json
  metadata >"$meta" || die "cannot write $meta"
  err=$TMPDIR/aws.err
  state=s3-meta
  etcd_phase "uploading s3://$S3_BUCKET/$key.json"
  etcd_run s3_aws s3 cp "$meta" "s3://$S3_BUCKET/$key.json" --only-show-errors --content-type application/json "$@" 2>"$err" >&2 ||
    die "uploading s3://$S3_BUCKET/$key.json failed: $(etcd_last_line "$err")"
  state=s3-snapshot
  etcd_phase "uploading s3://$S3_BUCKET/$key"
  etcd_run s3_aws s3 cp "$ETCD_BACKUP_PARTIAL" "s3://$S3_BUCKET/$key" --only-show-errors "$@" 2>"$err" >&2 ||
    die "uploading s3://$S3_BUCKET/$key failed: $(etcd_last_line "$err")"
  etcd_phase "checking the size of s3://$S3_BUCKET/$key"
  etcd_run s3_aws s3api head-object --bucket "$S3_BUCKET" --key "$key" --query ContentLength --output text >"$TMPDIR/stored" 2>"$err" ||
    die "cannot read back the size of s3://$S3_BUCKET/$key: $(etcd_last_line "$err")"
  stored=$(cat "$TMPDIR/stored")
  [ "$stored" = "$size" ] || die "s3://$S3_BUCKET/$key holds $stored bytes, the snapshot has $size: upload removed"
  state=stored
  rm -f "$ETCD_BACKUP_PARTIAL"
  listed=$key
  where=s3://$S3_BUCKET/$key
}

main() {
  require_env ETCD_BACKUP_SCRATCH ETCD_BACKUP_PARTIAL ETCD_BACKUP_NODE ETCD_BACKUP_EXTENSION BACKUP_DEST_KIND BACKUP_NAME_PREFIX BACKUP_NAME_SUFFIX
  require_cmd date stat sed awk chmod mv rm cat mktemp
  etcd_step_start undo_finalize
  umask 077
  started=$(etcd_scratch_value started)
  etcd_require_int "the run's start time" "$started"
  size=$(etcd_scratch_value verified-size)
  sha256=$(etcd_scratch_value verified-sha256)
  tool=$(etcd_scratch_value verified-tool)
  restored=$(etcd_scratch_value verified-restore)
  key_count=$(etcd_scratch_value verified-key-count)
  status=$(etcd_scratch_value status.json)
  revision=$(printf '%s\n' "$status" | etcd_json_num revision)
  hash=$(printf '%s\n' "$status" | etcd_json_num hash)
  total_key=$(printf '%s\n' "$status" | etcd_json_num totalKey)
  total_size=$(printf '%s\n' "$status" | etcd_json_num totalSize)
  for v in "$size" "$revision" "$hash" "$total_key" "$total_size" ${key_count:+"$key_count"}; do etcd_require_int "a verified snapshot fact" "$v"; done
  case $restored in true | false) ;; *) die "unexpected verify result '$restored'" ;; esac

  [ -f "$ETCD_BACKUP_PARTIAL" ] || die "the verified snapshot $ETCD_BACKUP_PARTIAL is gone"
  now_size=$(etcd_file_size "$ETCD_BACKUP_PARTIAL") || die "cannot read the size of $ETCD_BACKUP_PARTIAL"
  [ "$now_size" = "$size" ] || die "$ETCD_BACKUP_PARTIAL has $now_size bytes, $size were verified: refusing to store it"

  stamp=$(date -u -d "@$started" +%Y-%m-%dT%H:%M:%SZ) || die "cannot format the time $started"
  name=$BACKUP_NAME_PREFIX$stamp$BACKUP_NAME_SUFFIX
  case $BACKUP_DEST_KIND in
    dir) store_dir ;;
    s3) store_s3 ;;
    *) die "BACKUP_DEST_KIND must be dir or s3, got '$BACKUP_DEST_KIND'" ;;
  esac
  info "stored snapshot $where: revision $revision, $total_key keys, $size bytes, node $ETCD_BACKUP_NODE"
  etcd_phase "pushing the metrics (the snapshot $where is stored)"
  etcd_run push_metrics success "$(($(now_epoch) - started))" "$size"

  if retention_configured; then
    etcd_phase "applying retention (the snapshot $where is stored)"
    # etcd_prune logs its own error line
    etcd_run etcd_prune "$listed" || exit 1
  fi
  state=finished
  info "etcd backup finished: $where"
}

main "$@"
