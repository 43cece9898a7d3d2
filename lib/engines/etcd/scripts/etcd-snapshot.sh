# shellcheck shell=sh
# needs: etcd-lib.sh
# optional: etcd-files.sh
# Entry of the `snapshot` init container (etcd image, busybox sh from the
# tools step): every step that needs etcdctl/etcdutl, in one container (each
# container of a pod costs a start, and between init containers the kubelet
# takes up to a second to notice that the previous one ended).
#  1. precheck, before any snapshot is taken:
#     - clears this series' leftovers of an interrupted run (the hidden
#       temporary snapshot, etcdctl's <it>.part, the restore-check directory);
#     - asks the member (ETCDCTL_* env, one endpoint) for its status within
#       ETCD_BACKUP_STATUS_TIMEOUT: it must answer and be a voting member; its
#       database size is what the snapshot will weigh; the cluster's alarms it
#       reports (NOSPACE, CORRUPT) go to ETCD_BACKUP_SCRATCH/alarms for the
#       finalize step's metrics, and a warning (a snapshot is taken all the same);
#     - refuses unless ETCD_BACKUP_WORK_DIR has ETCD_BACKUP_FREE_SPACE_FACTOR
#       (2) x that size free: the snapshot plus the copy its restore check makes;
#     - records the run's start (the snapshot's time) for the finalize step.
#  1b. with ETCD_BACKUP_FILES (spec.etcd.controlPlaneFiles): the control-plane
#     files archive into ETCD_BACKUP_FILES_PARTIAL, listed back and compared
#     (etcd_archive_files), its facts for the finalize step.
#  2. save: `etcdctl snapshot save` to ETCD_BACKUP_PARTIAL (etcdctl writes
#     <it>.part and renames it once complete). It has no timeout of its own
#     (ETCDCTL_COMMAND_TIMEOUT must not be set here): the Job's deadline is it.
#  3. verify (etcd_check_snapshot), before anything gives it a final name:
#     the size and trailing sha256 `snapshot save` appended, `snapshot status`
#     (every page checked, every key read; the size must match), and with
#     ETCD_BACKUP_RESTORE_CHECK=true, beside it, `snapshot restore` into
#     ETCD_BACKUP_RESTORE_CHECK_DIR (it checks the sha256, then rebuilds a
#     data directory; removed afterwards), else the sha256 with sha256sum;
#     right after `snapshot status`, the number of keys the snapshot holds
#     (count_keys: at the revision it is at), which the metadata records as
#     keyCount and keyCountRevision.
# Writes the facts for the finalize step into ETCD_BACKUP_SCRATCH. Any failure,
# or TERM/INT (the Job's deadline), removes the temporary snapshot, <it>.part
# and the restore-check directory and exits non-zero with one error line, so
# the pod fails without naming, uploading or pruning anything.
# Env: ETCD_BACKUP_WORK_DIR, ETCD_BACKUP_PARTIAL, ETCD_BACKUP_RESTORE_CHECK_DIR,
# ETCD_BACKUP_SCRATCH, ETCD_BACKUP_FREE_SPACE_FACTOR, ETCD_BACKUP_STATUS_TIMEOUT,
# ETCD_BACKUP_RESTORE_CHECK, ETCDCTL_*, ETCD_BACKUP_FILES, ETCD_BACKUP_FILES_PARTIAL.
# With spec.encryption the work directory is scratch: the clear snapshot and
# archive never rest outside the pod's scratch volume.

undo_snapshot() {
  etcd_restore_stop
  rm -rf "$ETCD_BACKUP_RESTORE_CHECK_DIR"
  if [ "$1" -ne 0 ]; then rm -f "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_PARTIAL.part" ${ETCD_BACKUP_FILES_PARTIAL:+"$ETCD_BACKUP_FILES_PARTIAL"}; fi
}

