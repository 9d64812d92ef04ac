#!/usr/bin/env bash
# cputime.sh LABEL CMD [ARGS...]
#
# Runs CMD and prints, to stderr, the CPU time it and every process it
# waited for spent (the kernel's rusage of terminated children, as bash's
# `times` reports it: the servers the with-*.sh scripts start and stop,
# go's compilers, the test binaries and the programs they run), and the
# wall time:
#
#   LABEL: 512 CPU-seconds (user 401, sys 111), 330 s wall
#
# It exits with CMD's status. With IDEMQ_CPUTIME_LOG set to a file, it
# also appends "LABEL<TAB>user<TAB>sys<TAB>wall<TAB>start" there (start
# in Unix seconds), so that a caller can print a table (make test does).
#
# A process CMD leaves running, or that its parent never waits for, is
# not counted.
set -euo pipefail

if [[ $# -lt 2 ]]; then
	echo "usage: $0 LABEL CMD [ARGS...]" >&2
	exit 2
fi
label="$1"
shift

# children sets u and s to the user and sys seconds of this shell's
# terminated children, from the second line of `times` ("0m12.345s
# 0m1.234s"). `times` must run in this shell, not in a subshell (whose
# children are its own), so it writes to a file.
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
children() {
	times >"$tmp"
	local line
	line="$(sed -n 2p "$tmp")"
	read -r u s < <(awk '{
		split($1, u, /[ms]/); split($2, s, /[ms]/)
		printf "%.3f %.3f\n", u[1] * 60 + u[2], s[1] * 60 + s[2]
	}' <<<"$line")
}

children
u0=$u s0=$s
start=$EPOCHREALTIME
status=0
"$@" || status=$?
end=$EPOCHREALTIME
children
u1=$u s1=$s

awk -v label="$label" -v u="$(awk -v a="$u0" -v b="$u1" 'BEGIN { print b - a }')" \
	-v s="$(awk -v a="$s0" -v b="$s1" 'BEGIN { print b - a }')" \
	-v w="$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')" \
	-v start="$start" -v logfile="${IDEMQ_CPUTIME_LOG:-}" 'BEGIN {
	printf "%s: %d CPU-seconds (user %d, sys %d), %d s wall\n", label, u + s + 0.5, u + 0.5, s + 0.5, w + 0.5 > "/dev/stderr"
	if (logfile != "") printf "%s\t%.1f\t%.1f\t%.1f\t%s\n", label, u, s, w, start >> logfile
}'
exit "$status"
