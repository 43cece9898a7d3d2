#!/bin/sh
# Builds the jsii module of the cdk8s constructs (jsii/): the core packed (npm pack, its prepack build) and
# bundled, then jsii and jsii-pacmak. The output is cached by a hash of the inputs, so a test run builds once:
#   ${XDG_CACHE_HOME:-~/.cache}/backup-cronjobs/jsii/<hash>/dist/{python,js[,java,go]}
# with core/, the core's package as npm ships it (what the TypeScript constructs of the same build render), and
# the last line printed (stdout) is that directory; everything else goes to stderr.
#
# Usage: scripts/build-jsii.sh [--head] [--all-targets]
#   --head         pack the core from the commit HEAD (git archive) instead of the working tree (its tracked
#                  and untracked, not ignored, files of the core's paths: the default, so that a test run checks
#                  the sources it runs with). jsii/ itself is always the working tree's.
#   --all-targets  Java (Maven artifact) and Go (module) too, besides Python (needs mvn and go).
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
export JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION=20 CDK8S_CHECK_UPGRADE=false

from=worktree
targets="js python"
for arg in "$@"; do
  case "$arg" in
    --head) from="head" ;;
    --all-targets) targets="js python java go" ;;
    *)
      echo "usage: $0 [--head] [--all-targets]" >&2
      exit 2
      ;;
  esac
done

# What `npm run build` (the core's prepack) reads, and what `npm pack` ships besides dist/.
core_paths="package.json tsconfig.json README.md LICENSE bin lib constructs cdk8s pulumi scripts/copy-assets.js"
jsii_paths="jsii/package.json jsii/package-lock.json jsii/.npmrc jsii/README.md jsii/src"

cd "$root"
# The files of some paths in the working tree that exist (a deleted but tracked file is not one).
worktree_files() {
  # shellcheck disable=SC2086
  git ls-files --cached --others --exclude-standard -- "$@" | sort -u | while IFS= read -r f; do
    if [ -f "$f" ]; then printf '%s\n' "$f"; fi
  done
}

inputs="$(mktemp)"
trap 'rm -f "$inputs"' EXIT
{
  echo "node $(node --version) targets $targets from $from"
  sha256sum scripts/build-jsii.sh
  # shellcheck disable=SC2086
  worktree_files $jsii_paths | xargs sha256sum
  if [ "$from" = head ]; then
    # shellcheck disable=SC2086
    git ls-tree -r HEAD -- $core_paths
  else
    # shellcheck disable=SC2086
    worktree_files $core_paths | xargs sha256sum
  fi
} >"$inputs"
hash="$(sha256sum <"$inputs" | cut -c1-16)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/backup-cronjobs/jsii"
out="$cache/$hash"
if [ -f "$out/done" ]; then
  touch "$out"
  echo "jsii module cached: $out" >&2
  echo "$out"
  exit 0
fi

mkdir -p "$cache"
work="$(mktemp -d "$cache/build.XXXXXX")"
trap 'rm -f "$inputs"; rm -rf "$work"' EXIT
started="$(date +%s)"
step() {
  echo "build-jsii: $* ($(($(date +%s) - started))s)" >&2
}

# 1. The core's package, as npm ships it: packed from a copy of its sources (the copy's prepack builds it;
#    the repository's own dist/ is left alone), unpacked into the jsii package's .core (its file: dependency).
step "core from $from"
mkdir "$work/src" "$work/pkg"
if [ "$from" = head ]; then
  # shellcheck disable=SC2086
  git archive HEAD -- $core_paths | tar -x -C "$work/src"
else
  # shellcheck disable=SC2086
  worktree_files $core_paths | tar -c -T - -f - | tar -x -C "$work/src"
fi
ln -s "$root/node_modules" "$work/src/node_modules"
(cd "$work/src" && npm pack --loglevel=error --pack-destination "$work") >&2
mkdir "$work/pkg/.core"
tar -xzf "$work"/backup-cronjobs-*.tgz -C "$work/pkg/.core" --strip-components=1

# 2. The jsii package: its locked dependencies (the core copied, not linked: .npmrc install-links), jsii,
#    jsii-pacmak.
step "jsii package"
# shellcheck disable=SC2086
worktree_files $jsii_paths | tar -c -T - -f - | tar -x -C "$work/pkg" --strip-components=1
cd "$work/pkg"
npm ci --no-audit --no-fund --loglevel=error >&2
step "jsii"
npx --no-install jsii >&2
step "jsii-pacmak --targets $targets"
# shellcheck disable=SC2086
npx --no-install jsii-pacmak --targets $targets >&2

mkdir -p "$out.tmp.$$"
mv dist "$out.tmp.$$/dist"
cp .jsii "$out.tmp.$$/.jsii"
cp -R .core "$out.tmp.$$/core"
cp "$inputs" "$out.tmp.$$/inputs"
touch "$out.tmp.$$/done"
cd "$root"
if [ -e "$out" ]; then
  # built meanwhile by another run: keep that one
  rm -rf "$out.tmp.$$"
else
  mv "$out.tmp.$$" "$out"
fi
# the newest builds stay (one per recent state of the sources), older ones go
# shellcheck disable=SC2012,SC2010
ls -t "$cache" | grep -E '^[0-9a-f]{16}$' | tail -n +6 | while IFS= read -r old; do rm -rf "${cache:?}/$old"; done
step "done: $out"
echo "$out"
