# shellcheck shell=sh
# Optional module: replaces common.sh's no-op push_metrics. Joined after
# common.sh when the policy sets metrics.pushgatewayUrl.

# Pushes one run's metrics to a Pushgateway when BACKUP_PUSHGATEWAY_URL is set.
# Never fails the run: a failed push is one warning line.
#   push_metrics success|failure DURATION_SECONDS [SIZE_BYTES [NAME VALUE HELP ...]]
# The NAME VALUE HELP triples are gauges pushed with them (as push_gauges).
# Env: BACKUP_METRICS_PREFIX (default backup_cronjobs) starts every name;
# the grouping key is job=BACKUP_METRICS_JOB (default backup-cronjobs), then
# namespace=BACKUP_NAMESPACE, policy=BACKUP_POLICY, target=BACKUP_TARGET (each
# when set), then the "name=value ..." pairs of BACKUP_METRICS_LABELS (values:
# letters, digits, ".", "_", "-"). A Pushgateway behind authentication or a
# private CA: BACKUP_PUSHGATEWAY_USERNAME and BACKUP_PUSHGATEWAY_PASSWORD (basic
# auth) or BACKUP_PUSHGATEWAY_TOKEN (bearer), BACKUP_PUSHGATEWAY_CA_FILE (see _pm_curl).
# Metrics of the group (POST: a push replaces only the metrics it carries):
#   <prefix>_duration_seconds               gauge    duration of the last run, either result
#   <prefix>_last_run_success               gauge    1 after a success, 0 after a failure
#   <prefix>_success_total                  counter  successful runs
#   <prefix>_failure_total                  counter  failed runs
#   <prefix>_last_success_timestamp_seconds gauge    end of the last success (unix time); kept by failures
#   <prefix>_size_bytes                     gauge    size of the last stored backup; kept by failures
# The counters are read back from the gateway and pushed + 1: runs of one
# group never overlap (one CronJob per group, concurrencyPolicy Forbid). A
# gateway without --persistence.file restarts them at 0, a counter reset that
# rate() and increase() handle.
push_metrics() {
  _pm_group || return 0
  _pm_result=$1 _pm_duration=$2 _pm_size=${3:-}
  shift 2
  [ "$#" -eq 0 ] || shift
  [ "$#" -eq 0 ] || _pg_check "$@" || set --
  _pm_nl=$(printf '\nx') && _pm_nl=${_pm_nl%x}
  _pm_current=$(_pm_curl "$_pm_base/metrics" 2>&1) || {
    log warn "metrics not pushed: cannot read the current counters from $_pm_base/metrics: $(_pm_why "$_pm_current")"
    return 0
  }
  # Reads the group's counters back (0 when absent) and writes "<successes> <failures>" after this
  # run on the first line, then the metrics to push in Prometheus' text format.
  _pm_out=$(printf '%s\n' "$_pm_current" | _PM_LABELS=$_pm_labels _PM_PREFIX=$_pm_p _PM_RESULT=$_pm_result \
    _PM_DURATION=$_pm_duration _PM_SIZE=$_pm_size _PM_NOW=$(now_epoch) LC_ALL=C awk '
    function metric(name, type, help, value) {
      printf "# HELP %s_%s %s\n# TYPE %s_%s %s\n%s_%s %s\n", p, name, help, p, name, type, p, name, value
    }
    BEGIN {
      nw = split(ENVIRON["_PM_LABELS"], e, " ")
      for (i = 1; i <= nw; i++) { q = index(e[i], "="); want[substr(e[i], 1, q - 1) "=\"" substr(e[i], q + 1) "\""] = 1 }
      p = ENVIRON["_PM_PREFIX"]; s = p "_success_total"; f = p "_failure_total"; ns = 0; nf = 0
    }
    /^#/ { next }
    {
      b = index($0, "{"); c = index($0, "}")
      if (b == 0 || c < b) next
      name = substr($0, 1, b - 1)
      if (name != s && name != f) next
      m = split(substr($0, b + 1, c - b - 1), l, ","); n = 0
      for (i = 1; i <= m; i++) {
        if (l[i] == "instance=\"\"") continue
        if (!(l[i] in want)) next
        n++
      }
      if (n != nw) next
      v = substr($0, c + 1); sub(/^ +/, "", v); sub(/ .*$/, "", v)
      if (name == s) ns = v + 0; else nf = v + 0
    }
    END {
      ok = ENVIRON["_PM_RESULT"] == "success"
      if (ok) ns++; else nf++
      printf "%.0f %.0f\n", ns, nf
      metric("duration_seconds", "gauge", "Duration of the last backup run in seconds, successful or not.", ENVIRON["_PM_DURATION"])
      metric("last_run_success", "gauge", "1 if the last backup run succeeded, 0 if it failed.", ok ? 1 : 0)
      metric("success_total", "counter", "Successful backup runs.", sprintf("%.0f", ns))
      metric("failure_total", "counter", "Failed backup runs.", sprintf("%.0f", nf))
      if (ok) {
        metric("last_success_timestamp_seconds", "gauge", "End of the last successful backup run (unix time).", ENVIRON["_PM_NOW"])
        if (ENVIRON["_PM_SIZE"] != "") metric("size_bytes", "gauge", "Size of the last stored backup in bytes.", ENVIRON["_PM_SIZE"])
      }
    }')
  _pm_counts=${_pm_out%%"$_pm_nl"*} _pm_body=${_pm_out#*"$_pm_nl"}
  [ "$#" -eq 0 ] || _pm_body="$_pm_body$_pm_nl$(_pg_body "$@")"
  _pm_post=$(printf '%s\n' "$_pm_body" | _pm_curl -X POST --data-binary @- "$_pm_base/metrics/$_pm_path" 2>&1) || {
    log warn "metrics not pushed to $_pm_base/metrics/$_pm_path: $(_pm_why "$_pm_post")"
    return 0
  }
  info "metrics pushed to $_pm_base/metrics/$_pm_path ($_pm_result: ${_pm_counts% *} success(es), ${_pm_counts#* } failure(s))"
}

# Sets _pm_p (the metric prefix), _pm_base, _pm_path and _pm_labels (the
# run's grouping key); non-zero, after a warning where one is due, when
# nothing can be pushed.
_pm_group() {
  [ -n "${BACKUP_PUSHGATEWAY_URL:-}" ] || return 1
  _pm_p=${BACKUP_METRICS_PREFIX:-backup_cronjobs}
  _pm_base=${BACKUP_PUSHGATEWAY_URL%/}
  command -v curl >/dev/null 2>&1 || { log warn "metrics not pushed: no curl in this image"; return 1; }
  _pm_job=${BACKUP_METRICS_JOB:-backup-cronjobs}
  _pm_path="job/$_pm_job" _pm_labels="job=$_pm_job"
  for _pm_pair in ${BACKUP_NAMESPACE:+"namespace=$BACKUP_NAMESPACE"} ${BACKUP_POLICY:+"policy=$BACKUP_POLICY"} \
    ${BACKUP_TARGET:+"target=$BACKUP_TARGET"} ${BACKUP_METRICS_LABELS:-}; do
    _pm_name=${_pm_pair%%=*} _pm_value=${_pm_pair#*=}
    case $_pm_name in '' | [0-9]* | *[!A-Za-z0-9_]*) log warn "metrics not pushed: bad grouping label name in '$_pm_pair'"; return 1 ;; esac
    case $_pm_value in '' | *[!A-Za-z0-9._-]*) log warn "metrics not pushed: bad grouping label value in '$_pm_pair'"; return 1 ;; esac
    _pm_path="$_pm_path/$_pm_name/$_pm_value" _pm_labels="$_pm_labels $_pm_name=$_pm_value"
  done
}

# _pm_curl ARGS...: curl to the Pushgateway, at most 10 s, failing on an HTTP
# error, with the credentials and the CA bundle of the env. curl reads them
# from a config piped to its file descriptor 3, never from its arguments:
# another process of the pod can read a command line (/proc/PID/cmdline), not
# this. stdin stays the caller's (the body of a POST). Neither the config nor
# a credential is logged.
_pm_curl() {
  { _pm_curl_config | { curl -sS --fail --max-time 10 --config /dev/fd/3 "$@" 3<&0 <&4 4<&-; }; } 4<&0
}

# The curl config lines (cacert, user, header) for the env's CA bundle and
# credentials, each value quoted and escaped as curl's config syntax wants.
_pm_curl_config() {
  LC_ALL=C awk '
    function quoted(s,   out, i, c) {
      out = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c == "\\" || c == "\"") out = out "\\" c
        else if (c == "\n") out = out "\\n"
        else if (c == "\r") out = out "\\r"
        else if (c == "\t") out = out "\\t"
        else out = out c
      }
      return "\"" out "\""
    }
    BEGIN {
      user = ENVIRON["BACKUP_PUSHGATEWAY_USERNAME"]; password = ENVIRON["BACKUP_PUSHGATEWAY_PASSWORD"]
      token = ENVIRON["BACKUP_PUSHGATEWAY_TOKEN"]; ca = ENVIRON["BACKUP_PUSHGATEWAY_CA_FILE"]
      if (ca != "") print "cacert = " quoted(ca)
      if (user != "" || password != "") print "user = " quoted(user ":" password)
      if (token != "") print "header = " quoted("Authorization: Bearer " token)
    }'
}

