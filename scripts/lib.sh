# lib.sh: helpers shared by the with-*.sh scripts that start a test server.
# Source it; it defines functions only.

# free_port asks the kernel for a free loopback port.
free_port() {
	if command -v python3 >/dev/null; then
		python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
		return
	fi
	# Fall back to a random port in the dynamic range that nothing answers on.
	local p
	for _ in $(seq 50); do
		p=$((49152 + RANDOM % 16000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	return 1
}

# stop_pid stops process $1: TERM, up to 5 s, then KILL.
stop_pid() {
	local pid="$1"
	[[ -n "$pid" ]] || return 0
	kill -0 "$pid" 2>/dev/null || return 0
	kill "$pid" 2>/dev/null || true
	for _ in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -9 "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# show_log prints file $1 indented, to stderr.
show_log() {
	sed 's/^/  | /' "$1" >&2
}
