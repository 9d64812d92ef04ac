#!/usr/bin/env bash
# cputime-exec.sh BINARY [ARGS...]
#
# go test -exec's program: runs a test binary through cputime.sh, labelled
# with its package's directory (where go test runs it) from the
# repository's root, so that make test can say what running each
# package's tests cost (compiling and linking them is go test's own).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="$(realpath --relative-to="$here/.." "$PWD")"
exec "$here/cputime.sh" "    $dir" "$@"
