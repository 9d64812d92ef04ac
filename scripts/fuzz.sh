#!/usr/bin/env bash
# fuzz.sh OUT TARGET... runs each Go fuzz target in turn for FUZZTIME
# (default 10m) and writes a summary table to OUT (Markdown) and stdout.
# A TARGET is DIR:FuzzName, DIR the package's directory from the
# repository's root (any module of go.work). A failure leaves its input in
# DIR/testdata/fuzz/FuzzName/ (go test replays it from then on) and makes
# the script exit 1 after the other targets ran.
set -uo pipefail

out=${1:?usage: fuzz.sh OUT DIR:FuzzName...}
shift
fuzztime=${FUZZTIME:-10m}
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT

# seconds turns a Go duration of whole seconds ("10m0s", "59s") into seconds.
seconds() {
	local d=$1 h=0 m=0 s=0
	[[ $d =~ ([0-9]+)h ]] && h=${BASH_REMATCH[1]}
	[[ $d =~ ([0-9]+)m ]] && m=${BASH_REMATCH[1]}
	[[ $d =~ ([0-9]+)s ]] && s=${BASH_REMATCH[1]}
	echo $((h * 3600 + m * 60 + s))
}

rows=()
failed=0
for target in "$@"; do
	dir=${target%%:*}
	name=${target#*:}
	if [[ -z $dir || -z $name || $dir == "$target" ]]; then
		echo "fuzz.sh: $target: want DIR:FuzzName" >&2
		exit 2
	fi
	log=$logs/$(echo "$target" | tr '/:' '__').log
	echo "== $dir $name for $fuzztime"
	start=$(date +%s)
	# A new go test per target: -fuzz takes one target of one package.
	(cd "$root" && go test -run '^$' -fuzz "^${name}\$" -fuzztime "$fuzztime" "./$dir/") >"$log" 2>&1
	status=$?
	secs=$(($(date +%s) - start))
	tail -n 3 "$log"
	# The last progress line: "fuzz: elapsed: 10m0s, execs: 123 (45/sec), new interesting: 6 (total: 78)".
	last=$(grep -E '^fuzz: elapsed: .*execs: ' "$log" | tail -n 1)
	elapsed=$(seconds "$(sed -nE 's/^fuzz: elapsed: ([0-9hms.]+),.*/\1/p' <<<"$last")")
	execs=$(sed -nE 's/.*execs: ([0-9]+).*/\1/p' <<<"$last")
	found=$(sed -nE 's/.*new interesting: ([0-9]+).*/\1/p' <<<"$last")
	total=$(sed -nE 's/.*\(total: ([0-9]+)\).*/\1/p' <<<"$last")
	rate="-"
	if [[ -n $execs && $elapsed -gt 0 ]]; then
		rate=$((execs / elapsed))
	fi
	result="none"
	if [[ $status -ne 0 ]]; then
		failed=1
		input=$(sed -nE 's/.*Failing input written to (.*)$/\1/p' "$log" | tail -n 1)
		why=$(grep -m1 -E '^\s+[a-z_]+\.go:[0-9]+: ' "$log" | sed -E 's/^\s+//' | cut -c1-160)
		result="**failed**: ${why:-see the log} (input: ${input:+$dir/}${input:-none written})"
	fi
	rows+=("| \`$dir\` | \`$name\` | ${elapsed} s (${secs} s with the build) | ${execs:--} | ${rate} | ${found:--} (corpus ${total:--}) | ${result//|/\\|} |")
done

{
	echo "# Fuzzing: \`make fuzz\`"
	echo
	echo "$(date -u +%Y-%m-%dT%H:%MZ), FUZZTIME=$fuzztime per target, $(go version | cut -d' ' -f3), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')."
	echo
	echo "| package | target | fuzzing time | executions | per second | new corpus entries | failure |"
	echo "|---|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
	echo
	echo "New corpus entries stay in Go's cache (\`go env GOCACHE\`/fuzz); a failing input is written to the package's testdata/fuzz/ and replayed by every go test from then on."
} >"$out"
echo
cat "$out"
exit $failed
