#!/bin/sh
# Installs moto's standalone server (PyPI moto[server], pinned) that the S3 Object Lock and
# versioning tests run against (test/support/services/moto.ts). Idempotent: a venv outside the
# repository, by version, so a second run installs nothing.
#
#   scripts/install-moto.sh          install (needs python3 with venv, and PyPI)
#   scripts/install-moto.sh --dir    print the venv's bin dir (holding moto_server); exit 1 if not installed
#
# The venv: $BACKUP_CRONJOBS_MOTO_DIR, or ${XDG_CACHE_HOME:-$HOME/.cache}/backup-cronjobs/moto-<version>.
# The Python: $PYTHON, or python3.
set -eu
MOTO_VERSION=5.2.5
dir="${BACKUP_CRONJOBS_MOTO_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/backup-cronjobs/moto-$MOTO_VERSION}"
python="${PYTHON:-python3}"

fail() {
  echo "install-moto: $*" >&2
  exit 1
}

if [ "${1:-}" = "--dir" ]; then
  if [ ! -f "$dir/.complete" ] || [ ! -x "$dir/bin/moto_server" ]; then
    fail "moto[server]==$MOTO_VERSION is not installed in $dir: run scripts/install-moto.sh"
  fi
  echo "$dir/bin"
  exit 0
fi
[ $# -eq 0 ] || fail "usage: $0 [--dir]"

if [ -f "$dir/.complete" ] && [ -x "$dir/bin/moto_server" ]; then
  echo "moto[server] $MOTO_VERSION: installed in $dir"
  exit 0
fi

command -v "$python" >/dev/null 2>&1 || fail "$python is not installed (on Debian: apt-get install -y --no-install-recommends python3 python3-venv)"
echo "moto[server] $MOTO_VERSION: installing into $dir"
start=$(date +%s)
# a venv's scripts name its own path, so it is made in place; .complete marks it whole
rm -rf "$dir"
mkdir -p "$(dirname "$dir")"
if ! "$python" -m venv "$dir"; then
  rm -rf "$dir"
  fail "$python -m venv failed (on Debian: apt-get install -y --no-install-recommends python3-venv)"
fi
if ! "$dir/bin/python" -m pip install --quiet --disable-pip-version-check --no-input "moto[server]==$MOTO_VERSION"; then
  rm -rf "$dir"
  fail "pip could not install moto[server]==$MOTO_VERSION from PyPI"
fi
"$dir/bin/moto_server" --help >/dev/null || fail "moto_server does not run from $dir"
touch "$dir/.complete"
echo "moto[server] $MOTO_VERSION: installed in $dir ($(($(date +%s) - start)) s)"
