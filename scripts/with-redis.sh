#!/usr/bin/env bash
# with-redis.sh CMD [ARGS...]
#
# Starts a throwaway redis-server (Debian's package: `make deps-redis`
# installs it) on a free loopback port with a temporary directory and no
# persistence, exports IDEMQ_TEST_REDIS_URL=redis://127.0.0.1:PORT/0, runs
# CMD, stops the server, removes the directory and exits with CMD's status.
#
#   scripts/with-redis.sh go test ./idem/redisstore
#
# It waits up to IDEMQ_REDIS_READY_TIMEOUT seconds (default 30) for the
# server to answer PING, and prints its log if it does not.
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 CMD [ARGS...]" >&2
	exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
ready_timeout="${IDEMQ_REDIS_READY_TIMEOUT:-30}"

die() {
	echo "with-redis: $*" >&2
	exit 1
}

command -v redis-server >/dev/null || die "redis-server is not installed: run make deps-redis (apt-get install redis-server)"

dir="$(mktemp -d "${TMPDIR:-/tmp}/idemq-redis.XXXXXX")"
log="$dir/server.log"
pid=""
cleanup() {
	stop_pid "$pid"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ready reports whether the server on port $1 answers PING (+PONG).
ready() {
	local reply
	reply="$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'PING\r\n' >&3
		timeout 2 head -c 5 <&3
	)" || return 1
	[[ "$reply" == "+PONG" ]]
}

# start launches the server on port $1 and waits until it answers
# (wait_ready).
start() {
	local port="$1"
	: >"$log"
	redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
		--daemonize no --protected-mode yes --logfile "$log" &
	pid=$!
	wait_ready "with-redis: redis-server" "$port" "$ready_timeout" "$log"
}

start_on_free_port "with-redis: redis-server" "$log"
echo "with-redis: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$started (ready in ${ready_in}s)" >&2

export IDEMQ_TEST_REDIS_URL="redis://127.0.0.1:$started/0"

status=0
"$@" || status=$?
exit "$status"
