#!/usr/bin/env bash
# with-sqs.sh CMD [ARGS...]
#
# Starts a throwaway moto_server (moto's server mode: pip install
# 'moto[server]'), which serves SQS, on a free loopback port, exports
# IDEMQ_TEST_SQS_ENDPOINT=http://127.0.0.1:PORT, runs CMD, stops the server
# and exits with CMD's status.
#
#   scripts/with-sqs.sh go test ./consumer
#
# It exports no AWS_ENDPOINT_URL_SQS: that would also redirect the SQS
# requests of the local deployment, which runs a moto of its own. It waits up to IDEMQ_SQS_READY_TIMEOUT seconds (default 30) for the
# server to answer, and prints its log if it does not.
set -euo pipefail

if [[ $# -eq 0 ]]; then
	echo "usage: $0 CMD [ARGS...]" >&2
	exit 2
fi
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=lib.sh
source "$here/lib.sh"
ready_timeout="${IDEMQ_SQS_READY_TIMEOUT:-30}"

die() {
	echo "with-sqs: $*" >&2
	exit 1
}

command -v moto_server >/dev/null || die "moto_server is not installed: pip install 'moto[server]'"

dir="$(mktemp -d "${TMPDIR:-/tmp}/idemq-sqs.XXXXXX")"
log="$dir/server.log"
pid=""
cleanup() {
	stop_pid "$pid"
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ready reports whether the server on port $1 answers an HTTP request
# (moto's own API) with 200.
ready() {
	local reply
	reply="$(
		exec 2>/dev/null
		exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 1
		printf 'GET /moto-api/ HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n' >&3
		timeout 2 head -n 1 <&3
	)" || return 1
	[[ "$reply" == HTTP/1.?" 200"* ]]
}

# start launches the server on port $1 and waits until it answers
# (wait_ready).
start() {
	local port="$1"
	: >"$log"
	moto_server -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
	pid=$!
	wait_ready "with-sqs: moto_server" "$port" "$ready_timeout" "$log"
}

start_on_free_port "with-sqs: moto_server" "$log"
echo "with-sqs: moto_server on 127.0.0.1:$started (ready in ${ready_in}s)" >&2

export IDEMQ_TEST_SQS_ENDPOINT="http://127.0.0.1:$started"

status=0
"$@" || status=$?
exit "$status"
