# shellcheck shell=sh
# needs: etcd-lib.sh content.sh etcd-alarm-gauges.sh
# optional: metrics.sh copy.sh
# Entry of the `finalize` container: gives the verified temporary snapshot its
# final name, then applies retention, then pushes metrics.
#   name: <BACKUP_NAME_PREFIX><UTC YYYY-MM-DDTHH:MM:SSZ of the run's start><BACKUP_NAME_SUFFIX>
#         (the suffix is _<node>.db), plus <name>.json with the metadata, and
#         with ETCD_BACKUP_FILES the control-plane files archive
#         <name><ETCD_BACKUP_FILES_SUFFIX>. Encrypted (ETCD_BACKUP_AGE_PARTIAL set,
#         the encrypt step's ciphertexts): the snapshot and the archive are
#         stored as <name>.age and <name><ETCD_BACKUP_FILES_SUFFIX>.age; the
#         metadata stays <name>.json (clear: it holds no data of etcd's keys).
#   dir:  metadata written under a temporary name, renamed to <name>.json,
#         then the archive, then the snapshot renamed (same directory: atomic)
#         to its final name, all 0600; each stored file is then checked: its
#         size, and when encrypted, age's header line
#   s3:   <name>.json uploaded, then the archive, then the snapshot, each
#         stored size checked against the bytes verified (or counted by the
#         encrypt step)
# Retention (retention.sh, scope node or cluster; only with rules) runs only
# after that, and only ever on names of this policy; it deletes the sidecars
# (.json, the archive) with their snapshot. Before the commit point any
# failure -- or TERM/INT, the Job's deadline -- stops what runs, removes
# what this run wrote (final names included) and pushes a failure; nothing is
# left under a final name. Once the snapshot is stored the run counts as a
# success in the metrics; a retention failure (or TERM) after that still
# fails the Job. After a TERM the cleanup takes at most ~21 s (the S3
# deletions, <= 17 s, and the failure push, <= 20 s, side by side), within
# the pod's default 30 s grace period.
# Env: ETCD_BACKUP_SCRATCH, ETCD_BACKUP_PARTIAL, ETCD_BACKUP_AGE_PARTIAL,
# ETCD_BACKUP_FILES, ETCD_BACKUP_FILES_SUFFIX, ETCD_BACKUP_FILES_PARTIAL,
# ETCD_BACKUP_FILES_AGE_PARTIAL, ETCD_BACKUP_NODE, ETCD_BACKUP_ENDPOINT,
# ETCD_BACKUP_EXTENSION, ETCD_BACKUP_RETENTION_SCOPE, BACKUP_DEST_KIND,
# BACKUP_DIR | S3_*, BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX, RETENTION_*,
# S3_SSE, S3_SSE_KMS_KEY_ID, S3_STORAGE_CLASS, BACKUP_PUSHGATEWAY_URL.

state=start
AGE_HEADER=age-encryption.org/v1

# push_metrics with the gauges <prefix>_source_alarm{alarm="<TYPE>"}: 1 for
# each alarm the snapshot step saw raised, 0 for the other types of
# ETCD_BACKUP_ALARM_TYPES (none when that step did not reach the member); and
# once the content was checked, <prefix>_content_keys and _content_shrunk
# (content_push_metrics, content.sh).
#   push_run_metrics success|failure DURATION_SECONDS [SIZE_BYTES]
push_run_metrics() {
  _prm_result=$1 _prm_duration=$2 _prm_size=${3:-}
  etcd_with_alarms "$ETCD_BACKUP_SCRATCH/alarms" content_push_metrics "$_prm_result" "$_prm_duration" "$_prm_size"
}

undo_finalize() {
  case $state in finished | stored) return 0 ;; esac
  push_run_metrics failure "$(($(now_epoch) - ${started:-$(now_epoch)}))" &
  case $state in
    dir-meta) rm -f "$BACKUP_DIR/.$name.json.partial" "$BACKUP_DIR/$name.json" ;;
    dir-files) rm -f "$BACKUP_DIR/$name.json" "$BACKUP_DIR/$files_name" ;;
    dir-snapshot) rm -f "$BACKUP_DIR/$name.json" ${files_name:+"$BACKUP_DIR/$files_name"} "$BACKUP_DIR/$stored_name" ;;
    s3-*) remove_uploads "$key.json" ${files_name:+"${S3_PREFIX:-}$files_name"} "${S3_PREFIX:-}$stored_name" ;;
  esac
  rm -f "${src:-$ETCD_BACKUP_PARTIAL}" ${files_src:+"$files_src"}
  wait
}

