# shellcheck shell=sh
# The source_alarm gauges of an etcd run (the snapshot's finalize, the
# defragmentation's report), pushed the same way by both.

# etcd_push_alarms FILE: pushes <prefix>_source_alarm{alarm} for every type of
# ETCD_BACKUP_ALARM_TYPES and every alarm FILE names (space-separated, as
# etcd_alarms_of writes them), 1 raised and 0 not, in a push of their own
# (it replaces only these gauges); nothing when FILE does not exist (no
# member answered the run).
etcd_push_alarms() {
  [ -f "$1" ] || return 0
  _pa_raised=$(cat "$1" 2>/dev/null) || return 0
  _pa_seen=' '
  set --
  for _pa_type in ${ETCD_BACKUP_ALARM_TYPES:-} $_pa_raised; do
    case $_pa_seen in *" $_pa_type "*) continue ;; esac
    _pa_seen="$_pa_seen$_pa_type "
    case " $_pa_raised " in *" $_pa_type "*) _pa_value=1 ;; *) _pa_value=0 ;; esac
    set -- "$@" "source_alarm{alarm=\"$_pa_type\"}" "$_pa_value" \
      "1 while the etcd cluster has raised this alarm (etcdctl alarm list), 0 otherwise, as the last run saw it."
  done
  [ "$#" -eq 0 ] || push_gauges "$@"
}
