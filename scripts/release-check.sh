#!/usr/bin/env bash
# release-check.sh VERSION [BASE]: may the root module be released as VERSION?
#
# Compares the exported API of the module at HEAD with BASE (default: the
# newest tag v*; none: a first release) using apidiff, and checks what the
# stability promise in CHANGELOG.md says:
#   - an incompatible change needs a new major version (at v0: a new minor);
#   - a compatible addition needs at least a new minor;
#   - CHANGELOG.md has a section "## [VERSION]".
# Prints apidiff's report. Exits 1 when VERSION is not allowed.
# APIDIFF names the apidiff binary (make release-check installs it).
set -euo pipefail

version=${1:?usage: release-check.sh VERSION [BASE]}
root=$(git rev-parse --show-toplevel)
cd "$root"
apidiff=${APIDIFF:-apidiff}
module=$(go list -m)

if [[ ! $version =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "release-check: $version is not a version vMAJOR.MINOR.PATCH" >&2
	exit 1
fi
new=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")

if ! grep -qE "^## \[${version//./\\.}\]" CHANGELOG.md; then
	echo "release-check: CHANGELOG.md has no section \"## [$version]\"" >&2
	exit 1
fi

base=${2:-$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)}
if [[ -z $base ]]; then
	echo "release-check: no earlier release: $version is the first"
	exit 0
fi

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --quiet --detach "$tmp/old" "$base"
quiet() { grep -v '^Ignoring internal package' >&2 || true; }
(cd "$tmp/old" && "$apidiff" -m -w "$tmp/old.api" "$module") 2> >(quiet)
"$apidiff" -m -w "$tmp/new.api" "$module" 2> >(quiet)
report=$("$apidiff" -m "$tmp/old.api" "$tmp/new.api")
echo "API of $module, $base → $version:"
echo "${report:-  no change}"

incompatible=false compatible=false
if grep -q '^Incompatible changes:' <<<"$report"; then incompatible=true; fi
if grep -q '^Compatible changes:' <<<"$report"; then compatible=true; fi

if [[ ! $base =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "release-check: compared with $base (not a release): no version rule applied"
	exit 0
fi
old=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
major_up=$((new[0] > old[0]))
minor_up=$((new[0] == old[0] && new[1] > old[1]))
patch_up=$((new[0] == old[0] && new[1] == old[1] && new[2] > old[2]))
if ((!major_up && !minor_up && !patch_up)); then
	echo "release-check: $version does not come after $base" >&2
	exit 1
fi
if $incompatible && ((!major_up)) && ! ((old[0] == 0 && minor_up)); then
	echo "release-check: incompatible changes need a new major version (at v0, a new minor): $version after $base" >&2
	exit 1
fi
if $compatible && ((patch_up)); then
	echo "release-check: API additions need a new minor version: $version after $base" >&2
	exit 1
fi
echo "release-check: $version may follow $base"
