# shellcheck shell=sh
# needs: etcd-lib.sh age.sh
# Entry of the restore Job's `decrypt` init container (the age image), for a
# snapshot named <name>.age: decrypts it with the identity of
# spec.encryption.age.identitySecret (BACKUP_AGE_IDENTITY_FILE) into the
# scratch volume as <name>, where the restore step reads it; the clear
# snapshot is never written anywhere else. The encrypted snapshot is the one
# the fetch step downloaded (S3: named in ETCD_BACKUP_SCRATCH/restore-source,
# then removed), else ETCD_RESTORE_SNAPSHOT in ETCD_RESTORE_ENCRYPTED_DIR.
# Writes <name> to ETCD_BACKUP_SCRATCH/restore-source for the restore step.
# A wrong identity or a damaged file fails with age's own reason; any
# failure, or TERM/INT (the Job's deadline), stops age, removes what it
# wrote and exits non-zero with one error line.

undo_decrypt() {
  if [ "$1" -ne 0 ]; then rm -f "${clear:-}" "$ETCD_BACKUP_SCRATCH/restore-source"; fi
}

main() {
  require_env ETCD_BACKUP_SCRATCH ETCD_RESTORE_SNAPSHOT ETCD_RESTORE_ENCRYPTED_DIR BACKUP_AGE_IDENTITY_FILE
  require_cmd age sed tr rm cat
  etcd_step_start undo_decrypt
  fetched=false
  name=$ETCD_RESTORE_SNAPSHOT
  if [ -f "$ETCD_BACKUP_SCRATCH/restore-source" ]; then
    name=$(cat "$ETCD_BACKUP_SCRATCH/restore-source")
    fetched=true
  fi
  case $name in
    */* | .* | '') die "the snapshot to decrypt must be a file name of this policy, got '$name'" ;;
    ?*.age) ;;
    *) die "$name is not an encrypted snapshot (its name does not end with .age)" ;;
  esac
  src=$ETCD_RESTORE_ENCRYPTED_DIR/$name
  [ -f "$src" ] || die "no encrypted snapshot $src"
  clear=$ETCD_BACKUP_SCRATCH/${name%.age}
  rm -f "$clear"
  step_phase "decrypting $src into $clear"
  # age_decrypt logs its own error line (age's reason)
  step_run age_decrypt "$src" "$clear" || exit 1
  if [ "$fetched" = true ]; then rm -f "$src"; fi
  printf '%s\n' "${name%.age}" >"$ETCD_BACKUP_SCRATCH/restore-source" || die "cannot write $ETCD_BACKUP_SCRATCH/restore-source"
  info "decrypted $src into $clear with the age identity"
}

main "$@"
