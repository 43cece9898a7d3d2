# shellcheck shell=sh
# needs: etcd-lib.sh
# Entry of the restore Job's `restore` container (etcd image, busybox sh from
# the tools step). Restores one snapshot of this policy into a NEW data
# directory, ETCD_RESTORE_TARGET_ROOT/<snapshot name>.restored; the running
# etcd and its data directory are not touched (see docs/operations/restore.md for the swap).
#  snapshot: the one the fetch (S3) or decrypt (<name>.age) step left in
#            scratch, named in ETCD_BACKUP_SCRATCH/restore-source, else
#            ETCD_RESTORE_SNAPSHOT (a file name in ETCD_RESTORE_SOURCE_DIR), as
#            `backup-cronjobs restore --snapshot` names it
#  checks:   the same as every backup (size and trailer, snapshot status;
#            snapshot restore itself checks the sha256)
#  restore:  --name ETCD_RESTORE_NODE, --initial-cluster ETCD_RESTORE_INITIAL_CLUSTER,
#            --initial-advertise-peer-urls ETCD_RESTORE_PEER_URL, and with
#            ETCD_RESTORE_BUMP_REVISION --bump-revision N --mark-compacted
# The data directory appears under its final name only when complete. Any
# failure, or TERM/INT (the Job's deadline), stops the restore, removes the
# partial directory (and the final one, if this run had just made it) and
# exits non-zero with one error line.

undo_restore() {
  [ "$1" -ne 0 ] || return 0
  if [ -n "${target:-}" ]; then rm -rf "$target.partial"; fi
  if [ "${renaming:-false}" = true ]; then rm -rf "$target"; fi
}

main() {
  require_env ETCD_BACKUP_SCRATCH ETCD_RESTORE_SOURCE_DIR ETCD_RESTORE_TARGET_ROOT ETCD_RESTORE_NODE \
    ETCD_RESTORE_PEER_URL ETCD_RESTORE_INITIAL_CLUSTER BACKUP_NAME_PREFIX ETCD_RESTORE_SNAPSHOT
  require_cmd stat head tail od tr awk sed sort rm mv chmod mktemp cat
  etcd_step_start undo_restore
  step_phase "finding the snapshot to restore"
  if [ -f "$ETCD_BACKUP_SCRATCH/restore-source" ]; then
    name=$(cat "$ETCD_BACKUP_SCRATCH/restore-source")
  else
    name=$ETCD_RESTORE_SNAPSHOT
  fi
  case $name in
    */* | .* | '') die "the snapshot to restore must be a file name of this policy, got '$name'" ;;
    "$BACKUP_NAME_PREFIX"*) ;;
    *) die "$name is not a snapshot of this policy (names start with $BACKUP_NAME_PREFIX)" ;;
  esac
  src=$ETCD_RESTORE_SOURCE_DIR/$name
  target=$ETCD_RESTORE_TARGET_ROOT/$name.restored
  [ ! -e "$target" ] || die "$target already exists: remove it to restore $name again"

  step_phase "checking $src"
  # no sha256 pass: snapshot restore checks it
  etcd_check_snapshot "$src" "$ETCD_BACKUP_SCRATCH/status.json"
  set -- --name "$ETCD_RESTORE_NODE" --initial-cluster "$ETCD_RESTORE_INITIAL_CLUSTER" \
    --initial-advertise-peer-urls "$ETCD_RESTORE_PEER_URL"
  if [ -n "${ETCD_RESTORE_BUMP_REVISION:-}" ]; then
    etcd_require_int ETCD_RESTORE_BUMP_REVISION "$ETCD_RESTORE_BUMP_REVISION"
    set -- "$@" --bump-revision "$ETCD_RESTORE_BUMP_REVISION" --mark-compacted
  fi
  rm -rf "$target.partial"
  step_phase "restoring $src into $target.partial"
  etcd_restore_into "$src" "$target.partial" "$@"
  chmod 0700 "$target.partial" || die "cannot chmod $target.partial"
  renaming=true
  mv "$target.partial" "$target" || die "cannot rename $target.partial to $target"
  info "restored $name (revision $ETCD_SNAP_REVISION, $ETCD_SNAP_TOTAL_KEY keys) with $ETCD_TOOL as member $ETCD_RESTORE_NODE of $ETCD_RESTORE_INITIAL_CLUSTER into ${ETCD_RESTORE_HOST_DIR:-$ETCD_RESTORE_TARGET_ROOT}/$name.restored"
  info "next, on node $ETCD_RESTORE_NODE: stop etcd (move /etc/kubernetes/manifests/etcd.yaml away), move its data directory aside, move $name.restored into its place, put the manifest back"
}

main "$@"
