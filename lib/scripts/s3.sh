# shellcheck shell=sh
# S3 through the aws CLI: the one wrapper every script uses.
# Env: S3_ENDPOINT (optional endpoint URL), S3_FORCE_PATH_STYLE (true|false),
# AWS_CONFIG_FILE, AWS_PROFILE, and the AWS_* credentials the aws CLI reads.

# s3_aws ARGS...: aws with S3_ENDPOINT applied and, with
# S3_FORCE_PATH_STYLE=true, path-style addressing. The aws CLI has no option
# or variable for that, so it goes through a config file written into TMPDIR
# for the call and removed after it -- unless AWS_CONFIG_FILE is set, in which
# case that file must set it. stdin is passed through (`aws s3 cp - ...`).
s3_aws() {
  if [ -n "${S3_ENDPOINT:-}" ]; then set -- --endpoint-url "$S3_ENDPOINT" "$@"; fi
  if [ "${S3_FORCE_PATH_STYLE:-false}" != true ] || [ -n "${AWS_CONFIG_FILE:-}" ]; then aws "$@"; return; fi
  _s3_config=$(mktemp "${TMPDIR:-/tmp}/aws-config.XXXXXX") || return 1
  if [ "${AWS_PROFILE:-default}" = default ]; then _s3_section='[default]'; else _s3_section="[profile $AWS_PROFILE]"; fi
  _s3_status=1
  if printf '%s\ns3 =\n    addressing_style = path\n' "$_s3_section" >"$_s3_config"; then _s3_status=0; AWS_CONFIG_FILE=$_s3_config aws "$@" || _s3_status=$?; fi
  rm -f "$_s3_config"
  return "$_s3_status"
}
