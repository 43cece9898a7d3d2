# shellcheck shell=sh
# needs: retention.sh
# optional: metrics.sh
# Entry script of a retention-prune CronJob: list the backups of one
# destination, print the retention plan, delete what it does not keep (or
# nothing with RETENTION_DRY_RUN=true). Joined after common.sh and
# retention.sh by the renderer; all settings come from the environment (see
# retention.sh). Any failure -- listing, planning, a deletion -- ends the run
# with a non-zero exit and one error line; a failed listing or plan deletes
# nothing, a failed deletion stops before the next one.
#
# It runs in the same serialization group as the backups it prunes, so it
# never sees a backup that is still being written.

main() {
  BACKUP_JOB=${BACKUP_JOB:-retention-prune}
  [ "$#" -eq 0 ] || die "prune.sh takes no arguments (settings come from the environment)"
  retention_check_env
  info "retention prune of $(retention_destination) starting"
  retention_apply
  info "retention prune finished"
}

main "$@"
