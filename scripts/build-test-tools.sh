#!/bin/sh
# Builds the Go tools the tests run (the Kubernetes control plane, etcd) from the Go module proxy.
# Each tools/<name>/ is a small Go module whose go.mod lists the commands as `tool` directives
# (go.sum committed) and whose build.conf sets VERSION, LDFLAGS and BINARIES. A module may build
# main packages of its own instead: build.conf sets PACKAGES (default: tool) to their paths, and
# they are built from a copy of the module after `go generate` (with VERSION in its environment),
# so generated files never land in the repository. The binaries are cached outside the repository,
# by name, version and a hash of the module's files, so a second run builds nothing. A module may
# also (or only, with PACKAGES="") copy files of the modules it requires: COPY="module:path ..."
# puts each file, at the version go.mod pins, into share/ in the bin dir.
#
#   scripts/build-test-tools.sh [name ...]   build (default: every tools/*/)
#   scripts/build-test-tools.sh --dir name   print the cached bin dir; exit 1 if it is not built
#
# The cache: $BACKUP_CRONJOBS_TOOLS_CACHE, or ${XDG_CACHE_HOME:-$HOME/.cache}/backup-cronjobs/tools.
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
cache="${BACKUP_CRONJOBS_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backup-cronjobs/tools}"

fail() {
  echo "build-test-tools: $*" >&2
  exit 1
}

modules() {
  for d in "$root"/tools/*/; do
    d="${d%/}"
    echo "${d##*/}"
  done
}

conf() {
  if [ ! -f "$root/tools/$1/build.conf" ] || [ ! -f "$root/tools/$1/go.mod" ]; then
    fail "no tools module tools/$1 (known: $(modules | tr '\n' ' '))"
  fi
  VERSION="" LDFLAGS="" RENAME="" BINARIES="" COPY="" PACKAGES="tool"
  # shellcheck disable=SC1090
  . "$root/tools/$1/build.conf"
}

bin_dir() {
  # The module's own Go files (if any) count too; a module of tool directives only keeps its key.
  key="$(cd "$root/tools/$1" && find . -name '*.go' | LC_ALL=C sort | xargs cat go.mod go.sum build.conf | sha256sum | cut -c1-12)"
  echo "$cache/$1-$VERSION-$key/bin"
}

if [ "${1:-}" = "--dir" ]; then
  [ $# -eq 2 ] || fail "usage: $0 --dir name"
  conf "$2"
  dir="$(bin_dir "$2")"
  [ -f "$dir/.complete" ] || fail "tools/$2 ($VERSION) is not built: run scripts/build-test-tools.sh $2"
  echo "$dir"
  exit 0
fi

command -v go >/dev/null 2>&1 || fail "Go is not installed (need Go 1.26 or newer: the polyglot machine has it; on Debian: apt-get install golang-go, then check 'go version')"

names="$*"
[ -n "$names" ] || names="$(modules)"
for name in $names; do
  conf "$name"
  dir="$(bin_dir "$name")"
  if [ -f "$dir/.complete" ]; then
    echo "tools/$name $VERSION: cached in $dir"
    continue
  fi
  echo "tools/$name $VERSION: building $BINARIES (cold: minutes) into $dir"
  start=$(date +%s)
  tmp="$dir.tmp.$$"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  src="$root/tools/$name"
  if [ -n "$PACKAGES" ] && [ "$PACKAGES" != tool ]; then
    src="$dir.src.$$"
    rm -rf "$src"
    cp -R "$root/tools/$name" "$src"
  fi
  # -mod=readonly: the committed go.sum must already hold every module (no silent re-resolution).
  # shellcheck disable=SC2086 # PACKAGES is a list
  if [ -n "$PACKAGES" ] && ! (cd "$src" && export CGO_ENABLED=0 GOFLAGS=-mod=readonly && { [ "$PACKAGES" = tool ] || VERSION="$VERSION" go generate $PACKAGES; } &&
    go build -trimpath -ldflags "-s -w $LDFLAGS" -o "$tmp/" $PACKAGES); then
    rm -rf "$tmp"
    [ "$PACKAGES" = tool ] || rm -rf "$src"
    fail "go build of tools/$name failed (see above). A module the Go module proxy does not serve is named in a 'reading https://…: 403/404' line: pick a version it serves in tools/$name/go.mod, run 'go mod tidy' there and commit go.mod and go.sum"
  fi
  [ "$src" = "$root/tools/$name" ] || rm -rf "$src"
  for pair in $COPY; do
    mod="${pair%%:*}"
    src="$(cd "$root/tools/$name" && GOFLAGS=-mod=readonly go mod download -json "$mod" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
    if [ -z "$src" ] || [ ! -f "$src/${pair#*:}" ]; then
      fail "tools/$name: no ${pair#*:} in $mod (go mod download failed, or the file moved)"
    fi
    mkdir -p "$tmp/share"
    cp "$src/${pair#*:}" "$tmp/share/"
  done
  for pair in $RENAME; do mv "$tmp/${pair%%:*}" "$tmp/${pair#*:}"; done
  for b in $BINARIES; do [ -x "$tmp/$b" ] || fail "tools/$name built no $b"; done
  touch "$tmp/.complete"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  echo "tools/$name $VERSION: built in $(($(date +%s) - start)) s"
done
