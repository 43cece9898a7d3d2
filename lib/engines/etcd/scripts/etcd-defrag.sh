# shellcheck shell=sh
# needs: etcd-lib.sh
# Entry of the defragmentation's `defrag` init container (images.etcd, busybox
# sh from the tools step; spec.etcd.defragmentation). From the local member
# (ETCD_DEFRAG_LOCAL_ENDPOINT):
#  1. lists the members (`etcdctl member list -w json`: each one's ID, name
#     and first client URL), then asks every member, through its own client
#     URL, for its `endpoint status -w json` (dbSize, dbSizeInUse, leader, and
#     the cluster's alarms in "errors") and its `endpoint health`;
#  2. refuses to defragment anything while a member does not answer or is
#     unhealthy, a member is a learner or has not started (a membership change
#     is under way), or the cluster has raised an alarm (NOSPACE: it is
#     disarmed by hand once space is freed; CORRUPT: a member must be
#     restored): each problem is a warning line, and the run ends as
#     `skipped` -- no failure: the member or the alarm is what needs a person
#     (etcd's own alerts, and BackupSourceAlarm for the alarms, which the
#     report step pushes), and a retried Job would only ask again;
#  3. defragments, one member at a time and the leader last (a leader's
#     defragmentation stalls the cluster's writes while it runs), the members
#     whose fragmentation, (dbSize - dbSizeInUse) / dbSize, is above
#     ETCD_DEFRAG_THRESHOLD_PERCENT: `etcdctl --command-timeout=
#     ETCD_DEFRAG_MEMBER_TIMEOUT defrag --endpoints=<its client URL>`, then its
#     health (it must answer before the next member is blocked) and its status
#     again (the sizes after). The others are left alone.
# The facts go to ETCD_DEFRAG_DIR for the report step (etcd-defrag-report.sh):
#   started   epoch seconds of the run's start
#   alarms    the alarms raised, space-separated (written once a status answered)
#   gauges    one gauge a line: "<name>{member=\"<m>\"} <value> <help>" (before and
#             after sizes and fragmentation, duration, defragmented 0/1)
#   outcome   success, skipped or failed; `error`: why (one line)
# Any failure (a defragmentation or a check after it fails, TERM at the Job's
# deadline) is recorded as `failed` for the report step, and the step exits 0:
# the report always runs, pushes, and fails the Job.
# Env: ETCD_DEFRAG_DIR, ETCD_DEFRAG_LOCAL_ENDPOINT, ETCD_DEFRAG_THRESHOLD_PERCENT,
# ETCD_DEFRAG_MEMBER_TIMEOUT, ETCD_BACKUP_STATUS_TIMEOUT, ETCDCTL_API and the
# certificates (ETCDCTL_CACERT, ETCDCTL_CERT, ETCDCTL_KEY; no ETCDCTL_ENDPOINTS:
# etcdctl refuses a flag that its variable also sets).

undo_defrag() {
  [ "$1" -ne 0 ] || return 0
  [ -s "$dir/error" ] || printf 'the defrag step ended with exit status %s\n' "$1" >"$dir/error"
  printf 'failed\n' >"$dir/outcome"
  info "the failure is left for the report step"
  # shellcheck disable=SC2034 # read by step_exit (step.sh)
  step_exit_status=0
}

# ctl ENDPOINT ARGS...: etcdctl against that member alone, within the status timeout.
ctl() {
  _ctl_ep=$1
  shift
  step_run etcdctl --endpoints="$_ctl_ep" --command-timeout="${ETCD_BACKUP_STATUS_TIMEOUT:-15s}" "$@"
}

# gauge NAME MEMBER VALUE HELP: one gauge of a member for the report step.
gauge() {
  printf '%s{member="%s"} %s %s\n' "$1" "$2" "$3" "$4" >>"$dir/gauges"
}

