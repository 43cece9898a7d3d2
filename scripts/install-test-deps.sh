#!/bin/sh
# Installs what the test suite runs for real (idempotent; the Debian packages need root or sudo):
#   1. the Debian packages (Redis, etcd 3.4, the Pushgateway, Prometheus, the aws CLI, python3-venv, Maven and
#      a JDK for the jsii module's tests in Python and Java, ...);
#   2. the Go tools built from the Go module proxy (scripts/build-test-tools.sh: the Kubernetes control
#      plane, etcd 3.5 and 3.6, ...), cached by version outside the repository;
#   3. moto's S3 server from PyPI (scripts/install-moto.sh), in a venv outside the repository.
set -eu
here="$(cd "$(dirname "$0")" && pwd)"
packages="util-linux mount busybox redis-server redis-sentinel redis-tools etcd-server etcd-client prometheus-pushgateway prometheus awscli shellcheck openssl curl gzip age chromium time python3-venv maven openjdk-17-jdk-headless"
missing=""
for p in $packages; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -z "$missing" ]; then
  echo "test dependencies present"
else
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  echo "installing:$missing"
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
fi
"$here/build-test-tools.sh"
"$here/install-moto.sh"
