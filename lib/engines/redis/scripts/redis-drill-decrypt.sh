# shellcheck shell=sh
# needs: age.sh drill-steps.sh
# Entry of a Redis restore drill's `decrypt` init container
# (spec.encryption.age.image, with the identity of
# spec.encryption.age.identitySecret): decrypts the downloaded <name>.age
# into BACKUP_DRILL_DIR/backup.rdb.gz -- a wrong identity or a damaged file
# fails here, with age's own message -- and removes the encrypted copy. A
# backup stored in clear passes through.
# Env: BACKUP_DRILL_DIR, BACKUP_AGE_IDENTITY_FILE.

undo_decrypt() {
  if [ "$1" -ne 0 ] && [ -n "${clear:-}" ]; then rm -f "$clear"; fi
}

main() {
  drill_step decrypt undo_decrypt
  require_cmd age sed tr rm mktemp
  name=$(drill_fact name)
  if [ -s "$BACKUP_DRILL_DIR/gzip" ]; then
    info "$name is not encrypted: nothing to decrypt"
    exit 0
  fi
  source=$(drill_fact backup)
  clear=${source%.age}
  drill_phase "decrypting $source"
  age_decrypt "$source" "$clear" &
  wait "$!"
  rm -f "$source"
  drill_record gzip "$clear"
  info "decrypted $name with the identity in $BACKUP_AGE_IDENTITY_FILE"
}

main "$@"
