# shellcheck shell=sh
# needs: s3.sh retention.sh s3-retention.sh
# Further copies of a verified backup (spec.<engine>.copies), each to its own
# S3 bucket, endpoint or region, after the backup is stored. For each copy,
# in a subshell holding only that copy's settings:
#  1. uploads every object of the backup (its metadata and sidecars first,
#     the backup itself last) from the local files;
#  2. checks each: the stored size (head-object) and the sha256 of what is
#     read back against the local file's;
#  3. locks each with the copy's objectLock (PutObjectRetention, as the
#     backup's own objects);
#  4. applies the copy's retention rules to the copy's objects (none: every
#     copy is kept), with s3-retention.sh whatever the backup's destination.
# One line per copy says how it went, and the gauges
# <prefix>_copy_last_run_success (1 or 0) and, after a good copy,
# <prefix>_copy_last_success_timestamp_seconds are pushed, in a group of the
# copy's own (grouping label copy). A failed
# copy never fails the run: the backup itself is stored and verified.
# Env: BACKUP_COPIES (the copies' numbers, "1 2"), and per copy N the
# BACKUP_COPY_<N>_* variables of lib/engines/s3-copies.ts (NAME, BUCKET,
# PREFIX, REGION, ENDPOINT, FORCE_PATH_STYLE, AWS_ACCESS_KEY_ID,
# AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, STORAGE_CLASS, SSE,
# SSE_KMS_KEY_ID, OBJECT_LOCK_MODE, OBJECT_LOCK_SECONDS, RETENTION_*); the
# backup's BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX and BACKUP_SIDECAR_SUFFIXES.

# copy_value N FIELD: the value of BACKUP_COPY_<N>_<FIELD> (empty when unset)
# into _cv. N is a number and FIELD a fixed name: no value reaches eval.
copy_value() {
  case $1$2 in *[!A-Z0-9_]*) die "copy_value: bad copy number or field '$1' '$2'" ;; esac
  eval "_cv=\${BACKUP_COPY_$1_$2:-}"
}

# The backup's own S3 settings, kept by copy_backup for copy_source.
COPY_SOURCE_ENV='AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_CA_BUNDLE AWS_REGION AWS_DEFAULT_REGION S3_ENDPOINT S3_FORCE_PATH_STYLE'

# copy_backup OBJECTS EPOCH: OBJECTS is a file of "<source><TAB><name>" lines
# (the source a local file, or s3://<bucket>/<key> of the backup's own
# destination, read as a stream; the name under the copy's prefix), the backup
# itself last; EPOCH the time in the backup's name (the copies' lock dates).
# Makes every copy of BACKUP_COPIES; returns 0 whatever happens to them.
copy_backup() {
  for _cb_v in $COPY_SOURCE_ENV; do
    eval "_copy_src_$_cb_v=\${$_cb_v-__unset__}"
  done
  for _cb_n in ${BACKUP_COPIES:-}; do
    copy_value "$_cb_n" NAME
    _cb_name=$_cv
    _cb_log=${TMPDIR:-/tmp}/copy-$_cb_n.log
    _co_whyf=${TMPDIR:-/tmp}/copy-$_cb_n.why
    rm -f "$_co_whyf"
    if (copy_one "$_cb_n" "$1" "$2") 2>"$_cb_log"; then
      cat "$_cb_log" >&2
      copy_push "$_cb_name" copy_last_run_success 1 "1 when the last copy of the backup to this destination was stored and checked, else 0." \
        copy_last_success_timestamp_seconds "$(now_epoch)" "When the last good copy to this destination finished."
    else
      cat "$_cb_log" >&2
      log warn "copy $_cb_name failed: $(cat "$_co_whyf" 2>/dev/null || copy_last_line "$_cb_log"); the backup itself is stored"
      copy_push "$_cb_name" copy_last_run_success 0 "1 when the last copy of the backup to this destination was stored and checked, else 0."
    fi
  done
  return 0
}

# copy_push COPY NAME VALUE HELP...: push_gauges into a group of the copy's own
# (grouping label copy=COPY): a push replaces only that copy's gauges, so a
# failed copy keeps the time of its last good one.
copy_push() {
  (
    BACKUP_METRICS_LABELS="${BACKUP_METRICS_LABELS:+$BACKUP_METRICS_LABELS }copy=$1"
    shift
    push_gauges "$@"
  )
}