# The members of `member list -w json` on stdin, one line each:
# "<ID> <first client URL or -> <learner: true|false> <name or ->".
# A member object holds no nested object: its fields are up to the next "}".
parse_members() {
  awk '
    function field(m, key,   at) {
      if (!match(m, "\"" key "\":(\"[^\"]*\"|[0-9]+|true|false)")) return ""
      at = substr(m, RSTART + length(key) + 3, RLENGTH - length(key) - 3)
      gsub(/"/, "", at)
      return at
    }
    {
      s = $0
      i = index(s, "\"members\":[")
      if (i == 0) exit
      s = substr(s, i + 11)
      while ((j = index(s, "{")) > 0) {
        s = substr(s, j + 1)
        k = index(s, "}")
        m = substr(s, 1, k - 1)
        s = substr(s, k + 1)
        url = ""
        if (match(m, /"clientURLs":\["[^"]*"/)) url = substr(m, RSTART + 15, RLENGTH - 16)
        name = field(m, "name")
        learner = field(m, "isLearner")
        printf "%s %s %s %s\n", field(m, "ID"), (url == "" ? "-" : url), (learner == "" ? "false" : learner), (name == "" ? "-" : name)
      }
    }'
}

# status_of URL: `endpoint status -w json` of that member into STATUS (and
# DB, IN_USE, MEMBER_ID, LEADER, ETCD_ALARMS); non-zero, the reason in
# WHY, when it does not answer.
status_of() {
  _st_out=$TMPDIR/status
  if ! ctl "$1" endpoint status -w json >"$_st_out" 2>"$_st_out.err"; then
    WHY="no status: $(etcd_last_line "$_st_out.err")"
    return 1
  fi
  STATUS=''
  etcd_read_file STATUS "$_st_out" || STATUS=''
  etcd_json_get "$STATUS" dbSize
  DB=$ETCD_JSON_VALUE
  etcd_json_get "$STATUS" dbSizeInUse
  IN_USE=$ETCD_JSON_VALUE
  etcd_json_get "$STATUS" member_id
  MEMBER_ID=$ETCD_JSON_VALUE
  etcd_json_get "$STATUS" leader
  LEADER=$ETCD_JSON_VALUE
  etcd_alarms_of "$STATUS"
  if [ -z "$DB" ] || [ "$DB" -eq 0 ] || [ -z "$IN_USE" ] || [ -z "$MEMBER_ID" ]; then
    WHY="a status without dbSize, dbSizeInUse (etcd >= 3.4) or member_id: $(printf '%s' "$STATUS" | head -c 300)"
    return 1
  fi
}

# health_of URL: non-zero, the reason in WHY, unless the member commits a proposal in time.
health_of() {
  _hl_out=$TMPDIR/health
  ctl "$1" endpoint health >"$_hl_out" 2>&1 && return 0
  WHY="unhealthy: $(etcd_last_line "$_hl_out")"
  return 1
}

# ratio DB IN_USE: the fragmentation (DB - IN_USE) / DB with 4 decimals, in RATIO (and PERCENT, 2 decimals).
ratio() {
  _rt_free=$(($1 - $2))
  [ "$_rt_free" -ge 0 ] || _rt_free=0
  _rt_n=$((_rt_free * 10000 / $1))
  RATIO=$(printf '%d.%04d' $((_rt_n / 10000)) $((_rt_n % 10000)))
  PERCENT=$(printf '%d.%02d%%' $((_rt_n / 100)) $((_rt_n % 100)))
}

# label NAME ID: how the gauges name a member: its name when it is a metric label value, else its ID.
label() {
  case $1 in
    - | *[!A-Za-z0-9._:-]*) printf '%s' "$2" ;;
    *) printf '%s' "$1" ;;
  esac
}

# check_members: steps 1 and 2. Writes $dir/members ("<ID> <URL> <DB> <IN_USE> <label>" a line, the
# leader last) and sets LEADER_ID; ends the run as skipped when anything is wrong.
check_members() {
  step_phase "listing the members at $ETCD_DEFRAG_LOCAL_ENDPOINT"
  list=$TMPDIR/members.json
  ctl "$ETCD_DEFRAG_LOCAL_ENDPOINT" member list -w json >"$list" 2>"$list.err" ||
    die "cannot list the etcd members at $ETCD_DEFRAG_LOCAL_ENDPOINT: $(etcd_last_line "$list.err"); nothing defragmented"
  parse_members <"$list" >"$TMPDIR/members" || die "cannot read the member list: $(head -c 300 "$list")"
  [ -s "$TMPDIR/members" ] || die "the member list of $ETCD_DEFRAG_LOCAL_ENDPOINT names no member: $(head -c 300 "$list")"
  problems='' raised='' LEADER_ID='' leader_who='' count=0
  : >"$TMPDIR/checked"
  while read -r id url learner name; do
    count=$((count + 1))
    case $name in -) who="member $id" ;; *) who="member $name ($id)" ;; esac
    [ "$url" = - ] || who="$who at $url"
    step_phase "checking $who"
    if [ "$url" = - ]; then
      problem "$who has not started (no client URL): a member is being added"
      continue
    fi
    if [ "$learner" = true ]; then
      problem "$who is a learner: a member is being added"
      continue
    fi
    if ! status_of "$url"; then
      problem "$who does not answer: $WHY"
      continue
    fi
    for a in $ETCD_ALARMS; do
      case " $raised " in *" $a "*) ;; *) raised=${raised:+$raised }$a ;; esac
    done
    printf '%s\n' "$raised" >"$dir/alarms"
    [ -n "$LEADER_ID" ] || LEADER_ID=$LEADER
    [ "$id" != "$LEADER" ] || leader_who=$who
    if ! health_of "$url"; then
      problem "$who is $WHY"
      continue
    fi
    printf '%s %s %s %s %s\n' "$id" "$url" "$DB" "$IN_USE" "$(label "$name" "$id")" >>"$TMPDIR/checked"
  done <"$TMPDIR/members"
  [ -z "$raised" ] || problem "the cluster has raised the alarm(s) $raised (etcdctl alarm list): NOSPACE is disarmed by hand once space is freed (etcdctl alarm disarm), CORRUPT needs the corrupt member restored"
  if [ -n "$problems" ]; then
    printf 'skipped\n' >"$dir/outcome"
    printf '%s\n' "$problems" >"$dir/error"
    log warn "defragmenting nothing: $problems"
    exit 0
  fi
  [ -n "$LEADER_ID" ] || die "no member reported a leader"
  # the leader last
  awk -v leader="$LEADER_ID" '$1 != leader' "$TMPDIR/checked" >"$dir/members"
  awk -v leader="$LEADER_ID" '$1 == leader' "$TMPDIR/checked" >>"$dir/members"
  info "$count members, all healthy, no alarm; the leader is ${leader_who:-member $LEADER_ID}"
}

