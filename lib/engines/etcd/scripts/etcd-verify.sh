# shellcheck shell=sh
# needs: etcd-lib.sh
# Entry of the `verify` init container (etcd image, busybox sh from the tools
# step): proves the temporary snapshot ETCD_BACKUP_PARTIAL is complete and
# intact before anything gives it a final name:
#  1. its trailing sha256 (appended by `snapshot save`) matches its database;
#  2. `etcdutl snapshot status` (etcd >= 3.5) or `etcdctl snapshot status`
#     (3.4) reads it, and the database size it reports is the file's;
#  3. with ETCD_BACKUP_RESTORE_CHECK=true, `snapshot restore` rebuilds a data
#     directory from it in ETCD_BACKUP_RESTORE_CHECK_DIR (removed afterwards).
# Writes the facts for the finalize step into ETCD_BACKUP_SCRATCH. On any
# failure it deletes the temporary snapshot and exits non-zero, so the pod
# fails without renaming, uploading or pruning anything.

cleanup() {
  _rc=$?
  rm -rf "$ETCD_BACKUP_RESTORE_CHECK_DIR"
  if [ "$_rc" -ne 0 ]; then rm -f "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_PARTIAL.part"; fi
}

main() {
  require_env ETCD_BACKUP_PARTIAL ETCD_BACKUP_SCRATCH ETCD_BACKUP_RESTORE_CHECK_DIR
  require_cmd wc head tail od tr sha256sum awk sed rm
  trap cleanup EXIT
  s=$ETCD_BACKUP_SCRATCH
  etcd_check_snapshot "$ETCD_BACKUP_PARTIAL" "$s/status.json"
  restored=false
  if [ "${ETCD_BACKUP_RESTORE_CHECK:-true}" = true ]; then
    rm -rf "$ETCD_BACKUP_RESTORE_CHECK_DIR"
    etcd_restore_into "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_RESTORE_CHECK_DIR"
    rm -rf "$ETCD_BACKUP_RESTORE_CHECK_DIR"
    restored=true
  fi
  printf '%s\n' "$ETCD_SNAP_SIZE" >"$s/verified-size"
  printf '%s\n' "$ETCD_SNAP_SHA256" >"$s/verified-sha256"
  printf '%s\n' "$ETCD_TOOL" >"$s/verified-tool"
  printf '%s\n' "$restored" >"$s/verified-restore"
  info "snapshot verified with $ETCD_TOOL: revision $ETCD_SNAP_REVISION, $ETCD_SNAP_TOTAL_KEY keys, hash $ETCD_SNAP_HASH, $ETCD_SNAP_SIZE bytes, sha256 ok$([ "$restored" = true ] && printf ', restorable')"
}

main "$@"