# copy_one N OBJECTS EPOCH (in a subshell): this copy's settings replace the
# backup's, then upload, check, lock and prune.
copy_one() {
  _co_n=$1 _co_objects=$2 _co_epoch=$3
  unset AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN AWS_CA_BUNDLE S3_ENDPOINT S3_STORAGE_CLASS S3_SSE S3_SSE_KMS_KEY_ID \
    S3_OBJECT_LOCK_MODE S3_OBJECT_LOCK_SECONDS RETENTION_KEEP_LAST RETENTION_MAX_AGE_SECONDS RETENTION_MAX_TOTAL_BYTES \
    RETENTION_HOURLY RETENTION_DAILY RETENTION_WEEKLY RETENTION_MONTHLY RETENTION_YEARLY RETENTION_TIME_ZONE
  for _co_f in NAME BUCKET PREFIX REGION ENDPOINT FORCE_PATH_STYLE AWS_ACCESS_KEY_ID AWS_SECRET_ACCESS_KEY AWS_SESSION_TOKEN \
    STORAGE_CLASS SSE SSE_KMS_KEY_ID OBJECT_LOCK_MODE OBJECT_LOCK_SECONDS RETENTION_KEEP_LAST RETENTION_MAX_AGE_SECONDS \
    RETENTION_MAX_TOTAL_BYTES RETENTION_HOURLY RETENTION_DAILY RETENTION_WEEKLY RETENTION_MONTHLY RETENTION_YEARLY \
    RETENTION_TIME_ZONE; do
    copy_value "$_co_n" "$_co_f"
    [ -n "$_cv" ] || continue
    case $_co_f in
      NAME) _co_name=$_cv ;;
      BUCKET | PREFIX | ENDPOINT | FORCE_PATH_STYLE | STORAGE_CLASS | SSE | SSE_KMS_KEY_ID | OBJECT_LOCK_MODE | OBJECT_LOCK_SECONDS)
        eval "S3_$_co_f=\$_cv; export S3_$_co_f" ;;
      REGION) AWS_REGION=$_cv AWS_DEFAULT_REGION=$_cv; export AWS_REGION AWS_DEFAULT_REGION ;;
      *) eval "$_co_f=\$_cv; export $_co_f" ;;
    esac
  done
  S3_FORCE_PATH_STYLE=${S3_FORCE_PATH_STYLE:-false} S3_PREFIX=${S3_PREFIX:-} BACKUP_DEST_KIND=s3
  RETENTION_DRY_RUN=false
  export S3_FORCE_PATH_STYLE S3_PREFIX BACKUP_DEST_KIND RETENTION_DRY_RUN
  _co_where="s3://$S3_BUCKET/$S3_PREFIX"
  set --
  if [ -n "${S3_SSE:-}" ]; then set -- "$@" --sse "$S3_SSE"; fi
  if [ -n "${S3_SSE_KMS_KEY_ID:-}" ]; then set -- "$@" --sse-kms-key-id "$S3_SSE_KMS_KEY_ID"; fi
  if [ -n "${S3_STORAGE_CLASS:-}" ]; then set -- "$@" --storage-class "$S3_STORAGE_CLASS"; fi
  _co_until=''
  if [ -n "${S3_OBJECT_LOCK_MODE:-}" ]; then _co_until=$(s3_lock_until "$_co_epoch"); fi
  _co_last=''
  while IFS="$(printf '\t')" read -r _co_file _co_obj; do
    copy_object "$_co_file" "$S3_PREFIX$_co_obj" "$@" || { printf '%s\n' "$_co_why" >"$_co_whyf"; exit 1; }
    _co_last=$S3_PREFIX$_co_obj
  done <"$_co_objects"
  info "copy $_co_name: stored and checked $_co_where$(awk -F '\t' 'END { print $2 }' "$_co_objects")"
  if retention_configured; then
    # the S3 destination of retention.sh, whatever the backup's own is (called by retention_apply)
    # shellcheck disable=SC2317
    _rt_check_dest() { s3rt_check_dest; }
    # shellcheck disable=SC2317
    retention_destination() { s3rt_destination; }
    # shellcheck disable=SC2317
    retention_list() { s3rt_list; }
    # shellcheck disable=SC2317
    retention_delete() { s3rt_delete "$@"; }
    _rt_scope="copy $_co_name"
    # retention dies on a failure, with its own error line
    retention_apply "$_co_last" || exit 1
  fi
}

# copy_source S3URL: the object on stdout, read with the backup's own S3
# settings (this copy's are in the environment meanwhile).
copy_source() {
  (
    _cs_value=''
    for _cs_v in $COPY_SOURCE_ENV; do
      eval "_cs_value=\$_copy_src_$_cs_v"
      if [ "$_cs_value" = __unset__ ]; then unset "$_cs_v"; else eval "$_cs_v=\$_cs_value; export $_cs_v"; fi
    done
    s3_aws s3 cp --only-show-errors "$1" - </dev/null
  )
}

