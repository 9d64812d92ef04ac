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

# wait_ready NAME PORT TIMEOUT LOG: waits until `ready PORT` (a function
# the caller defines) succeeds while the server ($pid) runs. It returns 1
# if the server exited (say, the port was taken in between), and exits 1,
# showing LOG, if it is not ready in TIMEOUT seconds.
wait_ready() {
	local name="$1" port="$2" timeout="$3" log="$4"
	local deadline=$((SECONDS + timeout))
	until ready "$port"; do
		if ! kill -0 "$pid" 2>/dev/null; then
			wait "$pid" 2>/dev/null || true
			pid=""
			return 1
		fi
		if ((SECONDS >= deadline)); then
			echo "$name did not answer on 127.0.0.1:$port within ${timeout}s; its log:" >&2
			show_log "$log"
			exit 1
		fi
		sleep 0.1
	done
}

# start_on_free_port NAME LOG: calls `start PORT` (a function the caller
# defines, returning 1 if the server exited during start-up) on a free
# port, up to three times, and sets started to the port it runs on and
# ready_in to the seconds it took. It exits 1 if the server would not
# start.
start_on_free_port() {
	local name="$1" log="$2" port t0 attempt
	started=""
	for attempt in 1 2 3; do
		port="$(free_port)" || {
			echo "$name: could not find a free port on 127.0.0.1" >&2
			exit 1
		}
		t0=$SECONDS
		if start "$port"; then
			started="$port"
			ready_in=$((SECONDS - t0))
			return 0
		fi
		echo "$name exited during start-up (attempt $attempt, port $port); its log:" >&2
		show_log "$log"
	done
	echo "$name would not start" >&2
	exit 1
}
