# shellcheck shell=sh
# needs: s3.sh retention.sh drill.sh drill-steps.sh
# Entry of a Redis restore drill's `fetch` init container (images.awsCli):
# records the drill's start, finds the newest backup of shard REDIS_SHARD as
# its retention lists it (<prefix><UTC time>.rdb.gz, or the same with .age;
# ties: the greater name), checks its age against spec.drill.maxBackupAge,
# and downloads it and its metadata (<name without .age>.json) into
# BACKUP_DRILL_DIR, checking the listed size against the bytes the backup
# sent (the metadata's size) and the downloaded size against the listed one.
# Facts recorded (drill-steps.sh): started, name, time, metadata.json, and
# `backup` (the downloaded file; `gzip` too when it is not encrypted).
# Env: BACKUP_DRILL_DIR, REDIS_SHARD, REDIS_DRILL_METADATA_SUFFIX, S3_*,
# BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX, BACKUP_DRILL_MAX_AGE_SECONDS.

# s3_download KEY FILE: one object into FILE, TERM handled at once.
s3_download() {
  step_run s3_aws s3 cp --only-show-errors --no-progress "s3://$S3_BUCKET/$1" "$2" >/dev/null 2>"$TMPDIR/aws.err" || die "cannot download s3://$S3_BUCKET/$1: $(awk 'NF { line = $0 } END { print line }' "$TMPDIR/aws.err")"
}

undo_fetch() {
  if [ "$1" -ne 0 ]; then rm -f "$BACKUP_DRILL_DIR/metadata.json" "${file:-}"; fi
}

main() {
  drill_start undo_fetch
  require_env REDIS_SHARD REDIS_DRILL_METADATA_SUFFIX S3_BUCKET BACKUP_NAME_PREFIX
  require_cmd aws awk sort head stat mktemp
  where="shard $REDIS_SHARD's backups at $(retention_destination)"
  step_phase "listing $where"
  _rt_err="listing failed"
  retention_list >"$TMPDIR/listing" || die "listing $where failed ($_rt_err)"
  drill_newest "$TMPDIR/listing" "$where"
  name=$DRILL_NAME time=$DRILL_TIME size=$DRILL_SIZE
  drill_check_age "$time" "$name"
  clear=${name%.age}
  step_phase "downloading s3://$S3_BUCKET/$clear$REDIS_DRILL_METADATA_SUFFIX"
  s3_download "$clear$REDIS_DRILL_METADATA_SUFFIX" "$BACKUP_DRILL_DIR/metadata.json"
  sent=$(sed -n 's/.*"size":[[:space:]]*\([0-9][0-9]*\).*/\1/p' "$BACKUP_DRILL_DIR/metadata.json")
  [ -z "$sent" ] || [ "$sent" = "$size" ] || die "s3://$S3_BUCKET/$name is listed with $size bytes, but the backup sent $sent (its metadata's size): the stored object is not the one the backup wrote"
  file=$BACKUP_DRILL_DIR/backup.rdb.gz
  case $name in *.age) file=$file.age ;; esac
  step_phase "downloading s3://$S3_BUCKET/$name"
  s3_download "$name" "$file"
  got=$(stat -c %s "$file") || die "cannot read the size of $file"
  [ "$got" = "$size" ] || die "downloaded $got bytes of s3://$S3_BUCKET/$name, which is listed with $size"
  drill_record source "$file"
  case $name in *.age) ;; *) drill_record clear "$file" ;; esac
  info "drilling the newest backup of $where: $name ($(($(now_epoch) - time))s old, $size bytes)"
}

main "$@"
