#!/usr/bin/env bash
# with-postgres.sh CMD [ARGS...]
#
# Starts a throwaway PostgreSQL server (the machine's PostgreSQL 15 binaries)
# on a free loopback port with a temporary data directory, exports
# IDEMQ_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable,
# runs CMD, stops the server, removes the directory and exits with CMD's
# status. Chain it with the other with-*.sh scripts:
#
#   scripts/with-postgres.sh scripts/with-redis.sh go test ./...
#
# PostgreSQL refuses to run as root: as root, the server runs as the
# `postgres` user (IDEMQ_POSTGRES_USER), which owns the data directory.
# Authentication is `trust` on loopback only; durability is off (fsync,
# synchronous_commit, full_page_writes): a test database, lost on exit.
#
# It also exports IDEMQ_TEST_POSTGRES_RESTART, a command that crashes the
# server (pg_ctl's immediate stop: every connection cut, no checkpoint)
# and starts it again on the same port and data, waiting until it is up
# (make linearize's restarts). With IDEMQ_POSTGRES_DURABLE=1 commits are
# synchronous (synchronous_commit=on: a commit is acknowledged once its
# WAL is written, which a crash of the server keeps); without it a crash
# may lose the last commits it acknowledged.
#
# The binaries are looked up on PATH, then in /usr/lib/postgresql/*/bin
# (IDEMQ_POSTGRES_BIN overrides). It waits up to IDEMQ_POSTGRES_READY_TIMEOUT
# seconds (default 60) for the server, and prints its log if it does not
# come up.
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 CMD [ARGS...]" >&2
	exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
ready_timeout="${IDEMQ_POSTGRES_READY_TIMEOUT:-60}"

die() {
	echo "with-postgres: $*" >&2
	exit 1
}

bin="${IDEMQ_POSTGRES_BIN:-}"
if [[ -z "$bin" ]]; then
	if command -v initdb >/dev/null && command -v postgres >/dev/null; then
		bin="$(dirname "$(readlink -f "$(command -v postgres)")")"
	else
		for d in /usr/lib/postgresql/*/bin; do
			[[ -x "$d/postgres" ]] && bin="$d"
		done
	fi
fi
[[ -n "$bin" && -x "$bin/postgres" && -x "$bin/initdb" ]] ||
	die "PostgreSQL's server binaries (initdb, postgres) are not installed: apt-get install postgresql-15, or set IDEMQ_POSTGRES_BIN"

# as runs a command as the server's user: itself, or the postgres user
# when this is root.
run_as=()
if [[ $EUID -eq 0 ]]; then
	user="${IDEMQ_POSTGRES_USER:-postgres}"
	id "$user" >/dev/null 2>&1 || die "running as root and there is no user $user to run PostgreSQL as (it refuses root)"
	run_as=(runuser -u "$user" --)
fi

dir="$(mktemp -d "${TMPDIR:-/tmp}/idemq-postgres.XXXXXX")"
chmod 755 "$dir"
if [[ $EUID -eq 0 ]]; then
	chown "$user" "$dir"
fi
log="$dir/server.log"
pid=""
cleanup() {
	stop_pid "$pid"
	# A server the restart command started again is pg_ctl's.
	if [[ -f "$dir/data/postmaster.pid" && -x "$bin/pg_ctl" ]]; then
		"${run_as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
	fi
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${run_as[@]}" "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync --no-instructions >"$dir/initdb.log" 2>&1 || {
	echo "with-postgres: initdb failed; its output:" >&2
	show_log "$dir/initdb.log"
	exit 1
}

# ready reports whether the server on port $1 accepts connections.
ready() {
	if [[ -x "$bin/pg_isready" ]]; then
		"$bin/pg_isready" -q -h 127.0.0.1 -p "$1" -U postgres -t 2
	else
		grep -q "ready to accept connections" "$log" && (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
	fi
}

# start launches the server on port $1 and waits until it accepts
# connections (wait_ready).
start() {
	local port="$1"
	: >"$log"
	local sync=off
	[[ "${IDEMQ_POSTGRES_DURABLE:-}" == 1 ]] && sync=on
	"${run_as[@]}" "$bin/postgres" -D "$dir/data" -h 127.0.0.1 -p "$port" -k "$dir" \
		-c fsync=off -c synchronous_commit="$sync" -c full_page_writes=off \
		-c max_connections=300 -c shared_buffers=64MB >"$log" 2>&1 &
	pid=$!
	wait_ready "with-postgres: PostgreSQL" "$port" "$ready_timeout" "$log"
}

start_on_free_port "with-postgres: PostgreSQL" "$log"
echo "with-postgres: $("$bin/postgres" --version) on 127.0.0.1:$started (ready in ${ready_in}s)" >&2

export IDEMQ_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$started/postgres?sslmode=disable"

# The restart command: pg_ctl restarts the server with the options it was
# started with (postmaster.opts) and waits for it.
cat >"$dir/restart" <<RESTART
#!/usr/bin/env bash
set -euo pipefail
exec ${run_as[*]} "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 60 -l "$dir/restart.log" restart >/dev/null
RESTART
chmod 755 "$dir/restart"
export IDEMQ_TEST_POSTGRES_RESTART="$dir/restart"

status=0
"$@" || status=$?
exit "$status"