precheck() {
  step_phase "checking the etcd member and the free space"
  factor=${ETCD_BACKUP_FREE_SPACE_FACTOR:-2}
  etcd_require_int ETCD_BACKUP_FREE_SPACE_FACTOR "$factor"
  work=$ETCD_BACKUP_WORK_DIR
  { [ -d "$work" ] && [ -w "$work" ]; } || die "$work is not a writable directory; no snapshot taken"

  rm -rf "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_PARTIAL.part" "$ETCD_BACKUP_RESTORE_CHECK_DIR" ${ETCD_BACKUP_FILES_PARTIAL:+"$ETCD_BACKUP_FILES_PARTIAL"} ||
    die "cannot remove the leftovers of an earlier run ($ETCD_BACKUP_PARTIAL, $ETCD_BACKUP_RESTORE_CHECK_DIR)"

  out=$TMPDIR/endpoint-status
  if ! step_run env ETCDCTL_COMMAND_TIMEOUT="${ETCD_BACKUP_STATUS_TIMEOUT:-15s}" etcdctl endpoint status -w json >"$out" 2>"$out.err"; then
    die "cannot get the status of the etcd member at $ETCDCTL_ENDPOINTS: $(etcd_last_line "$out.err"); no snapshot taken"
  fi
  status=''
  etcd_read_file status "$out" || die "cannot read $out"
  case $status in
    *'"isLearner":true'*) die "the etcd member at $ETCDCTL_ENDPOINTS is a learner, not a voting member: no snapshot taken from it" ;;
  esac
  etcd_alarms_of "$status"
  printf '%s\n' "$ETCD_ALARMS" >"$ETCD_BACKUP_SCRATCH/alarms" || die "cannot write $ETCD_BACKUP_SCRATCH/alarms"
  [ -z "$ETCD_ALARMS" ] ||
    log warn "the etcd cluster has raised the alarm(s) $ETCD_ALARMS (etcdctl alarm list; NOSPACE: the database reached its quota and the cluster refuses writes): taking the snapshot all the same"
  etcd_json_get "$status" dbSize
  db=$ETCD_JSON_VALUE
  [ -n "$db" ] || die "etcdctl endpoint status reported no dbSize: $(printf '%s' "$status" | head -c 300); no snapshot taken"
  etcd_json_get "$status" revision
  revision=$ETCD_JSON_VALUE
  version=
  case $status in *'"version":"'*) version=${status##*\"version\":\"} version=${version%%\"*} ;; esac

  free=$(etcd_free_bytes "$work") || die "cannot read the free space of $work with df"
  need=$((db * factor))
  if [ "$free" -lt "$need" ]; then
    die "refusing to snapshot: $work has $free bytes free, but the database is $db bytes and a snapshot with its check needs $factor x that ($need bytes); nothing written"
  fi
  date -u +%s >"$ETCD_BACKUP_SCRATCH/started" || die "cannot write $ETCD_BACKUP_SCRATCH/started"
  info "etcd ${version:-?} at $ETCDCTL_ENDPOINTS: revision ${revision:-?}, database $db bytes; $work has $free bytes free (needs $need): ready"
}

archive_files() {
  require_env ETCD_BACKUP_FILES_PARTIAL
  step_phase "archiving the control-plane files into $ETCD_BACKUP_FILES_PARTIAL"
  etcd_archive_files "$ETCD_BACKUP_FILES_PARTIAL"
  printf '%s\n' "$ETCD_FILES_ENTRIES" >"$ETCD_BACKUP_SCRATCH/files-entries"
  printf '%s\n' "$ETCD_FILES_SIZE" >"$ETCD_BACKUP_SCRATCH/files-size"
  printf '%s\n' "$ETCD_FILES_SHA256" >"$ETCD_BACKUP_SCRATCH/files-sha256"
  info "control-plane files archived and listed back: $ETCD_FILES_ENTRIES entries, $ETCD_FILES_SIZE bytes"
}

save() {
  step_phase "saving the snapshot to $ETCD_BACKUP_PARTIAL"
  log=$TMPDIR/snapshot-save.log
  step_run etcdctl snapshot save "$ETCD_BACKUP_PARTIAL" >"$log" 2>&1 ||
    die "etcdctl snapshot save from $ETCDCTL_ENDPOINTS failed: $(etcd_last_line "$log")"
}

