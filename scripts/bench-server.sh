# shellcheck shell=bash disable=SC2034  # the pins are read by the sourcing scripts
# Sourced by scripts/load.sh and scripts/soak.sh: pins the server and its clients to their
# cores, and starts a release `deploy` server on a free loopback port.
#
# Expects SERVER_CPU and CLIENT_CPU; sets SERVER_PIN and CLIENT_PIN (commands to prefix),
# and, once `start_deploy BINARY LOG [FILTER]` returns, PORT and SERVER_PID. BENCH_PORTS
# (`FIRST-LAST`, default 20000-32767: below Linux's range of ephemeral ports, from which the
# generators' own connections take theirs, so a port found free is not taken by one before
# the server binds it) bounds the ports tried. SERVER_WRAP, when the sourcing
# script sets it, is a command the server runs under (such as valgrind); a wrapped server is
# given 60 s to listen, not 10.

BENCH_PORTS="${BENCH_PORTS:-20000-32767}"
SERVER_PIN=()
CLIENT_PIN=()
SERVER_WRAP=()
if command -v taskset >/dev/null 2>&1; then
  SERVER_PIN=(taskset -c "$SERVER_CPU")
  CLIENT_PIN=(taskset -c "$CLIENT_CPU")
else
  echo "warning: taskset not found; server and clients are not pinned" >&2
fi

port_in_use() {
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# Starts BINARY (a `deploy` server, or anything taking `--listen`) on a free loopback port, its
# log in LOG, and waits until it listens. FILTER is the server's RUST_LOG (default `warn`), or
# `default` for none at all: the server's own default, as users run it. taskset and env exec
# the server (and valgrind runs in the process it starts), so SERVER_PID is the pid whose CPU
# time and memory are read.
start_deploy() {
  local binary="$1" log="$2" filter="${3:-warn}" candidate
  local environment=(env -u RUST_LOG)
  [[ "$filter" == default ]] || environment=(env "RUST_LOG=$filter")
  local first="${BENCH_PORTS%-*}" last="${BENCH_PORTS#*-}"
  PORT=""
  for _ in $(seq 1 50); do
    candidate=$((first + RANDOM % (last - first + 1)))
    if ! port_in_use "$candidate"; then
      PORT="$candidate"
      break
    fi
  done
  [[ -n "$PORT" ]] || { echo "error: no free loopback port found" >&2; exit 1; }
  "${SERVER_PIN[@]}" "${environment[@]}" "${SERVER_WRAP[@]}" "$binary" \
    --listen "127.0.0.1:$PORT" 2>"$log" &
  SERVER_PID=$!
  local tries=100
  [[ ${#SERVER_WRAP[@]} -eq 0 ]] || tries=600
  for _ in $(seq 1 "$tries"); do
    port_in_use "$PORT" && return 0
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      echo "error: the server exited:" >&2
      cat "$log" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "error: the server did not listen on port $PORT" >&2
  exit 1
}
