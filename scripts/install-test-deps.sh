#!/bin/sh
# Installs the Debian packages the test suite runs for real (idempotent; needs root or sudo).
set -eu
packages="util-linux mount busybox redis-server redis-sentinel redis-tools etcd-server etcd-client prometheus-pushgateway prometheus awscli shellcheck openssl curl gzip age chromium time"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "test dependencies present"
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
echo "installing:$missing"
$sudo apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
