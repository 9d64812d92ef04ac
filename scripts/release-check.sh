#!/usr/bin/env bash
# release-check.sh VERSION [BASE]: may the repository's modules be released
# as VERSION?
#
# The repository's modules are released together (as river's are): every
# module of the workspace but harness/ is tagged VERSION at one commit, the
# root as VERSION, a nested module as its directory/VERSION (Go finds the
# version of github.com/idemq/idemq/idem/dynamostore in the tag
# idem/dynamostore/vX.Y.Z), and every module requires the repository's
# other modules at VERSION. For each module the script
#   - compares its exported API at HEAD with BASE (default: the module's
#     newest tag, DIR/v* or, for the root, v*; for a module carved out of
#     the root since, the root's newest tag, package by package; none: its
#     first release) using apidiff, and, for the modules the stability
#     promise in CHANGELOG.md covers, checks that
#       - an incompatible change comes with a new major version (at v0: a
#         new minor);
#       - a compatible addition comes with at least a new minor;
#   - checks that its go.mod requires the repository's modules at VERSION
#     (printing the go mod edit commands that do it when not);
# checks that CHANGELOG.md has a section "## [VERSION]", and prints the
# tags the release needs. Exits 1 when VERSION is not allowed.
# APIDIFF names the apidiff binary (make release-check installs it).
set -euo pipefail

version=${1:?usage: release-check.sh VERSION [BASE]}
root=$(git rev-parse --show-toplevel)
cd "$root"
apidiff=${APIDIFF:-apidiff}
# Modules never tagged: the proofs and the benchmark, the release tool, and
# the example app (docs/deploy.md); nothing a user builds imports them
# (tools/release/module.go names the same).
unreleased=" harness tools/release examples/existing-app "
# Modules whose API the stability promise does not cover (CHANGELOG.md):
# their API changes are shown, not ruled on. So are the modules under
# internal/ (the test helpers that import a driver). The CDK constructs
# (infra/idemqcdk) are in the promise from v1.0.0.
uncovered=" lambda "
# Packages the promise does not cover, by directory: the handler's test
# setup, public only because the DynamoDB module's handler tests share it
# with handler's own (Go has no internal/ both can import). Their API
# changes are shown, not ruled on.
uncovered_pkgs=" handler/handlertest/handlerbundle "

