# shellcheck shell=sh
# needs: etcd-lib.sh
# optional: metrics.sh
# Entry of the etcd retention-prune CronJob (spec.retention.schedule): applies
# the retention rules to this policy's snapshots on its own schedule, through
# etcd_prune (etcd-lib.sh) -- the same listing, plan and deletion as a backup
# run's own pruning, without a "just verified" snapshot to check against (the
# newest snapshot is kept by every plan). Joined after common.sh, retention.sh
# and etcd-lib.sh by the renderer; all settings come from the environment.
# It runs in the etcd backups' serialization group, so no snapshot is being
# written meanwhile (and temporary files never match a snapshot name anyway).
#
# Which snapshots:
#   ETCD_BACKUP_NODE set (hostPath: one job per node, pinned to it): that
#     node's snapshots only, BACKUP_NAME_SUFFIX = _<node><ETCD_BACKUP_EXTENSION>
#   else ETCD_BACKUP_RETENTION_SCOPE=cluster (PVC, S3): every node's snapshots
#     counted together
#   else (scope node; PVC, S3): each node's snapshots counted on their own, for
#     every node named by this policy's snapshots, one node after the other
# Any failure (listing, plan, a deletion) ends the run non-zero with one error
# line; a failed listing or plan deletes nothing, a failed deletion stops
# before the next one. RETENTION_DRY_RUN=true prints the plans, deletes nothing.
# TERM/INT (the Job's deadline) stops the listing or deletion under way and
# fails the run with one line (a backup whose sidecar was deleted first is
# listed and deleted again by the next run).
# Env: ETCD_BACKUP_EXTENSION, ETCD_BACKUP_RETENTION_SCOPE, ETCD_BACKUP_NODE,
# BACKUP_DEST_KIND, BACKUP_DIR | S3_*, BACKUP_NAME_PREFIX, BACKUP_NAME_SUFFIX,
# BACKUP_SIDECAR_SUFFIXES, RETENTION_*.

main() {
  BACKUP_JOB=${BACKUP_JOB:-etcd-retention-prune}
  [ "$#" -eq 0 ] || die "etcd-prune takes no arguments (settings come from the environment)"
  require_env ETCD_BACKUP_EXTENSION BACKUP_DEST_KIND BACKUP_NAME_PREFIX
  scope=${ETCD_BACKUP_RETENTION_SCOPE:-node}
  case $scope in
    node | cluster) ;;
    *) die "ETCD_BACKUP_RETENTION_SCOPE must be node or cluster, got '$scope'" ;;
  esac
  retention_check_env
  if [ -n "${ETCD_BACKUP_NODE:-}" ]; then
    [ "$scope" = node ] || die "ETCD_BACKUP_NODE ($ETCD_BACKUP_NODE) limits the prune to one node, which needs scope node, got '$scope'"
    [ "${BACKUP_NAME_SUFFIX:-}" = "_$ETCD_BACKUP_NODE$ETCD_BACKUP_EXTENSION" ] ||
      die "BACKUP_NAME_SUFFIX must be _$ETCD_BACKUP_NODE$ETCD_BACKUP_EXTENSION for node $ETCD_BACKUP_NODE, got '${BACKUP_NAME_SUFFIX:-}'"
  fi
  etcd_step_start etcd_nothing_to_undo
  step_phase "pruning $(retention_destination)"
  # prune logs its own error line
  step_run prune || exit 1
  info "retention prune finished"
}

prune() {
  if [ -n "${ETCD_BACKUP_NODE:-}" ]; then
    info "retention prune of node $ETCD_BACKUP_NODE's snapshots at $(retention_destination) starting"
    etcd_prune
  elif [ "$scope" = cluster ]; then
    info "retention prune of every node's snapshots at $(retention_destination), counted together, starting"
    etcd_prune
  else
    info "retention prune of $(retention_destination)_<node>$ETCD_BACKUP_EXTENSION, each node on its own, starting"
    _rt_err=
    if [ "$BACKUP_DEST_KIND" = dir ]; then
      etcd_dir_listable || die "listing the snapshots at $(retention_destination) failed ($_rt_err); nothing deleted"
    fi
    nodes=$(etcd_nodes_seen) || die "listing the snapshots at $(retention_destination) failed${_rt_err:+ ($_rt_err)}; nothing deleted"
    count=0
    for node in $nodes; do
      BACKUP_NAME_SUFFIX=_$node$ETCD_BACKUP_EXTENSION
      etcd_prune
      count=$((count + 1))
    done
    info "pruned the snapshots of $count node(s)"
  fi
}

main "$@"
