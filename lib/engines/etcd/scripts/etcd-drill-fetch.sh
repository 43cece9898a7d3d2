# shellcheck shell=sh
# needs: etcd-lib.sh drill.sh drill-steps.sh
# Entry of a restore drill's `fetch` init container (images.shell for
# hostPath/PVC, images.awsCli for S3): records the drill's start, finds the
# newest backup of the drill's target, checks its age against
# spec.drill.maxBackupAge, and brings it and its metadata within reach of
# the next steps. Facts recorded (drill-steps.sh): started, name, time, and
#   source         where it is: in the mounted destination, or downloaded into BACKUP_DRILL_DIR
#   metadata.json  its metadata (<name without .age>.json)
#   snapshot       the clear snapshot to restore, once nothing is left to decrypt
#  which:  ETCD_BACKUP_NODE set (perNode): that node's snapshots, as its
#          retention lists them (<prefix><UTC time>_<node>.db, or the same
#          with .age); else (cluster mode) every node's snapshots of this
#          policy. The newest by the time in its name (ties: the greater name).
#  dir:    the snapshot stays where it is (the destination, mounted
#          read-only); its metadata is copied into BACKUP_DRILL_DIR
#  s3:     the metadata and the snapshot are downloaded into BACKUP_DRILL_DIR,
#          each size checked against the stored object
# Any failure, or TERM/INT, is recorded for the report step (exit 0).
# Env: BACKUP_DRILL_DIR, ETCD_DRILL_METADATA_SUFFIX, ETCD_BACKUP_EXTENSION,
# ETCD_BACKUP_NODE, BACKUP_DEST_KIND, BACKUP_DIR | S3_*, BACKUP_NAME_PREFIX,
# BACKUP_NAME_SUFFIX, BACKUP_DRILL_MAX_AGE_SECONDS.

undo_fetch() {
  if [ "$1" -ne 0 ] && [ "$BACKUP_DEST_KIND" = s3 ]; then rm -f "$BACKUP_DRILL_DIR/metadata.json" "${source:-}"; fi
}

# Prints the listing (retention.sh's format) of the backups this drill chooses from.
list_backups() {
  if [ -n "${ETCD_BACKUP_NODE:-}" ]; then
    retention_list
  else
    # shellcheck disable=SC2034 # read by etcd_list (etcd-lib.sh)
    ETCD_BACKUP_RETENTION_SCOPE=cluster
    etcd_list
  fi
}

main() {
  drill_start undo_fetch
  require_env ETCD_DRILL_METADATA_SUFFIX ETCD_BACKUP_EXTENSION BACKUP_DEST_KIND BACKUP_NAME_PREFIX
  require_cmd awk sort head date mktemp cat cp rm
  if [ -n "${ETCD_BACKUP_NODE:-}" ]; then
    where="node $ETCD_BACKUP_NODE's snapshots at $(retention_destination)"
  else
    where="every node's snapshots at $(retention_destination)_<node>$ETCD_BACKUP_EXTENSION"
  fi
  step_phase "listing $where"
  _rt_err="listing failed"
  list_backups >"$TMPDIR/listing" || die "listing $where failed ($_rt_err)"
  drill_newest "$TMPDIR/listing" "$where"
  name=$DRILL_NAME time=$DRILL_TIME
  drill_check_age "$time" "$name"

  clear=${name%.age}
  case $BACKUP_DEST_KIND in
    dir)
      source=$BACKUP_DIR/$name
      meta=$BACKUP_DIR/$clear$ETCD_DRILL_METADATA_SUFFIX
      [ -f "$meta" ] || die "the newest backup $source has no metadata $meta: nothing to compare a restore with"
      cp "$meta" "$BACKUP_DRILL_DIR/metadata.json" || die "cannot copy $meta into $BACKUP_DRILL_DIR"
      ;;
    s3)
      source=$BACKUP_DRILL_DIR/${name##*/}
      step_phase "downloading s3://$S3_BUCKET/$clear$ETCD_DRILL_METADATA_SUFFIX"
      step_run etcd_s3_download "$clear$ETCD_DRILL_METADATA_SUFFIX" "$BACKUP_DRILL_DIR/metadata.json" || exit 1
      step_phase "downloading s3://$S3_BUCKET/$name"
      step_run etcd_s3_download "$name" "$source" || exit 1
      ;;
    *) die "BACKUP_DEST_KIND must be dir or s3, got '$BACKUP_DEST_KIND'" ;;
  esac
  drill_record source "$source"
  case $name in *.age) ;; *) drill_record clear "$source" ;; esac
  info "drilling the newest backup of $where: $name ($(($(now_epoch) - time))s old)"
}

main "$@"
