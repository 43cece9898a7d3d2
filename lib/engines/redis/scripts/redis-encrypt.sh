# shellcheck shell=sh
# needs: step.sh redis-stream.sh age.sh
# Encryption side of a Redis shard backup with spec.encryption.age: container
# `age-encrypt` (spec.encryption.age.image: sh, sed, sha256sum, age). It runs
# at the same time as `redis-dump` and `s3-upload`, between them:
#   redis-dump > $BACKUP_SCRATCH_DIR/stream > age-encrypt > stream.age > s3-upload
#  1. Records the recipients' fingerprints (age_fingerprints) in
#     result/age_fingerprints, for the backup's metadata.
#  2. Opens stream.age for writing (waits for s3-upload), then the stream for
#     reading (waits for redis-dump); passes the header line through in clear.
#  3. Encrypts the rest of the stream (the gzip'd RDB, checked by redis-dump
#     on the clear stream) to the recipients as it comes.
#  4. Records its verdict (result/encrypt-ok, or the reason in
#     result/encrypt-error) and only then closes stream.age: s3-upload
#     completes the upload only after both good verdicts. A stream that ended
#     without redis-dump's good verdict (result/ok) gets none: this side
#     logs that and ends, redis-dump and s3-upload report the failure.
# TERM/INT stops age (step.sh's frame) and exits 1; s3-upload, stopped at the same time, stores
# nothing. This side's end leaves the marker encrypt.exit and releases both
# pipes (see redis-stream.sh).
# Env: BACKUP_SCRATCH_DIR, BACKUP_AGE_RECIPIENTS | BACKUP_AGE_RECIPIENTS_FILE.

# On any exit (step.sh): stops age if it still runs, leaves the marker
# encrypt.exit and releases both pipes.
undo_encrypt() {
  stream_unwatch
  # shellcheck disable=SC2086 # age_pid: a PID or nothing
  step_stop $age_pid
  age_pid=
  stream_leave "$in" "$BACKUP_SCRATCH_DIR/encrypt.exit"
  stream_leave "$out" "$BACKUP_SCRATCH_DIR/encrypt.exit"
}

# After a TERM/INT has stopped age (step.sh): nothing is left to stop.
encrypt_stopped() {
  # shellcheck disable=SC2034 # stream_watch_pid: redis-stream.sh's
  stream_watch_pid='' age_pid=''
}

main() {
  [ -n "${BACKUP_SCRATCH_DIR:-}" ] || { log error "environment variable BACKUP_SCRATCH_DIR is required but empty"; exit 1; }
  in=$BACKUP_SCRATCH_DIR/stream
  out=$BACKUP_SCRATCH_DIR/stream.age
  result=$BACKUP_SCRATCH_DIR/result
  age_pid=
  mkdir -p "$result" || { log error "cannot create $result: the scratch volume is not writable"; exit 1; }
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$result/encrypt-error
  { stream_init "$in" && stream_init "$out"; } || die "cannot create the named pipes $in and $out; no backup taken"
  step_phase 'encrypting; no backup taken'
  step_begin undo_encrypt redis-encrypt
  step_on_stop encrypt_stopped
  work=$TMPDIR
  require_cmd age sed sha256sum
  recipients=$(age_recipients_file)
  age_fingerprints "$recipients" >"$result/age_fingerprints" || die "cannot compute the fingerprints of the age recipients; no backup taken"

  stream_watch "$out" "$BACKUP_SCRATCH_DIR/upload.exit"
  command exec 4>"$out" || die "cannot open the stream $out; no backup taken"
  stream_unwatch
  [ ! -e "$BACKUP_SCRATCH_DIR/upload.exit" ] || die "the upload container (s3-upload) ended before the dump started (see its log); no backup taken"
  stream_watch "$in" "$BACKUP_SCRATCH_DIR/dump.exit"
  command exec 5<"$in" || die "cannot open the stream $in; no backup taken"
  stream_unwatch
  # The header line, in clear (a dump that failed before its header sends none).
  if IFS= read -r header <&5; then
    trap '' PIPE
    printf '%s\n' "$header" >&4 || die "the upload container (s3-upload) stopped reading the stream (see its log); no backup taken"
    trap - PIPE
    age_encrypt "$recipients" <&5 >&4 2>"$work/age.err" &
    age_pid=$!
    exec 5<&-
    _st=0
    wait "$age_pid" || _st=$?
    age_pid=
    # age (Go) dies of SIGPIPE when its stdout breaks
    [ "$_st" -ne 141 ] || die "the upload container (s3-upload) stopped reading the stream (see its log); no backup taken"
    if [ "$_st" -ne 0 ]; then
      _why=$(awk 'NF { line = $0 } END { print line }' "$work/age.err" 2>/dev/null) || _why=
      die "age --encrypt failed: ${_why:-exit code $_st}; no backup taken"
    fi
  fi
  # redis-dump records its verdict before its end closes the stream
  if [ ! -f "$result/ok" ]; then
    exec 4>&-
    info "the dump ended without a backup (see the redis-dump log): nothing encrypted is kept"
    return 0
  fi
  : >"$result/encrypt-ok"
  exec 4>&-
  info "stream encrypted with age to the recipients $(cat "$result/age_fingerprints")"
}

main "$@"
