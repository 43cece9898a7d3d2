# shellcheck shell=sh
# Client-side encryption with age (https://age-encryption.org), for
# spec.encryption.age. The containers that call these run the policy's
# encryption image (sh, POSIX tools, sha256sum, age). Env:
#   BACKUP_AGE_RECIPIENTS       the recipients, one per line (spec.encryption.age.recipients), or
#   BACKUP_AGE_RECIPIENTS_FILE  a recipients file (recipientsSecret / recipientsConfigMap, mounted)
#   BACKUP_AGE_IDENTITY_FILE    an identity file (identitySecret, mounted), to decrypt
# A recipient's fingerprint, recorded in a backup's metadata, is
# "sha256:" and the first 16 hex digits of the SHA-256 of the recipient as
# written (age itself has no fingerprint of a recipient).

# Prints the recipients file, writing BACKUP_AGE_RECIPIENTS into TMPDIR first;
# dies unless it holds at least one recipient.
age_recipients_file() {
  if [ -n "${BACKUP_AGE_RECIPIENTS_FILE:-}" ]; then
    _ag_file=$BACKUP_AGE_RECIPIENTS_FILE
    [ -r "$_ag_file" ] || die "the age recipients file $_ag_file is not readable"
  else
    require_env BACKUP_AGE_RECIPIENTS
    _ag_file=${TMPDIR:-/tmp}/age-recipients
    printf '%s\n' "$BACKUP_AGE_RECIPIENTS" >"$_ag_file" || die "cannot write $_ag_file"
  fi
  [ -n "$(_age_recipients <"$_ag_file")" ] || die "the age recipients file $_ag_file holds no recipient"
  printf '%s\n' "$_ag_file"
}

# The recipients of a recipients file on stdin: one per line, trimmed, without comments and blank lines.
_age_recipients() {
  sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' -e '/^#/d' -e '/^$/d'
}

# age_encrypt RECIPIENTS_FILE: encrypts stdin to stdout.
age_encrypt() {
  age --encrypt --recipients-file "$1"
}

# age_fingerprints RECIPIENTS_FILE: the recipients' fingerprints as a JSON array.
age_fingerprints() {
  _age_recipients <"$1" | {
    _ag_sep='' _ag_out=''
    while IFS= read -r _ag_r; do
      _ag_sum=$(printf '%s' "$_ag_r" | sha256sum) || exit 1
      _ag_out="$_ag_out$_ag_sep\"sha256:$(printf '%.16s' "$_ag_sum")\"" _ag_sep=,
    done
    printf '[%s]\n' "$_ag_out"
  }
}

# age_decrypt IN OUT: decrypts IN into OUT with BACKUP_AGE_IDENTITY_FILE; on
# failure (a wrong identity, a damaged file) removes OUT and dies with age's
# own message.
age_decrypt() {
  require_env BACKUP_AGE_IDENTITY_FILE
  [ -r "$BACKUP_AGE_IDENTITY_FILE" ] || die "the age identity file $BACKUP_AGE_IDENTITY_FILE is not readable"
  _ag_err=$(age --decrypt --identity "$BACKUP_AGE_IDENTITY_FILE" --output "$2" "$1" 2>&1) || {
    rm -f "$2"
    die "cannot decrypt $1: $(printf '%s\n' "$_ag_err" | age_reason)"
  }
}

# age's error output on stdin as one line, without its "report" line.
age_reason() {
  sed '/^age: report /d' | tr '\n' ' '
}