# problem TEXT: one more reason to defragment nothing (a warning line each).
problem() {
  log warn "$1"
  problems=${problems:+$problems; }$1
}

# defragment ID URL DB IN_USE LABEL: step 3 for one member.
defragment() {
  _id=$1 _url=$2 _db=$3 _in_use=$4 _m=$5
  _who="member $_m ($_id at $_url)"
  [ "$_id" != "$LEADER_ID" ] || _who="the leader, $_who"
  ratio "$_db" "$_in_use"
  gauge defrag_db_size_before_bytes "$_m" "$_db" "Database file size of the member before the last defragmentation run (bytes)."
  gauge defrag_fragmentation_before_ratio "$_m" "$RATIO" "(dbSize - dbSizeInUse) / dbSize of the member before the last defragmentation run."
  if [ $(((_db - _in_use) * 100)) -le $((threshold * _db)) ]; then
    info "$_who: fragmentation $PERCENT ($_db bytes, $_in_use in use), not above ${threshold}%: left alone"
    gauge defrag_db_size_after_bytes "$_m" "$_db" "Database file size of the member after the last defragmentation run (bytes)."
    gauge defrag_fragmentation_after_ratio "$_m" "$RATIO" "(dbSize - dbSizeInUse) / dbSize of the member after the last defragmentation run."
    gauge defrag_defragmented "$_m" 0 "1 when the last run defragmented the member, 0 when it was below the threshold."
    return 0
  fi
  _before=$PERCENT
  step_phase "defragmenting $_who"
  info "defragmenting $_who: fragmentation $_before ($_db bytes, $_in_use in use), above ${threshold}%"
  _t0=$(now_epoch)
  _log=$TMPDIR/defrag.log
  step_run etcdctl --endpoints="$_url" --command-timeout="$ETCD_DEFRAG_MEMBER_TIMEOUT" defrag >"$_log" 2>&1 ||
    die "defragmenting $_who failed within $ETCD_DEFRAG_MEMBER_TIMEOUT: $(etcd_last_line "$_log"); the members after it were not defragmented"
  _took=$(($(now_epoch) - _t0))
  step_phase "checking $_who after its defragmentation"
  health_of "$_url" || die "$_who is $WHY after its defragmentation; the members after it were not defragmented"
  status_of "$_url" || die "$_who gave $WHY after its defragmentation; the members after it were not defragmented"
  ratio "$DB" "$IN_USE"
  info "defragmented $_who in ${_took}s: $_db -> $DB bytes, fragmentation $_before -> $PERCENT; healthy"
  gauge defrag_db_size_after_bytes "$_m" "$DB" "Database file size of the member after the last defragmentation run (bytes)."
  gauge defrag_fragmentation_after_ratio "$_m" "$RATIO" "(dbSize - dbSizeInUse) / dbSize of the member after the last defragmentation run."
  gauge defrag_defragmented "$_m" 1 "1 when the last run defragmented the member, 0 when it was below the threshold."
  gauge defrag_member_duration_seconds "$_m" "$_took" "Seconds the member's last defragmentation took."
  defragmented=$((defragmented + 1))
}

main() {
  require_env ETCD_DEFRAG_DIR ETCD_DEFRAG_LOCAL_ENDPOINT ETCD_DEFRAG_THRESHOLD_PERCENT ETCD_DEFRAG_MEMBER_TIMEOUT
  require_cmd etcdctl awk head rm mkdir date
  dir=$ETCD_DEFRAG_DIR
  threshold=$ETCD_DEFRAG_THRESHOLD_PERCENT
  etcd_require_int ETCD_DEFRAG_THRESHOLD_PERCENT "$threshold"
  rm -rf "$dir"
  mkdir -p "$dir" || die "cannot create $dir: the scratch volume is not writable"
  now_epoch >"$dir/started"
  : >"$dir/gauges"
  # shellcheck disable=SC2034 # read by die (common.sh)
  die_record=$dir/error
  etcd_step_start undo_defrag
  check_members
  defragmented=0
  while read -r id url db in_use m; do
    defragment "$id" "$url" "$db" "$in_use" "$m"
  done <"$dir/members"
  printf 'success\n' >"$dir/outcome"
  info "$defragmented of $count members defragmented (the leader last), each healthy after it; the others were at most ${threshold}% fragmented"
}

main "$@"
