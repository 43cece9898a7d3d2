# shellcheck shell=sh disable=SC2154 # _rt_tab, _rt_nl: set by _rt_init (retention.sh)
# needs: s3.sh
# Retention's S3 functions, under names of their own: retention-s3.sh makes
# them the destination "s3" (BACKUP_DEST_KIND=s3) of retention.sh, and
# copy.sh applies a copy's retention rules with them whatever the backup's own
# destination is. The backups are the objects
# s3://S3_BUCKET/<S3_PREFIX><BACKUP_NAME_PREFIX><time><BACKUP_NAME_SUFFIX>
# (listing name = the whole key), deleted with their sidecar objects
# (BACKUP_SIDECAR_SUFFIXES). With S3_OBJECT_LOCK_MODE (every object locked for
# S3_OBJECT_LOCK_SECONDS after the time in its name) a backup still locked is
# not touched, and the others are deleted version by version: a bucket with
# Object Lock keeps versions, where a delete without a version id only hides
# the object behind a delete marker and frees nothing.

s3rt_check_dest() {
  _rt_kind s3
  _rt_check_names
  case ${S3_PREFIX:-} in *"$_rt_tab"* | *"$_rt_nl"*) die "S3_PREFIX must not contain tab or newline" ;; esac
  require_env S3_BUCKET
  require_cmd aws
  case ${S3_FORCE_PATH_STYLE:-false} in
    true | false) ;;
    *) die "S3_FORCE_PATH_STYLE must be true or false, got '${S3_FORCE_PATH_STYLE:-}'" ;;
  esac
  if [ "${S3_FORCE_PATH_STYLE:-false}" = true ] && [ -n "${AWS_CONFIG_FILE:-}" ]; then
    log warn "S3_FORCE_PATH_STYLE=true but AWS_CONFIG_FILE is set: that file must set s3.addressing_style = path"
  fi
}

# One line naming the destination, for logs.
s3rt_destination() {
  printf 's3://%s/%s%s<time>%s\n' "${S3_BUCKET:-}" "${S3_PREFIX:-}" "${BACKUP_NAME_PREFIX:-}" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the listing; non-zero on any failure, the reason in _rt_err.
s3rt_list() {
  _rt_init
  _rt_raw=$(s3_aws s3api list-objects-v2 --bucket "$S3_BUCKET" --prefix "${S3_PREFIX:-}$BACKUP_NAME_PREFIX" \
    --query 'Contents[].[Key,Size]' --output text </dev/null) || { _rt_err="aws s3api list-objects-v2 failed"; return 1; }
  _rt_err="unexpected output of aws s3api list-objects-v2"
  [ -z "$_rt_raw" ] || printf '%s\n' "$_rt_raw" |
    _rt_parse_names name_size "${S3_PREFIX:-}$BACKUP_NAME_PREFIX" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the object NAME (a whole key: a backup's sidecar); non-zero when it
# cannot be read.
s3rt_read() {
  s3_aws s3 cp --only-show-errors "s3://$S3_BUCKET/$1" - </dev/null
}

# Deletes one backup, sidecars first (of its name without ".age", either
# encrypted or not) (a failure leaves the backup listed, so
# the next run retries it). Non-zero on failure; 3, with the reason in
# _rt_lock_why, when the Object Lock keeps it.
s3rt_delete() {
  if [ -n "${S3_OBJECT_LOCK_MODE:-}" ]; then
    _rt_locked_until "$1" || return 3
  fi
  _rt_c=${1%.age}
  for _rt_s in ${BACKUP_SIDECAR_SUFFIXES:-}; do
    for _rt_k in "$_rt_c$_rt_s" "$_rt_c$_rt_s.age"; do
      _rt_delete_key "$_rt_k" || return $?
    done
  done
  _rt_delete_key "$1"
}

# Non-zero, with _rt_lock_why, while the backup NAME is locked: until the time
# in its name plus S3_OBJECT_LOCK_SECONDS (RETENTION_NOW: tests).
_rt_locked_until() {
  _rt_lt=${1#"${S3_PREFIX:-}$BACKUP_NAME_PREFIX"}
  _rt_lt=$(printf '%s\n' "$_rt_lt" | sed -n 's/^\([0-9-]\{10\}\)T\([0-9:]\{8\}\)Z.*/\1 \2/p')
  _rt_lt=$(date -u -d "$_rt_lt" +%s 2>/dev/null) || return 0
  _rt_lt=$((_rt_lt + S3_OBJECT_LOCK_SECONDS))
  [ "$_rt_lt" -gt "${RETENTION_NOW:-$(now_epoch)}" ] || return 0
  _rt_lock_why="locked (S3 Object Lock, $S3_OBJECT_LOCK_MODE) until $(date -u -d "@$_rt_lt" +%Y-%m-%dT%H:%M:%SZ)"
  return 1
}

# Deletes the object KEY (s3_delete: with Object Lock, each of its versions and
# delete markers by id). 3 when S3 refuses a version as locked (a lock longer
# than the policy's, set by someone else).
_rt_delete_key() {
  _rt_dst=0
  s3_delete "$1" || _rt_dst=$?
  [ "$_rt_dst" -ne 3 ] || _rt_lock_why=$s3_lock_why
  return "$_rt_dst"
}