# curl's error line in its OUTPUT (else the last line), with what to check
# for the errors a private endpoint gives: refused credentials, an untrusted
# certificate (curl explains that one in more lines after its error).
_pm_why() {
  _pm_last=$(printf '%s\n' "$1" | awk '/^curl: \(/ { e = $0 } { l = $0 } END { print (e != "" ? e : l) }')
  case $_pm_last in
    *'error: 401'* | *'error: 403'*)
      printf '%s (the Pushgateway refused the credentials: check the Secret of spec.metrics.basicAuthSecret or bearerTokenSecret)' "$_pm_last" ;;
    *'(60)'* | *'(77)'* | *certificate*)
      printf "%s (the Pushgateway's certificate is not trusted: set spec.metrics.caBundle to the CA that signs it)" "$_pm_last" ;;
    *) printf '%s' "$_pm_last" ;;
  esac
}

# Pushes gauges <prefix>_<NAME> to the run's group (the grouping key of
# push_metrics), replacing only those; never fails the run.
#   push_gauges NAME VALUE HELP [NAME VALUE HELP ...]
push_gauges() {
  _pm_group || return 0
  _pg_check "$@" || return 0
  _pm_post=$(_pg_body "$@" | _pm_curl -X POST --data-binary @- "$_pm_base/metrics/$_pm_path" 2>&1) || {
    log warn "metrics not pushed to $_pm_base/metrics/$_pm_path: $(_pm_why "$_pm_post")"
    return 0
  }
  info "metrics pushed to $_pm_base/metrics/$_pm_path ($(_pg_body "$@" | awk '!/^#/ { printf "%s%s", sep, $0; sep = ", " }'))"
}

