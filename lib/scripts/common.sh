# shellcheck shell=sh
# Shared helpers for every backup-cronjobs container script.
# The renderer joins whole files: common.sh, then any helper modules, then the
# engine's entry script, which ends with `main "$@"`. Every value arrives
# through environment variables or arguments, never spliced into this code.

set -eu

# One log line on stderr: "<UTC time> <job> <level> <message>".
log() { printf '%s %s %s %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "${BACKUP_JOB:-backup}" "$1" "$2" >&2; }

info() { log info "$*"; }

# Fail loudly: one clear line, non-zero exit. A step that reports its failure
# to a later step sets die_record to the file that receives that line.
die() {
  log error "$*"
  if [ -n "${die_record:-}" ]; then printf '%s\n' "$*" >"$die_record" 2>/dev/null || :; fi
  exit 1
}

# Fail unless every named variable is set and non-empty.
require_env() {
  for _name in "$@"; do eval "[ -n \"\${$_name:-}\" ]" || die "environment variable $_name is required but empty"; done
}

# Fail unless every named command is on PATH.
require_cmd() {
  for _cmd in "$@"; do command -v "$_cmd" >/dev/null 2>&1 || die "command '$_cmd' not found in this image (PATH=$PATH)"; done
}

now_epoch() { date -u +%s; }

# Hooks that optional modules replace: metrics.sh (push_metrics) and
# retention.sh (retention_configured, retention_apply). Without them a run
# pushes nothing and prunes nothing.
push_metrics() { :; }
push_gauges() { :; }
retention_configured() { return 1; }
