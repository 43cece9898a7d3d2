# shellcheck shell=sh
# needs: etcd-lib.sh
# Entry of the restore Job's `fetch` init container (aws CLI image, S3
# destinations): downloads the snapshot to restore into the scratch volume
# and checks its size against the stored object. ETCD_RESTORE_SNAPSHOT names
# it (a file name of this policy). Writes the name to
# ETCD_BACKUP_SCRATCH/restore-source for the restore step. Any failure, or
# TERM/INT (the Job's deadline), stops the download, removes what it fetched
# and exits non-zero with one error line.

undo_fetch() {
  if [ "$1" -ne 0 ]; then rm -f "${dst:-}" "$ETCD_BACKUP_SCRATCH/restore-source"; fi
}

main() {
  require_env ETCD_BACKUP_SCRATCH S3_BUCKET ETCD_RESTORE_SNAPSHOT
  require_cmd aws awk tr stat mktemp
  etcd_step_start undo_fetch
  name=$ETCD_RESTORE_SNAPSHOT
  case $name in
    */* | .*) die "ETCD_RESTORE_SNAPSHOT must be a file name of this policy, got '$name'" ;;
  esac
  key=${S3_PREFIX:-}$name
  dst=$ETCD_BACKUP_SCRATCH/$name
  step_phase "downloading s3://$S3_BUCKET/$key"
  step_run etcd_s3_download "$key" "$dst" || exit 1
  printf '%s\n' "$name" >"$ETCD_BACKUP_SCRATCH/restore-source"
}

main "$@"
