# shellcheck shell=sh
# needs: etcd-lib.sh age.sh
# Entry of the `encrypt` init container (spec.encryption.age.image: sh, POSIX
# tools, sha256sum, age), between the snapshot step and finalize when the
# policy encrypts. The snapshot step left the verified clear snapshot (and
# control-plane files archive) in the scratch volume, which it never leaves:
# age streams each into a hidden temporary name -- ETCD_BACKUP_AGE_PARTIAL,
# ETCD_BACKUP_FILES_AGE_PARTIAL -- in the destination directory (hostPath,
# PVC), or in scratch for S3 (finalize uploads it). The ciphertext's bytes
# are counted and hashed as they stream (tee to wc -c and sha256sum), and the
# file written must hold exactly that count. Finalize gives the ciphertexts
# their final names (<name>.age, ...) and checks the stored objects against
# these counts. Writes into ETCD_BACKUP_SCRATCH for finalize: age-recipients
# (the recipients' fingerprints, a JSON array), encrypted-size,
# encrypted-sha256 (and files-encrypted-size, files-encrypted-sha256), then
# removes the clear files from scratch. Any failure, or TERM/INT (the Job's
# deadline), stops age, removes the temporary ciphertexts and exits non-zero
# with one error line: nothing is ever left under a final name.
# Env: ETCD_BACKUP_SCRATCH, ETCD_BACKUP_PARTIAL, ETCD_BACKUP_AGE_PARTIAL,
# ETCD_BACKUP_FILES_PARTIAL, ETCD_BACKUP_FILES_AGE_PARTIAL,
# BACKUP_AGE_RECIPIENTS | BACKUP_AGE_RECIPIENTS_FILE.

undo_encrypt() {
  if [ "$1" -ne 0 ]; then rm -f "$ETCD_BACKUP_AGE_PARTIAL" ${ETCD_BACKUP_FILES_AGE_PARTIAL:+"$ETCD_BACKUP_FILES_AGE_PARTIAL"}; fi
}

# Bytes of regular file $1: the 5th field of POSIX `ls -ln` (no stat in POSIX).
file_size() {
  # shellcheck disable=SC2012 # one file named by the caller: only its size is read
  ls -ln -- "$1" | awk 'NR == 1 { print $5 }'
}

# encrypt_stream IN OUT: age-encrypts IN into OUT; the ciphertext's byte
# count goes to TMPDIR/count and its sha256sum line to TMPDIR/sha256 as it
# streams. Non-zero, the failed commands listed in TMPDIR/failed, when any
# part of the pipeline fails.
encrypt_stream() {
  rm -f "$TMPDIR/failed" "$TMPDIR/count.fifo"
  mkfifo "$TMPDIR/count.fifo" || return 1
  wc -c <"$TMPDIR/count.fifo" >"$TMPDIR/count" &
  _es_count=$!
  { age_encrypt "$recipients" <"$1" 2>"$TMPDIR/age.err" || echo age >>"$TMPDIR/failed"; } |
    { tee "$2" "$TMPDIR/count.fifo" 2>"$TMPDIR/tee.err" || echo tee >>"$TMPDIR/failed"; } |
    { sha256sum >"$TMPDIR/sha256" || echo sha256sum >>"$TMPDIR/failed"; }
  wait "$_es_count" || echo wc >>"$TMPDIR/failed"
  [ ! -s "$TMPDIR/failed" ]
}

# encrypt IN OUT VERIFIED_SIZE WHAT: IN (VERIFIED_SIZE bytes, as verified) into
# OUT, mode 0600. Sets enc_size and enc_sha256.
encrypt() {
  [ -f "$1" ] || die "the verified $4 $1 is gone: the snapshot step did not finish"
  _e_size=$(file_size "$1")
  [ "$_e_size" = "$3" ] || die "$1 has $_e_size bytes, $3 were verified: refusing to encrypt it"
  rm -f "$2"
  step_phase "encrypting the $4 into $2"
  if ! step_run encrypt_stream "$1" "$2"; then
    case $(cat "$TMPDIR/failed" 2>/dev/null) in
      *age*) die "age could not encrypt the $4: $(age_reason <"$TMPDIR/age.err")" ;;
      *tee*) die "writing the encrypted $4 to $2 failed: $(etcd_last_line "$TMPDIR/tee.err")" ;;
      *) die "encrypting the $4 into $2 failed ($(tr '\n' ' ' <"$TMPDIR/failed" 2>/dev/null)failed)" ;;
    esac
  fi
  enc_size=$(tr -d ' \n' <"$TMPDIR/count")
  enc_sha256=$(awk '{ print $1 }' "$TMPDIR/sha256")
  etcd_require_int "the count of encrypted bytes" "$enc_size"
  [ "${#enc_sha256}" -eq 64 ] || die "no sha256 of the encrypted $4"
  _e_written=$(file_size "$2")
  [ "$_e_written" = "$enc_size" ] || die "$2 holds $_e_written bytes, age wrote $enc_size: not stored"
  chmod 0600 "$2" || die "cannot chmod $2"
}

main() {
  require_env ETCD_BACKUP_SCRATCH ETCD_BACKUP_PARTIAL ETCD_BACKUP_AGE_PARTIAL
  require_cmd age sha256sum tee wc mkfifo ls awk sed tr chmod rm cat
  etcd_step_start undo_encrypt
  umask 077
  step_phase "reading the age recipients"
  recipients=$(age_recipients_file) || exit 1
  age_fingerprints "$recipients" >"$ETCD_BACKUP_SCRATCH/age-recipients" || die "cannot compute the fingerprints of the age recipients"
  verified=$(etcd_scratch_value verified-size) || exit 1

  encrypt "$ETCD_BACKUP_PARTIAL" "$ETCD_BACKUP_AGE_PARTIAL" "$verified" snapshot
  printf '%s\n' "$enc_size" >"$ETCD_BACKUP_SCRATCH/encrypted-size"
  printf '%s\n' "$enc_sha256" >"$ETCD_BACKUP_SCRATCH/encrypted-sha256"
  what="the snapshot ($enc_size bytes)"
  if [ -n "${ETCD_BACKUP_FILES_PARTIAL:-}" ]; then
    require_env ETCD_BACKUP_FILES_AGE_PARTIAL
    files_size=$(etcd_scratch_value files-size) || exit 1
    encrypt "$ETCD_BACKUP_FILES_PARTIAL" "$ETCD_BACKUP_FILES_AGE_PARTIAL" "$files_size" "control-plane files archive"
    printf '%s\n' "$enc_size" >"$ETCD_BACKUP_SCRATCH/files-encrypted-size"
    printf '%s\n' "$enc_sha256" >"$ETCD_BACKUP_SCRATCH/files-encrypted-sha256"
    what="$what and the control-plane files ($enc_size bytes)"
    rm -f "$ETCD_BACKUP_FILES_PARTIAL"
  fi
  rm -f "$ETCD_BACKUP_PARTIAL"
  info "encrypted $what to $(cat "$ETCD_BACKUP_SCRATCH/age-recipients") with age"
}

main "$@"
