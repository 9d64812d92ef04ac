#!/usr/bin/env bash
# cold-test.sh [REV]
#
# What a contributor's first `make test` costs: clones REV (HEAD by
# default) of this repository into a temporary directory and runs CI's
# command there (.ci/run, which is make test) with an empty Go build
# cache and an empty staticcheck cache, as a fresh machine has them. The
# module and npm download caches stay shared: downloading is the
# network's time, not the CPU's. make test prints its CPU-seconds by
# phase; this adds the load average before and after, since even
# CPU-seconds grow when other work shares the CPUs (results/make-test-time.md).
#
# The clone and the caches are removed afterwards; the CPU table is kept
# as results/tmp/cold-make-test-cpu.tsv.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
rev="${1:-HEAD}"

work="$(mktemp -d)"
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
git clone -q --no-hardlinks "$root" "$work/repo"
git -C "$work/repo" checkout -q "$(git rev-parse "$rev")"
mkdir -p "$work/gocache" "$work/xdg"

echo "cold make test of $(git rev-parse --short "$rev") in $work/repo; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
status=0
GOCACHE="$work/gocache" XDG_CACHE_HOME="$work/xdg" CI=true bash "$work/repo/.ci/run" || status=$?
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
mkdir -p "$root/results/tmp"
cp "$work/repo/results/tmp/make-test-cpu.tsv" "$root/results/tmp/cold-make-test-cpu.tsv" 2>/dev/null || true
exit "$status"
