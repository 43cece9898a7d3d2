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

# s3_delete KEY [aws options...]: deletes the object KEY of S3_BUCKET
# (deleting a missing key succeeds); the options (e.g. timeouts) go before
# every aws command. With S3_OBJECT_LOCK_MODE the bucket keeps versions, where
# a delete without a version id only adds a delete marker and the data stays,
# hidden from every listing: each version of KEY, and then each delete marker,
# is deleted by its id. 3, with the reason in s3_lock_why, when S3 refuses a
# version as locked; 1 on any other failure, S3's error on stderr.
s3_delete() {
  _sd_key=$1
  shift
  if [ -z "${S3_OBJECT_LOCK_MODE:-}" ]; then
    s3_aws "$@" s3api delete-object --bucket "$S3_BUCKET" --key "$_sd_key" </dev/null >/dev/null
    return
  fi
  _sd_list=$(s3_aws "$@" s3api list-object-versions --bucket "$S3_BUCKET" --prefix "$_sd_key" \
    --query '[Versions, DeleteMarkers][][].[Key, VersionId]' --output text </dev/null) || return 1
  _sd_ids=$(printf '%s\n' "$_sd_list" | _SD_KEY=$_sd_key awk -F '\t' '$1 == ENVIRON["_SD_KEY"] && NF == 2 { print $2 }') || return 1
  for _sd_vid in $_sd_ids; do
    _sd_err=$(s3_aws "$@" s3api delete-object --bucket "$S3_BUCKET" --key "$_sd_key" --version-id "$_sd_vid" </dev/null 2>&1 >/dev/null) &&
      continue
    case $_sd_err in
      *AccessDenied*)
        if _s3_version_lock "$_sd_key" "$_sd_vid" "$@"; then
          # shellcheck disable=SC2034 # read by the caller
          s3_lock_why="locked: S3 refused to delete $_sd_key (version $_sd_vid) as protected by Object Lock$_s3_lock"
          return 3
        fi ;;
    esac
    printf '%s\n' "$_sd_err" >&2
    return 1
  done
}

# _s3_version_lock KEY VERSION [aws options...]: true when the version is
# locked now, by its retention (HeadObject: mode and retain-until date, which
# is UTC) or a legal hold, with _s3_lock describing it (" (MODE until DATE)",
# " (legal hold)"); or when HeadObject shows nothing but S3's refusal
# (_sd_err) said so (Amazon S3: "Access Denied because object protected by
# object lock."; moto answers a bare "Access Denied", and so does a refusal by
# IAM policy).
_s3_version_lock() {
  _s3_lock=''
  _s3_vk=$1 _s3_vv=$2
  shift 2
  _s3_head=$(s3_aws "$@" s3api head-object --bucket "$S3_BUCKET" --key "$_s3_vk" --version-id "$_s3_vv" \
    --query '[ObjectLockMode, ObjectLockRetainUntilDate, ObjectLockLegalHoldStatus]' --output text </dev/null 2>/dev/null) || _s3_head=''
  _s3_mode=$(printf '%s\n' "$_s3_head" | awk -F '\t' 'NR == 1 { print $1 }')
  _s3_until=$(printf '%s\n' "$_s3_head" | awk -F '\t' 'NR == 1 { print $2 }')
  case $_s3_head in
    *"$(printf '\t')ON") _s3_lock=' (legal hold)'; return 0 ;;
  esac
  case $_s3_mode in
    GOVERNANCE | COMPLIANCE)
      # YYYY-MM-DDThh:mm:ss of the date against the clock's, as numbers
      _s3_u=$(printf '%s\n' "$_s3_until" | cut -c1-19 | tr -d -- '-T:')
      case $_s3_u in *[!0-9]* | '') ;; *)
        if [ "$_s3_u" -gt "$(date -u +%Y%m%d%H%M%S)" ]; then
          _s3_lock=" ($_s3_mode until $(printf '%s\n' "$_s3_until" | cut -c1-19)Z)"
          return 0
        fi ;;
      esac ;;
  esac
  case $_sd_err in *[Oo]bject\ [Ll]ock*) return 0 ;; esac
  return 1
}
