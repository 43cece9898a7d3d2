# shellcheck shell=sh
# needs: etcd-lib.sh
# Entry of the `precheck` init container (etcd image, busybox sh from the
# tools step). Before any snapshot is taken:
#  - clears this series' leftovers of an interrupted run (the hidden
#    temporary snapshot and restore-check directory of this policy and node);
#  - asks the local member (ETCDCTL_* env, one endpoint) for its status: the
#    member must answer and be a voting member; its database size is what the
#    snapshot will weigh;
#  - refuses unless ETCD_BACKUP_WORK_DIR has ETCD_BACKUP_FREE_SPACE_FACTOR
#    (2) x that size free: the snapshot plus the copy its restore check makes;
#  - records the run's start (the snapshot's time) for the later steps.
# Env: ETCD_BACKUP_WORK_DIR, ETCD_BACKUP_PARTIAL, ETCD_BACKUP_RESTORE_CHECK_DIR,
# ETCD_BACKUP_SCRATCH, ETCD_BACKUP_FREE_SPACE_FACTOR, ETCDCTL_*.

main() {
  require_env ETCD_BACKUP_WORK_DIR ETCD_BACKUP_PARTIAL ETCD_BACKUP_RESTORE_CHECK_DIR ETCD_BACKUP_SCRATCH ETCDCTL_ENDPOINTS
  require_cmd etcdctl df awk sed date rm head
  factor=${ETCD_BACKUP_FREE_SPACE_FACTOR:-2}
  etcd_require_int ETCD_BACKUP_FREE_SPACE_FACTOR "$factor"
  work=$ETCD_BACKUP_WORK_DIR
  { [ -d "$work" ] && [ -w "$work" ]; } || die "$work is not a writable directory; no snapshot taken"

  rm -rf "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_PARTIAL.part" "$ETCD_BACKUP_RESTORE_CHECK_DIR" ||
    die "cannot remove the leftovers of an earlier run ($ETCD_BACKUP_PARTIAL, $ETCD_BACKUP_RESTORE_CHECK_DIR)"

  err=$ETCD_BACKUP_SCRATCH/precheck.err
  if ! status=$(etcdctl endpoint status -w json 2>"$err"); then
    die "cannot get the status of the etcd member at $ETCDCTL_ENDPOINTS: $(etcd_last_line "$err"); no snapshot taken"
  fi
  case $status in
    *'"isLearner":true'*) die "the etcd member at $ETCDCTL_ENDPOINTS is a learner, not a voting member: no snapshot taken from it" ;;
  esac
  db=$(printf '%s\n' "$status" | etcd_json_num dbSize)
  [ -n "$db" ] || die "etcdctl endpoint status reported no dbSize: $(printf '%s' "$status" | head -c 300); no snapshot taken"
  revision=$(printf '%s\n' "$status" | etcd_json_num revision)
  version=$(printf '%s\n' "$status" | sed -n 's/.*"version":"\([^"]*\)".*/\1/p')

  free=$(etcd_free_bytes "$work") || die "cannot read the free space of $work with df"
  need=$((db * factor))
  if [ "$free" -lt "$need" ]; then
    die "refusing to snapshot: $work has $free bytes free, but the database is $db bytes and a snapshot with its check needs $factor x that ($need bytes); nothing written"
  fi
  date -u +%s >"$ETCD_BACKUP_SCRATCH/started" || die "cannot write $ETCD_BACKUP_SCRATCH/started"
  info "etcd ${version:-?} at $ETCDCTL_ENDPOINTS: revision ${revision:-?}, database $db bytes; $work has $free bytes free (needs $need): ready"
}

main "$@"
