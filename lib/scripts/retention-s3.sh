# shellcheck shell=sh disable=SC2154 # _rt_tab, _rt_nl: set by _rt_init (retention.sh)
# needs: s3.sh
# Retention destination "s3" (BACKUP_DEST_KIND=s3), joined with retention.sh:
# the backups are the objects s3://S3_BUCKET/<S3_PREFIX><BACKUP_NAME_PREFIX><time><BACKUP_NAME_SUFFIX>
# (listing name = the whole key), deleted with their sidecar objects
# (BACKUP_SIDECAR_SUFFIXES).

_rt_check_dest() {
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
retention_destination() {
  printf 's3://%s/%s%s<time>%s\n' "${S3_BUCKET:-}" "${S3_PREFIX:-}" "${BACKUP_NAME_PREFIX:-}" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the listing; non-zero on any failure, the reason in _rt_err.
retention_list() {
  _rt_init
  _rt_raw=$(s3_aws s3api list-objects-v2 --bucket "$S3_BUCKET" --prefix "${S3_PREFIX:-}$BACKUP_NAME_PREFIX" \
    --query 'Contents[].[Key,Size]' --output text </dev/null) || { _rt_err="aws s3api list-objects-v2 failed"; return 1; }
  _rt_err="unexpected output of aws s3api list-objects-v2"
  [ -z "$_rt_raw" ] || printf '%s\n' "$_rt_raw" |
    _rt_parse_names name_size rfc3339 "${S3_PREFIX:-}$BACKUP_NAME_PREFIX" "${BACKUP_NAME_SUFFIX:-}"
}

# Prints the object NAME (a whole key: a backup's sidecar); non-zero when it
# cannot be read.
retention_read() {
  s3_aws s3 cp --only-show-errors "s3://$S3_BUCKET/$1" - </dev/null
}

# Deletes one backup, sidecars first (of its name without ".age", either
# encrypted or not) (a failure leaves the backup listed, so
# the next run retries it). Non-zero on failure.
retention_delete() {
  _rt_c=${1%.age}
  for _rt_s in ${BACKUP_SIDECAR_SUFFIXES:-}; do
    for _rt_k in "$_rt_c$_rt_s" "$_rt_c$_rt_s.age"; do
      s3_aws s3api delete-object --bucket "$S3_BUCKET" --key "$_rt_k" </dev/null >/dev/null || return 1
    done
  done
  s3_aws s3api delete-object --bucket "$S3_BUCKET" --key "$1" </dev/null >/dev/null
}
