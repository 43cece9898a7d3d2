# shellcheck shell=sh
# Shared helpers for every backup-cronjobs container script.
# The renderer joins whole files: common.sh, then any helper modules, then the
# engine's entry script, which ends with `main "$@"`. Every value arrives
# through environment variables or arguments, never spliced into this code.

set -eu

# One log line on stderr: "<UTC time> <job> <level> <message>".
log() {
  printf '%s %s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${BACKUP_JOB:-backup}" "$1" "$2" >&2
}

info() { log info "$*"; }

# Fail loudly: one clear line, non-zero exit.
die() {
  log error "$*"
  exit 1
}

# Fail unless every named variable is set and non-empty.
require_env() {
  for _name in "$@"; do
    eval "_value=\${$_name:-}"
    [ -n "$_value" ] || die "environment variable $_name is required but empty"
  done
}

# Fail unless every named command is on PATH.
require_cmd() {
  for _cmd in "$@"; do
    command -v "$_cmd" >/dev/null 2>&1 || die "command '$_cmd' not found in this image (PATH=$PATH)"
  done
}

now_epoch() { date -u +%s; }

# Pushes one run's metrics to a Pushgateway when BACKUP_PUSHGATEWAY_URL is set.
# $1 = success|failure, $2 = duration seconds, $3 = size bytes (may be empty).
# Metric names: backup_cronjobs_last_run_duration_seconds, _last_run_size_bytes,
# _last_run_success, _last_success_timestamp_seconds, _runs_total{result}.
push_metrics() {
  [ -n "${BACKUP_PUSHGATEWAY_URL:-}" ] || return 0
  _result=$1 _duration=$2 _size=${3:-}
  _grouping="job/${BACKUP_METRICS_JOB:-backup_cronjobs}/engine/${BACKUP_ENGINE:-unknown}/target/${BACKUP_TARGET:-unknown}"
  _body=$(
    printf '# TYPE backup_cronjobs_last_run_duration_seconds gauge\n'
    printf 'backup_cronjobs_last_run_duration_seconds %s\n' "$_duration"
    printf '# TYPE backup_cronjobs_last_run_success gauge\n'
    if [ "$_result" = success ]; then
      printf 'backup_cronjobs_last_run_success 1\n'
      printf '# TYPE backup_cronjobs_last_success_timestamp_seconds gauge\n'
      printf 'backup_cronjobs_last_success_timestamp_seconds %s\n' "$(now_epoch)"
      if [ -n "$_size" ]; then
        printf '# TYPE backup_cronjobs_last_run_size_bytes gauge\n'
        printf 'backup_cronjobs_last_run_size_bytes %s\n' "$_size"
      fi
    else
      printf 'backup_cronjobs_last_run_success 0\n'
    fi
  )
  # PUT replaces the group's metrics except the ones we keep across runs; POST
  # keeps last_success_timestamp from an earlier success when this run failed.
  if ! printf '%s\n' "$_body" | curl -sS --fail-with-body --max-time 10 -X POST --data-binary @- \
      "${BACKUP_PUSHGATEWAY_URL%/}/metrics/$_grouping" >/dev/null; then
    log warn "could not push metrics to $BACKUP_PUSHGATEWAY_URL"
  fi
}