# Deletes this run's objects side by side (s3_delete: with Object Lock, version
# by version), each call within ~17 s (3 s to connect, 5 s to answer, 2
# attempts), warning about any that stays.
remove_uploads() {
  for _ru_key in "$@"; do
    (
      export AWS_MAX_ATTEMPTS=2
      s3_delete "$_ru_key" --cli-connect-timeout 3 --cli-read-timeout 5 >/dev/null 2>&1 ||
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
  if [ -n "$key_count" ]; then printf '  "keyCount": %s,\n  "keyCountRevision": %s,\n' "$key_count" "$key_count_revision"; fi
  printf '  "totalSize": %s,\n' "$total_size"
  printf '  "size": %s,\n' "$size"
  printf '  "sha256": %s,\n' "$(etcd_json_str "$sha256")"
  if [ "$encrypted" = true ]; then
    printf '  "encryption": {"tool": "age", "recipients": %s},\n' "$fingerprints"
    printf '  "encryptedSize": %s,\n' "$src_size"
    printf '  "encryptedSha256": %s,\n' "$(etcd_json_str "$src_sha256")"
  fi
  if [ -n "$files_src" ]; then
    printf '  "controlPlaneFiles": {"name": %s, "paths": %s, "entries": %s, "size": %s, "sha256": %s' \
      "$(etcd_json_str "$files_name")" "$(files_paths_json)" "$files_entries" "$files_size" "$(etcd_json_str "$files_sha256")"
    if [ "$encrypted" = true ]; then
      printf ', "encryptedSize": %s, "encryptedSha256": %s' "$files_src_size" "$(etcd_json_str "$files_src_sha256")"
    fi
    printf '},\n'
  fi
  if [ -n "${lock_until:-}" ]; then
    printf '  "objectLock": {"mode": %s, "retainUntil": %s},\n' "$(etcd_json_str "$S3_OBJECT_LOCK_MODE")" "$(etcd_json_str "$lock_until")"
  fi
  printf '  "verifiedWith": %s,\n' "$(etcd_json_str "$tool")"
  printf '  "restoreChecked": %s,\n' "$restored"
  printf '  "endpoint": %s,\n' "$(etcd_json_str "${ETCD_BACKUP_ENDPOINT:-}")"
  printf '  "policy": %s\n' "$(etcd_json_str "${BACKUP_POLICY:-}")"
  printf '}\n'
}

# The host paths of ETCD_BACKUP_FILES ("<host path> <mount path>" lines) as a JSON array.
files_paths_json() {
  _fp_sep='' _fp_out=''
  for _fp_host in $(printf '%s\n' "$ETCD_BACKUP_FILES" | awk 'NF { print $1 }'); do
    _fp_out="$_fp_out$_fp_sep$(etcd_json_str "$_fp_host")" _fp_sep=', '
  done
  printf '[%s]' "$_fp_out"
}

# stored_check FILE SIZE: FILE holds SIZE bytes (and, encrypted, starts with age's header line).
stored_check() {
  _sc_size=$(etcd_file_size "$1") || die "cannot read the size of $1"
  [ "$_sc_size" = "$2" ] || die "$1 holds $_sc_size bytes, $2 were to be stored: removed"
  if [ "$encrypted" = true ]; then
    _sc_head=$(head -n 1 "$1") || die "cannot read $1"
    [ "$_sc_head" = "$AGE_HEADER" ] || die "$1 does not start with age's header line ($AGE_HEADER): removed"
  fi
}

store_dir() {
  final=$BACKUP_DIR/$stored_name
  for _sd_f in "$final" "$BACKUP_DIR/$name.json" ${files_name:+"$BACKUP_DIR/$files_name"}; do
    [ ! -e "$_sd_f" ] || die "$_sd_f already exists: refusing to overwrite a snapshot"
  done
  step_phase "storing $final"
  state=dir-meta
  metadata >"$BACKUP_DIR/.$name.json.partial" || die "cannot write the metadata into $BACKUP_DIR"
  chmod 0600 "$BACKUP_DIR/.$name.json.partial" || die "cannot chmod the metadata in $BACKUP_DIR"
  mv -f "$BACKUP_DIR/.$name.json.partial" "$BACKUP_DIR/$name.json" || die "cannot rename the metadata to $BACKUP_DIR/$name.json"
  if [ -n "$files_src" ]; then
    chmod 0600 "$files_src" || die "cannot chmod $files_src"
    state=dir-files
    mv "$files_src" "$BACKUP_DIR/$files_name" || die "cannot rename $files_src to $BACKUP_DIR/$files_name"
    stored_check "$BACKUP_DIR/$files_name" "$files_src_size"
  fi
  chmod 0600 "$src" || die "cannot chmod $src"
  state=dir-snapshot
  mv "$src" "$final" || die "cannot rename $src to $final"
  stored_check "$final" "$src_size"
  state=stored
  copy_src=$final copy_files_src=${files_name:+$BACKUP_DIR/$files_name} copy_meta=$BACKUP_DIR/$name.json
  listed=$stored_name
  where=$final
}

# upload FILE KEY SIZE WHAT [aws s3 cp options...]: the upload, then (unless
# SIZE is empty) the stored object's size must be SIZE.
upload() {
  _up_file=$1 _up_key=$2 _up_size=$3 _up_what=$4
  shift 4
  step_phase "uploading s3://$S3_BUCKET/$_up_key"
  step_run s3_aws s3 cp "$_up_file" "s3://$S3_BUCKET/$_up_key" --only-show-errors "$@" 2>"$err" >&2 ||
    die "uploading s3://$S3_BUCKET/$_up_key failed: $(etcd_last_line "$err")"
  [ -n "$_up_size" ] || return 0
  step_phase "checking the size of s3://$S3_BUCKET/$_up_key"
  step_run s3_aws s3api head-object --bucket "$S3_BUCKET" --key "$_up_key" --query ContentLength --output text >"$TMPDIR/stored" 2>"$err" ||
    die "cannot read back the size of s3://$S3_BUCKET/$_up_key: $(etcd_last_line "$err")"
  _up_stored=$(cat "$TMPDIR/stored")
  [ "$_up_stored" = "$_up_size" ] || die "s3://$S3_BUCKET/$_up_key holds $_up_stored bytes, the $_up_what has $_up_size: upload removed"
}

store_s3() {
  require_cmd aws
  key=${S3_PREFIX:-}$name
  lock_until=''
  if [ -n "${S3_OBJECT_LOCK_MODE:-}" ]; then lock_until=$(s3_lock_until "$started") || die "cannot compute the Object Lock's retain-until date"; fi
  set --
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  meta=$TMPDIR/metadata.json
  metadata >"$meta" || die "cannot write $meta"
  err=$TMPDIR/aws.err
  state=s3-meta
  upload "$meta" "$key.json" '' metadata --content-type application/json "$@"
  if [ -n "$files_src" ]; then
    state=s3-files
    upload "$files_src" "${S3_PREFIX:-}$files_name" "$files_src_size" "control-plane files archive" "$@"
  fi
  state=s3-snapshot
  upload "$src" "${S3_PREFIX:-}$stored_name" "$src_size" snapshot "$@"
  if [ -n "$lock_until" ]; then
    # once every object is stored and checked: a failed run removes what it uploaded
    for _ss_key in "$key.json" ${files_name:+"${S3_PREFIX:-}$files_name"} "${S3_PREFIX:-}$stored_name"; do
      step_phase "locking s3://$S3_BUCKET/$_ss_key until $lock_until"
      step_run s3_lock_object "$_ss_key" "$lock_until" 2>"$err" >&2 ||
        die "cannot lock s3://$S3_BUCKET/$_ss_key (spec...s3.objectLock; the bucket must have Object Lock enabled): $(etcd_last_line "$err")"
    done
  fi
  state=stored
  copy_src=$src copy_files_src=$files_src copy_meta=$meta
  listed=${S3_PREFIX:-}$stored_name
  where=s3://$S3_BUCKET/$listed
}

# What this run stores, from the earlier steps: src (the snapshot's temporary
# file) with src_size (and when encrypted src_sha256, fingerprints), and with
# ETCD_BACKUP_FILES files_src (the archive's) with its facts. Each must still
# hold the bytes verified (or counted by the encrypt step).
artifacts() {
  files_src='' src_size='' src_sha256='' fingerprints='' files_entries='' files_size='' files_sha256='' files_src_size='' files_src_sha256=''
  if [ -n "${ETCD_BACKUP_AGE_PARTIAL:-}" ]; then
    encrypted=true src=$ETCD_BACKUP_AGE_PARTIAL
    etcd_scratch_read src_size encrypted-size
    etcd_scratch_read src_sha256 encrypted-sha256
    etcd_scratch_read fingerprints age-recipients
  else
    encrypted=false src=$ETCD_BACKUP_PARTIAL src_size=$size
  fi
  if [ -n "${ETCD_BACKUP_FILES:-}" ]; then
    require_env ETCD_BACKUP_FILES_SUFFIX ETCD_BACKUP_FILES_PARTIAL
    etcd_scratch_read files_entries files-entries
    etcd_scratch_read files_size files-size
    etcd_scratch_read files_sha256 files-sha256
    if [ "$encrypted" = true ]; then
      require_env ETCD_BACKUP_FILES_AGE_PARTIAL
      files_src=$ETCD_BACKUP_FILES_AGE_PARTIAL
      etcd_scratch_read files_src_size files-encrypted-size
      etcd_scratch_read files_src_sha256 files-encrypted-sha256
    else
      files_src=$ETCD_BACKUP_FILES_PARTIAL files_src_size=$files_size
    fi
    for v in "$files_entries" "$files_size" "$files_src_size"; do etcd_require_int "a verified control-plane files fact" "$v"; done
  fi
  for _ar_f in "$src" ${files_src:+"$files_src"}; do
    [ -f "$_ar_f" ] || die "the verified $_ar_f is gone"
    _ar_want=$src_size
    if [ "$_ar_f" != "$src" ]; then _ar_want=$files_src_size; fi
    _ar_size=$(etcd_file_size "$_ar_f") || die "cannot read the size of $_ar_f"
    [ "$_ar_size" = "$_ar_want" ] || die "$_ar_f has $_ar_size bytes, $_ar_want were verified: refusing to store it"
  done
}

# The further copies (copy.sh) of what this run stored: metadata, archive, snapshot.
copies() {
  _cp_list=$TMPDIR/copy-objects
  {
    printf '%s\t%s\n' "$copy_meta" "$name.json"
    if [ -n "$copy_files_src" ]; then printf '%s\t%s\n' "$copy_files_src" "$files_name"; fi
    printf '%s\t%s\n' "$copy_src" "$stored_name"
  } >"$_cp_list" || { log warn "cannot list the objects to copy in $TMPDIR: no copy made"; return 0; }
  copy_backup "$_cp_list" "$started"
}

main() {
  require_env ETCD_BACKUP_SCRATCH ETCD_BACKUP_PARTIAL ETCD_BACKUP_NODE ETCD_BACKUP_EXTENSION BACKUP_DEST_KIND BACKUP_NAME_PREFIX BACKUP_NAME_SUFFIX
  require_cmd date stat sed awk chmod mv rm cat mktemp head
  etcd_step_start undo_finalize
  umask 077
  started='' size='' sha256='' tool='' restored='' key_count='' key_count_revision='' key_count_error='' status=''
  etcd_scratch_read started started
  etcd_require_int "the run's start time" "$started"
  etcd_scratch_read size verified-size
  etcd_scratch_read sha256 verified-sha256
  etcd_scratch_read tool verified-tool
  etcd_scratch_read restored verified-restore
  etcd_scratch_read key_count verified-key-count
  etcd_scratch_read key_count_revision verified-key-count-revision
  etcd_scratch_read key_count_error verified-key-count-error
  etcd_scratch_read status status.json
  etcd_json_get "$status" revision
  revision=$ETCD_JSON_VALUE
  etcd_json_get "$status" hash
  hash=$ETCD_JSON_VALUE
  etcd_json_get "$status" totalKey
  total_key=$ETCD_JSON_VALUE
  etcd_json_get "$status" totalSize
  total_size=$ETCD_JSON_VALUE
  [ -z "$key_count" ] || [ -n "$key_count_revision" ] || die "the snapshot step recorded a key count without its revision"
  for v in "$size" "$revision" "$hash" "$total_key" "$total_size" ${key_count:+"$key_count" "$key_count_revision"}; do etcd_require_int "a verified snapshot fact" "$v"; done
  case $restored in true | false) ;; *) die "unexpected verify result '$restored'" ;; esac

  artifacts
  step_phase "checking the snapshot's content against the newest earlier backup"
  content_check "$key_count" "the snapshot at revision ${key_count_revision:-$revision}" "$key_count_error"

  stamp=$(date -u -d "@$started" +%Y-%m-%dT%H:%M:%SZ) || die "cannot format the time $started"
  name=$BACKUP_NAME_PREFIX$stamp$BACKUP_NAME_SUFFIX
  suffix=''
  if [ "$encrypted" = true ]; then suffix=.age; fi
  stored_name=$name$suffix
  files_name=''
  if [ -n "$files_src" ]; then files_name=$name$ETCD_BACKUP_FILES_SUFFIX$suffix; fi
  case $BACKUP_DEST_KIND in
    dir) store_dir ;;
    s3) store_s3 ;;
    *) die "BACKUP_DEST_KIND must be dir or s3, got '$BACKUP_DEST_KIND'" ;;
  esac
  info "stored snapshot $where: revision $revision, $total_key keys, $src_size bytes$([ -z "$files_name" ] || printf ', with %s' "$files_name"), node $ETCD_BACKUP_NODE"
  step_phase "pushing the metrics (the snapshot $where is stored)"
  step_run push_run_metrics success "$(($(now_epoch) - started))" "$src_size"

  if retention_configured; then
    step_phase "applying retention (the snapshot $where is stored)"
    # etcd_prune logs its own error line
    step_run etcd_prune "$listed" || exit 1
  fi
  if [ -n "${BACKUP_COPIES:-}" ]; then
    step_phase "copying the snapshot $where (it is stored)"
    copies
  fi
  if [ "$BACKUP_DEST_KIND" = s3 ]; then rm -f "$src" ${files_src:+"$files_src"}; fi
  state=finished
  info "etcd backup finished: $where"
}

main "$@"
