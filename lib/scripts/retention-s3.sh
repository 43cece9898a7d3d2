# shellcheck shell=sh
# needs: s3-retention.sh
# Retention destination "s3" (BACKUP_DEST_KIND=s3), joined with retention.sh:
# the objects of an S3 prefix, through s3-retention.sh.

_rt_check_dest() { s3rt_check_dest; }
retention_destination() { s3rt_destination; }
retention_list() { s3rt_list; }
retention_read() { s3rt_read "$@"; }
retention_delete() { s3rt_delete "$@"; }
