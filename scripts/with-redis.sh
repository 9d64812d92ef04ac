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

start() {
	local port="$1"
	: >"$log"
	redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
		--daemonize no --protected-mode yes --logfile "$log" &
	pid=$!
	local deadline=$((SECONDS + ready_timeout))
	until ready "$port"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			pid=""
			return 1
		fi
		if ((SECONDS >= deadline)); then
			echo "with-redis: redis-server did not answer on 127.0.0.1:$port within ${ready_timeout}s; its log:" >&2
			show_log "$log"
			exit 1
		fi
		sleep 0.1
	done
}

started=""
for attempt in 1 2 3; do
	port="$(free_port)" || die "could not find a free port on 127.0.0.1"
	t0=$SECONDS
	if start "$port"; then
		started="$port"
		break
	fi
	echo "with-redis: redis-server exited during start-up (attempt $attempt, port $port); its log:" >&2
	show_log "$log"
done
[[ -n "$started" ]] || die "redis-server would not start"
echo "with-redis: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$started (ready in $((SECONDS - t0))s)" >&2

export IDEMQ_TEST_REDIS_URL="redis://127.0.0.1:$started/0"

status=0
"$@" || status=$?
exit "$status"
