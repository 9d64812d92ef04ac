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
#
# It also exports IDEMQ_TEST_REDIS_RESTART, a command that kills the
# server (SIGKILL: a crash) and starts it again on the same port and
# directory, waiting until it answers (make linearize's restarts). With
# IDEMQ_REDIS_DURABLE=1 the server keeps an append-only file synced on
# every write (appendfsync always), so a crash loses no write it
# acknowledged; without it a restart starts empty.
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
	# A server the restart command started again.
	if [[ -f "$dir/pid" ]]; then
		stop_pid "$(cat "$dir/pid")"
	fi
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

persistence=(--appendonly no)
if [[ "${IDEMQ_REDIS_DURABLE:-}" == 1 ]]; then
	persistence=(--appendonly yes --appendfsync always)
fi

# start launches the server on port $1 and waits until it answers
# (wait_ready).
start() {
	local port="$1"
	: >"$log"
	redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' "${persistence[@]}" \
		--daemonize no --protected-mode yes --logfile "$log" &
	pid=$!
	wait_ready "with-redis: redis-server" "$port" "$ready_timeout" "$log"
}

start_on_free_port "with-redis: redis-server" "$log"
echo "with-redis: $(redis-server --version | cut -d' ' -f1-3) on 127.0.0.1:$started (ready in ${ready_in}s)" >&2

export IDEMQ_TEST_REDIS_URL="redis://127.0.0.1:$started/0"

# The restart command: kill the server it finds (the first, or the one
# it started last, in $dir/pid), start the same server again, wait.
cat >"$dir/restart" <<RESTART
#!/usr/bin/env bash
set -euo pipefail
source "$here/lib.sh"
old="\$(cat "$dir/pid" 2>/dev/null || echo "$pid")"
kill -9 "\$old" 2>/dev/null || true
for _ in \$(seq 100); do kill -0 "\$old" 2>/dev/null || break; sleep 0.05; done
ready() {
	local reply
	reply="\$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/\$1" || exit 1
		printf 'PING\r\n' >&3
		timeout 2 head -c 5 <&3
	)" || return 1
	[[ "\$reply" == "+PONG" ]]
}
setsid redis-server --bind 127.0.0.1 --port "$started" --dir "$dir" --save '' ${persistence[*]} \
	--daemonize no --protected-mode yes --logfile "$log" </dev/null >/dev/null 2>&1 &
pid=\$!
echo "\$pid" >"$dir/pid"
wait_ready "restart: redis-server" "$started" "$ready_timeout" "$log"
RESTART
chmod 755 "$dir/restart"
export IDEMQ_TEST_REDIS_RESTART="$dir/restart"

status=0
"$@" || status=$?
exit "$status"
