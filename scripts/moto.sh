# moto.sh: sourced by with-s3.sh and with-sqs.sh, which each run a
# command with a throwaway moto_server (moto's server mode: pip install
# 'moto[server]'; it serves every AWS service moto emulates) on a free
# loopback port.
#
# with_moto NAME VAR TIMEOUT CMD [ARGS...] starts the server, waits up to
# TIMEOUT seconds for it to answer (printing its log if it does not),
# exports VAR=http://127.0.0.1:PORT, runs CMD, stops the server and exits
# with CMD's status; NAME prefixes its messages.
#
# Neither script exports AWS_ENDPOINT_URL_*: that would also redirect the
# requests of the CDK CLI and of the local deployment, which runs a moto
# of its own.

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

with_moto() {
	local name="$1" var="$2" ready_timeout="$3"
	shift 3
	if [[ $# -eq 0 ]]; then
		echo "usage: $name CMD [ARGS...]" >&2
		exit 2
	fi
	command -v moto_server >/dev/null || { echo "$name: moto_server is not installed: pip install 'moto[server]'" >&2; exit 1; }

	moto_dir="$(mktemp -d "${TMPDIR:-/tmp}/idemq-$name.XXXXXX")"
	moto_log="$moto_dir/server.log"
	moto_timeout="$ready_timeout"
	moto_name="$name"
	pid=""
	trap 'stop_pid "$pid"; rm -rf "$moto_dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM

	start_on_free_port "$name: moto_server" "$moto_log"
	echo "$name: moto_server on 127.0.0.1:$started (ready in ${ready_in}s)" >&2
	export "$var=http://127.0.0.1:$started"

	local status=0
	"$@" || status=$?
	exit "$status"
}

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
# (wait_ready), for lib.sh's start_on_free_port.
start() {
	local port="$1"
	: >"$moto_log"
	moto_server -H 127.0.0.1 -p "$port" >"$moto_log" 2>&1 &
	pid=$!
	wait_ready "$moto_name: moto_server" "$port" "$moto_timeout" "$moto_log"
}
