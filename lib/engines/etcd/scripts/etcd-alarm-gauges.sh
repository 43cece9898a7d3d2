# shellcheck shell=sh
# The source_alarm gauges of an etcd run (the snapshot's finalize, the
# defragmentation's report), built the same way for both.

# etcd_with_alarms FILE COMMAND [ARGS...]: runs COMMAND ARGS followed by the
# gauge triples (name, value, help) of <prefix>_source_alarm{alarm} for every
# type of ETCD_BACKUP_ALARM_TYPES and every alarm FILE names (space-separated,
# as etcd_alarms_of writes them), 1 raised and 0 not; none when FILE does not
# exist (no member answered the run). COMMAND pushes them with its own gauges,
# in one push: one refused push is one warning.
etcd_with_alarms() {
  _wa_file=$1
  shift
  [ -f "$_wa_file" ] || { "$@"; return; }
  _wa_raised=$(cat "$_wa_file" 2>/dev/null) || _wa_raised=''
  _wa_seen=' '
  for _wa_type in ${ETCD_BACKUP_ALARM_TYPES:-} $_wa_raised; do
    case $_wa_seen in *" $_wa_type "*) continue ;; esac
    _wa_seen="$_wa_seen$_wa_type "
    case " $_wa_raised " in *" $_wa_type "*) _wa_value=1 ;; *) _wa_value=0 ;; esac
    set -- "$@" "source_alarm{alarm=\"$_wa_type\"}" "$_wa_value" \
      "1 while the etcd cluster has raised this alarm (etcdctl alarm list), 0 otherwise, as the last run saw it."
  done
  "$@"
}