# Non-zero, with a warning, unless every NAME is a metric name part, with at
# most one label whose value has no character outside [A-Za-z0-9._:-]
# (name{label="value"}), and every VALUE a number.
_pg_check() {
  while [ "$#" -ge 3 ]; do
    _pg_name=${1%%\{*} _pg_label=${1#"${1%%\{*}"}
    case $_pg_name in '' | [0-9]* | *[!a-z0-9_]*) log warn "metrics not pushed: bad gauge name '$1'"; return 1 ;; esac
    if [ -n "$_pg_label" ]; then
      _pg_key=${_pg_label#\{} _pg_value=${_pg_label#*=\"}
      _pg_key=${_pg_key%%=*} _pg_value=${_pg_value%\"\}}
      case $_pg_key$_pg_value in *[!A-Za-z0-9._:-]*) _pg_key='' ;; esac
      case $_pg_key in '' | [!a-z_]* | *[!a-z0-9_]*) log warn "metrics not pushed: bad gauge label in '$1'"; return 1 ;; esac
      [ "$_pg_label" = "{$_pg_key=\"$_pg_value\"}" ] || { log warn "metrics not pushed: bad gauge label in '$1'"; return 1; }
    fi
    case $2 in '' | *[!0-9.e+-]*) log warn "metrics not pushed: gauge $1 is not a number: '$2'"; return 1 ;; esac
    shift 3
  done
}

# The Prometheus text of push_gauges' arguments: HELP and TYPE once per name
# (the series of one name, with different labels, are given one after another).
_pg_body() {
  _pg_last=
  while [ "$#" -ge 3 ]; do
    _pg_name=${1%%\{*}
    [ "$_pg_name" = "$_pg_last" ] || printf '# HELP %s_%s %s\n# TYPE %s_%s gauge\n' "$_pm_p" "$_pg_name" "$3" "$_pm_p" "$_pg_name"
    printf '%s_%s %s\n' "$_pm_p" "$1" "$2"
    _pg_last=$_pg_name
    shift 3
  done
}