# copy_object SOURCE KEY [aws s3 cp options]: upload (a local file, or an
# s3:// object streamed through, counted and hashed on the way), stored size,
# sha256 of what is read back, lock. Non-zero with the reason in _co_why.
copy_object() {
  _cob_file=$1 _cob_key=$2
  shift 2
  _cob_err=${TMPDIR:-/tmp}/copy.err
  case $_cob_file in
    s3://*) copy_stream "$@" || return 1 ;;
    *)
      _cob_size=$(wc -c <"$_cob_file" | tr -d ' ') || { _co_why="cannot read $_cob_file"; return 1; }
      _cob_sum=$(sha256sum <"$_cob_file" | awk '{ print $1 }') || { _co_why="cannot read $_cob_file"; return 1; }
      s3_aws s3 cp "$_cob_file" "s3://$S3_BUCKET/$_cob_key" --only-show-errors "$@" </dev/null >/dev/null 2>"$_cob_err" ||
        { _co_why="uploading s3://$S3_BUCKET/$_cob_key failed: $(copy_last_line "$_cob_err")"; return 1; } ;;
  esac
  _cob_stored=$(s3_aws s3api head-object --bucket "$S3_BUCKET" --key "$_cob_key" --query ContentLength --output text </dev/null 2>"$_cob_err") ||
    { _co_why="cannot read back the size of s3://$S3_BUCKET/$_cob_key: $(copy_last_line "$_cob_err")"; return 1; }
  [ "$_cob_stored" = "$_cob_size" ] ||
    { _co_why="s3://$S3_BUCKET/$_cob_key holds $_cob_stored bytes, $_cob_size were copied"; return 1; }
  _cob_back=$(s3_aws s3 cp --only-show-errors "s3://$S3_BUCKET/$_cob_key" - </dev/null 2>"$_cob_err" | sha256sum | awk '{ print $1 }')
  [ "$_cob_back" = "$_cob_sum" ] ||
    { _co_why="s3://$S3_BUCKET/$_cob_key reads back with sha256 $_cob_back, the copied file has $_cob_sum$(copy_last_line "$_cob_err" | sed 's/^./ (&/; s/.$/&)/')"; return 1; }
  [ -z "$_co_until" ] || s3_lock_object "$_cob_key" "$_co_until" 2>"$_cob_err" >/dev/null ||
    { _co_why="cannot lock s3://$S3_BUCKET/$_cob_key: $(copy_last_line "$_cob_err")"; return 1; }
}

# copy_stream [aws s3 cp options]: _cob_file (s3://) into _cob_key, counting
# and hashing what passed (_cob_size, _cob_sum); no copy of it stays in the pod.
copy_stream() {
  _cs_dir=$(mktemp -d "${TMPDIR:-/tmp}/copy.XXXXXX") || { _co_why="cannot create a temporary directory"; return 1; }
  mkfifo "$_cs_dir/sum" "$_cs_dir/count" || { _co_why="cannot create named pipes in $_cs_dir"; return 1; }
  sha256sum <"$_cs_dir/sum" >"$_cs_dir/sha" &
  wc -c <"$_cs_dir/count" >"$_cs_dir/size" &
  _cs_st=0
  { copy_source "$_cob_file" 2>"$_cs_dir/read.err" || echo "$?" >"$_cs_dir/read.status"; } |
    tee "$_cs_dir/sum" "$_cs_dir/count" |
    s3_aws s3 cp - "s3://$S3_BUCKET/$_cob_key" --only-show-errors "$@" >/dev/null 2>"$_cob_err" || _cs_st=$?
  wait
  _cob_sum=$(awk '{ print $1 }' "$_cs_dir/sha") _cob_size=$(tr -d ' ' <"$_cs_dir/size")
  _cs_why=''
  # a failed upload stops reading the source (SIGPIPE): its reason comes first
  if [ "$_cs_st" -ne 0 ]; then
    _cs_why="uploading s3://$S3_BUCKET/$_cob_key failed: $(copy_last_line "$_cob_err")"
  elif [ -e "$_cs_dir/read.status" ]; then
    _cs_why="reading $_cob_file failed: $(copy_last_line "$_cs_dir/read.err")"
  fi
  rm -rf "$_cs_dir"
  [ -z "$_cs_why" ] || { _co_why=$_cs_why; return 1; }
}

copy_last_line() {
  awk 'NF { line = $0 } END { print line }' "$1" 2>/dev/null || true
}