if [[ ! $version =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
	echo "release-check: $version is not a version vMAJOR.MINOR.PATCH" >&2
	exit 1
fi
new=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")

if ! grep -qE "^## \[${version//./\\.}\]" CHANGELOG.md; then
	echo "release-check: CHANGELOG.md has no section \"## [$version]\"" >&2
	exit 1
fi

# The modules: every go.mod in the repository (go.work lists the same
# ones; make modules-check checks it), as "dir path" pairs, the root's dir
# being ".".
modules=()
while read -r gomod; do
	dir=$(dirname "$gomod")
	[[ $unreleased == *" $dir "* ]] && continue
	modules+=("$dir $(cd "$dir" && GOWORK=off go list -m)")
done < <(git ls-files '*go.mod' ':!:**/node_modules/**' | sort)
paths=()
for m in "${modules[@]}"; do paths+=("${m#* }"); done

tmp=$(mktemp -d)
trap 'git worktree remove --force "$tmp/old" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
quiet() { grep -v '^Ignoring internal package' >&2 || true; }

# uncovered_pkg DIR MODPATH PKGPATH: is the package PKGPATH of the module
# MODPATH in DIR one of uncovered_pkgs?
uncovered_pkg() {
	local rel=${3#"$2"}
	rel=${rel#/}
	[[ $1 != . ]] && rel=$1${rel:+/$rel}
	[[ $uncovered_pkgs == *" $rel "* ]]
}

# covered REPORT DIR MODPATH: apidiff's module REPORT for the module
# MODPATH in DIR without the lines of uncovered packages ("- ./pkg.Name:
# ..." or "- package path: ..."), which go to $tmp/uncovered; a section
# left empty goes.
covered() {
	local line pkg out="" section="" body=""
	while IFS= read -r line; do
		case $line in
		"Incompatible changes:" | "Compatible changes:")
			[[ -n $body ]] && out+="$section"$'\n'"$body"
			section=$line body=""
			continue
			;;
		"- ./"*) pkg=${line#- ./} pkg=$3/${pkg%%.*} ;;
		"- package "*) pkg=${line#- package } pkg=${pkg%%:*} ;;
		*) pkg="" ;;
		esac
		if [[ -n $pkg ]] && uncovered_pkg "$2" "$3" "$pkg"; then
			echo "  (not covered by the stability promise) $line" >>"$tmp/uncovered"
			continue
		fi
		body+="$line"$'\n'
	done <<<"$1"
	[[ -n $body ]] && out+="$section"$'\n'"$body"
	printf '%s' "$out"
}

# apidiff loads a module's packages on its own, where a go.mod requiring
# the others at a version not yet published cannot build, and no go.mod
# holds a replace directive: workfile TREE DIR prints the path of a
# go.work that uses TREE/DIR alone and replaces each other module of TREE
# with its directory there, for GOWORK (GOFLAGS emptied: a workspace
# refuses -mod=mod). Not GOFLAGS=-modfile: apidiff's loader runs one go
# list with GO111MODULE=off, which refuses that flag.
gover=$(go env GOVERSION)
workfile() {
	local tree=$1 dir=$2 out gomod d p
	out=$(mktemp -d "$tmp/work.XXXXXX")
	{
		echo "go ${gover#go}"
		echo
		echo "use $tree/$dir"
		while read -r gomod; do
			d=$(dirname "$gomod")
			[[ $d == "$dir" ]] && continue
			p=$(awk '$1 == "module" { print $2; exit }' "$tree/$gomod")
			echo "replace $p => $tree/$d"
		done < <(cd "$tree" && git ls-files --cached --others --exclude-standard '*go.mod' ':!:**/node_modules/**')
	} >"$out/go.work"
	echo "$out/go.work"
}

failed=false
tags=()
edits=()
for m in "${modules[@]}"; do
	dir=${m%% *} path=${m#* }
	prefix=""
	[[ $dir != . ]] && prefix="$dir/"
	tags+=("$prefix$version")

	# Its requirements of the repository's modules must be VERSION.
	while read -r req ver; do
		for p in "${paths[@]}"; do
			if [[ $req == "$p" && $ver != "$version" ]]; then
				edits+=("go mod edit -require=$req@$version $dir/go.mod")
			fi
		done
	done < <(awk '/^require \(/ { block = 1; next } block && /^\)/ { block = 0; next } block { print $1, $2; next } /^require / { print $2, $3 }' "$dir/go.mod")

	# Its last release: its own newest tag; for a module carved out of the
	# root, the root's, whose module held its packages then.
	base=${2:-$(git describe --tags --abbrev=0 --match "${prefix}v*" 2>/dev/null || true)}
	oldprefix=$prefix
	if [[ -z $base && -n $prefix ]]; then
		base=$(git describe --tags --abbrev=0 --match 'v*' 2>/dev/null || true)
		oldprefix=""
	fi
	if [[ -z $base ]]; then
		echo "$path: no earlier release: $version is its first"
		continue
	fi
	rm -rf "$tmp/old" && git worktree prune
	git worktree add --quiet --detach "$tmp/old" "$base"
	if [[ -f $tmp/old/$dir/go.mod ]]; then
		(cd "$tmp/old/$dir" && GOFLAGS= GOWORK="$(workfile "$tmp/old" "$dir")" "$apidiff" -m -w "$tmp/old.api" "$path") 2>&1 | quiet
		(cd "$dir" && GOFLAGS= GOWORK="$(workfile "$root" "$dir")" "$apidiff" -m -w "$tmp/new.api" "$path") 2>&1 | quiet
		report=$(covered "$("$apidiff" -m "$tmp/old.api" "$tmp/new.api" 2> >(quiet))" "$dir" "$path")
	elif [[ -d $tmp/old/$dir ]]; then
		# A module now, packages of the root module at base: compare them
		# one by one.
		echo "$path: its packages were the root module's at $base"
		report=""
		newwork=$(workfile "$root" "$dir")
		oldwork=$(workfile "$tmp/old" .)
		for pkg in $(cd "$dir" && GOFLAGS= GOWORK="$newwork" go list ./... | grep -v '/internal/'); do
			rel=${pkg#"$path"}
			if uncovered_pkg "$dir" "$path" "$pkg"; then
				echo "  (not covered by the stability promise) $pkg"
				continue
			fi
			if [[ -d $tmp/old/$dir$rel ]]; then
				(cd "$tmp/old" && GOFLAGS= GOWORK="$oldwork" "$apidiff" -w "$tmp/old.api" "$pkg") 2>&1 | quiet
			else
				: >"$tmp/old.api"
			fi
			(cd "$dir" && GOFLAGS= GOWORK="$newwork" "$apidiff" -w "$tmp/new.api" "$pkg") 2>&1 | quiet
			if [[ -s $tmp/old.api ]]; then
				one=$("$apidiff" "$tmp/old.api" "$tmp/new.api")
			else
				one="Compatible changes:
- package added"
			fi
			[[ -n $one ]] && report+="$pkg:"$'\n'"$one"$'\n'
		done
	else
		echo "$path: new since $base: $version is its first release"
		git worktree remove --force "$tmp/old"
		continue
	fi
	git worktree remove --force "$tmp/old"
	echo "API of $path, $base → $version:"
	echo "${report:-  no change}"
	if [[ -s $tmp/uncovered ]]; then
		cat "$tmp/uncovered"
		: >"$tmp/uncovered"
	fi
	if [[ $uncovered == *" $dir "* || $dir == internal/* ]]; then
		echo "  (not covered by the stability promise: no version rule applied)"
		continue
	fi

	incompatible=false compatible=false
	if grep -q '^Incompatible changes:' <<<"$report"; then incompatible=true; fi
	if grep -q '^Compatible changes:' <<<"$report"; then compatible=true; fi
	if [[ ! ${base#"$oldprefix"} =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
		echo "$path: compared with $base (not a release): no version rule applied"
		continue
	fi
	old=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[3]}")
	major_up=$((new[0] > old[0]))
	minor_up=$((new[0] == old[0] && new[1] > old[1]))
	patch_up=$((new[0] == old[0] && new[1] == old[1] && new[2] > old[2]))
	if ((!major_up && !minor_up && !patch_up)); then
		echo "release-check: $path: $version does not come after $base" >&2
		failed=true
	elif $incompatible && ((!major_up)) && ! ((old[0] == 0 && minor_up)); then
		echo "release-check: $path: incompatible changes need a new major version (at v0, a new minor): $version after $base" >&2
		failed=true
	elif $compatible && ((patch_up)); then
		echo "release-check: $path: API additions need a new minor version: $version after $base" >&2
		failed=true
	else
		echo "$path: $version may follow $base"
	fi
done

if ((${#edits[@]})); then
	echo "release-check: the release's go.mod files must require the repository's modules at $version; commit the result of:" >&2
	printf '  %s\n' "${edits[@]}" >&2
	failed=true
fi
if $failed; then
	exit 1
fi
echo "release-check: $version may be released; tag the commit, then push the tags:"
printf '  git tag %s\n' "${tags[@]}"
echo "  git push origin ${tags[*]}"
