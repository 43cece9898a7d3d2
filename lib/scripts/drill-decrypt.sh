# shellcheck shell=sh
# needs: age.sh drill-steps.sh
# Entry of a restore drill's `decrypt` init container (spec.encryption.age.image,
# with the identity of spec.encryption.age.identitySecret), for every engine
# that drills: when the backup the fetch step chose is encrypted (fact
# `source`, <name>.age), decrypts it with age into BACKUP_DRILL_DIR/<name> and
# records that as fact `clear` -- a wrong identity or a damaged file fails
# here, with age's own message -- then removes the encrypted copy when the
# fetch step downloaded it into BACKUP_DRILL_DIR (never a stored backup). A
# backup stored in clear (the fetch step recorded `clear`) passes through.
# Any failure, or TERM/INT, removes the partial output and is recorded for
# the report step (exit 0).
# Env: BACKUP_DRILL_DIR, BACKUP_AGE_IDENTITY_FILE.

undo_decrypt() {
  if [ "$1" -ne 0 ] && [ -n "${clear:-}" ]; then rm -f "$clear"; fi
}

main() {
  require_env BACKUP_DRILL_DIR
  drill_step decrypt undo_decrypt
  require_cmd age sed tr rm cat mktemp
  name=$(drill_fact name)
  if [ -s "$BACKUP_DRILL_DIR/clear" ]; then
    info "$name is not encrypted: nothing to decrypt"
    exit 0
  fi
  source=$(drill_fact source)
  base=${source##*/}
  clear=$BACKUP_DRILL_DIR/${base%.age}
  step_phase "decrypting $source"
  # age_decrypt logs its own error line
  step_run age_decrypt "$source" "$clear" || exit 1
  case $source in "$BACKUP_DRILL_DIR"/*) rm -f "$source" ;; esac
  drill_record clear "$clear"
  info "decrypted $name with the identity in $BACKUP_AGE_IDENTITY_FILE"
}

main "$@"