# The number of keys the snapshot holds, read from the member right after the
# snapshot, into verified-key-count, and the revision it was read at into
# verified-key-count-revision: what the content checks compare and a restore
# drill must find in the restored member (`snapshot status`'s totalKey counts
# every revision of every bucket up to etcd 3.5, and the live keys in 3.6).
# The revision: the higher of the snapshot's (`snapshot status`: the newest
# revision its key bucket holds) and the member's before the snapshot
# (precheck). The snapshot holds every revision after the compaction it saw,
# so no revision after that one changed a key in it, and the keys at it are
# the snapshot's -- unless it is compacted when the count runs, which etcd
# refuses. Why the higher one: a compaction at the head removes the last
# revisions' tombstones (etcd 3.4 keeps none; 3.5 and 3.6 keep those at the
# compacted revision itself: server/mvcc/key_index.go, compact), and then the snapshot's revision is below the
# compaction and its count refused, while the member's is not, and the
# restored member is at it too. Without an answer (compacted since, the
# member gone) both files stay empty, the reason goes to
# verified-key-count-error, and the content checks of the finalize step
# decide (onShrink fail: nothing stored).
count_keys() {
  at=$ETCD_SNAP_REVISION
  if [ -n "$revision" ] && [ "$revision" -gt "$at" ]; then at=$revision; fi
  step_phase "counting the keys at revision $at"
  if etcd_key_count "$at"; then
    printf '%s\n' "$ETCD_KEY_COUNT" >"$s/verified-key-count"
    printf '%s\n' "$at" >"$s/verified-key-count-revision"
    : >"$s/verified-key-count-error"
  else
    : >"$s/verified-key-count"
    : >"$s/verified-key-count-revision"
    why="cannot count the keys at revision $at at $ETCDCTL_ENDPOINTS: $ETCD_KEY_COUNT_ERROR"
    printf '%s\n' "$why" >"$s/verified-key-count-error"
    log warn "$why: the metadata records no keyCount; the content checks decide whether the snapshot is stored"
  fi
}

verify() {
  step_phase "verifying $ETCD_BACKUP_PARTIAL"
  s=$ETCD_BACKUP_SCRATCH
  restored=false
  if [ "${ETCD_BACKUP_RESTORE_CHECK:-true}" = true ]; then
    # the restore runs beside snapshot status and the key count (the checks do not change; the step's wall time does)
    step_phase "verifying $ETCD_BACKUP_PARTIAL and restoring it into $ETCD_BACKUP_RESTORE_CHECK_DIR (restore check)"
    etcd_check_snapshot "$ETCD_BACKUP_PARTIAL" "$s/status.json" restore "$ETCD_BACKUP_RESTORE_CHECK_DIR"
    count_keys
    step_phase "restoring $ETCD_BACKUP_PARTIAL into $ETCD_BACKUP_RESTORE_CHECK_DIR (restore check)"
    etcd_restore_wait
    rm -rf "$ETCD_BACKUP_RESTORE_CHECK_DIR"
    restored=true
  else
    etcd_check_snapshot "$ETCD_BACKUP_PARTIAL" "$s/status.json" sha256
    count_keys
  fi
  printf '%s\n' "$ETCD_SNAP_SIZE" >"$s/verified-size"
  printf '%s\n' "$ETCD_SNAP_SHA256" >"$s/verified-sha256"
  printf '%s\n' "$ETCD_TOOL" >"$s/verified-tool"
  printf '%s\n' "$restored" >"$s/verified-restore"
  info "snapshot verified with $ETCD_TOOL: revision $ETCD_SNAP_REVISION, $ETCD_SNAP_TOTAL_KEY keys, hash $ETCD_SNAP_HASH, $ETCD_SNAP_SIZE bytes, sha256 ok$([ "$restored" = true ] && printf ', restorable')"
}

main() {
  require_env ETCD_BACKUP_WORK_DIR ETCD_BACKUP_PARTIAL ETCD_BACKUP_RESTORE_CHECK_DIR ETCD_BACKUP_SCRATCH ETCDCTL_ENDPOINTS
  require_cmd etcdctl env df awk sed grep date rm head tail od tr stat mktemp cat dd sha256sum
  etcd_step_start undo_snapshot
  precheck
  if [ -n "${ETCD_BACKUP_FILES:-}" ]; then
    require_cmd find xargs tar gzip ln mkdir wc
    archive_files
  fi
  save
  verify
}

main "$@"
