# shellcheck shell=sh
# S3 through the aws CLI: the one wrapper every script uses.
# Env: S3_ENDPOINT (optional endpoint URL), S3_FORCE_PATH_STYLE (true|false),
# AWS_CONFIG_FILE, AWS_PROFILE, and the AWS_* credentials the aws CLI reads;
# S3_OBJECT_LOCK_MODE and S3_OBJECT_LOCK_SECONDS (spec...s3.objectLock).

# s3_aws ARGS...: aws with S3_ENDPOINT applied and, with
# S3_FORCE_PATH_STYLE=true, path-style addressing. The aws CLI has no option
# or variable for that, so it goes through a config file written into TMPDIR
# for the call and removed after it -- unless AWS_CONFIG_FILE is set, in which
# case that file must set it. stdin is passed through (`aws s3 cp - ...`).
s3_aws() {
  if [ -n "${S3_ENDPOINT:-}" ]; then set -- --endpoint-url "$S3_ENDPOINT" "$@"; fi
  if [ "${S3_FORCE_PATH_STYLE:-false}" != true ] || [ -n "${AWS_CONFIG_FILE:-}" ]; then aws "$@"; return; fi
  _s3_config=$(mktemp "${TMPDIR:-/tmp}/aws-config.XXXXXX") || return 1
  _s3_status=1
  if _s3_path_style_config "$_s3_config"; then _s3_status=0; AWS_CONFIG_FILE=$_s3_config aws "$@" || _s3_status=$?; fi
  rm -f "$_s3_config"
  return "$_s3_status"
}

# Writes the aws config file FILE that turns on path-style addressing for AWS_PROFILE.
_s3_path_style_config() {
  if [ "${AWS_PROFILE:-default}" = default ]; then _s3_section='[default]'; else _s3_section="[profile $AWS_PROFILE]"; fi
  printf '%s\ns3 =\n    addressing_style = path\n' "$_s3_section" >"$1"
}

# For a script that runs aws itself (s3_exec): with S3_FORCE_PATH_STYLE=true
# and no AWS_CONFIG_FILE, writes the path-style config once into TMPDIR and
# exports AWS_CONFIG_FILE, so that every later aws call of the script (s3_aws
# included) reads it. Sets s3_pinned_config to that file (empty when none was
# written); the caller removes it when done.
s3_pin_config() {
  s3_pinned_config=
  if [ "${S3_FORCE_PATH_STYLE:-false}" != true ] || [ -n "${AWS_CONFIG_FILE:-}" ]; then return 0; fi
  s3_pinned_config=$(mktemp "${TMPDIR:-/tmp}/aws-config.XXXXXX") || return 1
  _s3_path_style_config "$s3_pinned_config" || return 1
  AWS_CONFIG_FILE=$s3_pinned_config
  export AWS_CONFIG_FILE
}

# s3_exec ARGS...: s3_aws in place of the calling subshell, so that
# `( s3_exec ... ) &` leaves aws's own PID in $! (a script can then stop that
# very process). Path-style addressing needs s3_pin_config first.
s3_exec() {
  if [ "${S3_FORCE_PATH_STYLE:-false}" = true ] && [ -z "${AWS_CONFIG_FILE:-}" ]; then
    die "s3_exec needs s3_pin_config first (path-style addressing)"
  fi
  if [ -n "${S3_ENDPOINT:-}" ]; then set -- --endpoint-url "$S3_ENDPOINT" "$@"; fi
  exec aws "$@"
}

# s3_lock_until EPOCH: the retain-until date (UTC, RFC 3339) of the objects of
# a backup named after EPOCH (the run's start): EPOCH + S3_OBJECT_LOCK_SECONDS.
# Retention reads the same date off the backup's name.
s3_lock_until() {
  date -u -d "@$(($1 + S3_OBJECT_LOCK_SECONDS))" +%Y-%m-%dT%H:%M:%SZ
}

# s3_lock_object KEY UNTIL: with S3_OBJECT_LOCK_MODE set, locks the object KEY
# of S3_BUCKET until UNTIL (PutObjectRetention: `aws s3 cp` has no Object Lock
# options). Non-zero, S3's error on stderr, when it refuses: a bucket without
# Object Lock answers "InvalidRequest ... Bucket is missing Object Lock
# Configuration".
s3_lock_object() {
  [ -n "${S3_OBJECT_LOCK_MODE:-}" ] || return 0
  s3_aws s3api put-object-retention --bucket "$S3_BUCKET" --key "$1" \
    --retention "Mode=$S3_OBJECT_LOCK_MODE,RetainUntilDate=$2" </dev/null
}
