#!/usr/bin/env bash
# A throwaway Redis for the replay store's tests and benchmark.
#
#   scripts/redis.sh install   installs redis-server from Debian when it is not on PATH
#   scripts/redis.sh start     install, then start one on a free loopback port in the background
#                              (no persistence); prints REDIS_URL=redis://127.0.0.1:N
#   scripts/redis.sh stop      stops the one `start` started
#   scripts/redis.sh url       prints the URL of the running one
#
# `start` writes the URL to .cache/redis/url and the server's pid to .cache/redis/pid, and its
# log to .cache/redis/log; a second `start` while one runs prints its URL again. The tests of
# `mcp-runtime/tests/replay_store*.rs` use REDIS_URL when set, and otherwise spawn their own
# redis-server from PATH: after `install`, `cargo test` needs nothing else (`scripts/test.sh`
# installs, then tests).
#
#   eval "$(scripts/redis.sh start)"; export REDIS_URL; cargo test -p mcp-runtime --test 'replay_store*'
#
# Installing needs root (or sudo) and Debian's package lists; it runs `apt-get update` once.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
DIR="$PWD/.cache/redis"
PID_FILE="$DIR/pid"
URL_FILE="$DIR/url"

log() { echo "redis.sh: $*" >&2; }

install() {
  if command -v redis-server >/dev/null 2>&1; then
    return
  fi
  local sudo=()
  if [[ "$(id -u)" != 0 ]]; then
    command -v sudo >/dev/null 2>&1 || { log "redis-server is missing and installing it needs root"; exit 1; }
    sudo=(sudo)
  fi
  log "installing redis-server from Debian"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    redis-server >/dev/null
  command -v redis-server >/dev/null 2>&1 || { log "redis-server is still not on PATH"; exit 1; }
}

running_pid() {
  [[ -f "$PID_FILE" ]] || return 1
  local pid
  pid="$(cat "$PID_FILE")"
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

# True when something accepts connections on 127.0.0.1:$1.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Answers PING with PONG on 127.0.0.1:$1.
answers_ping() {
  local reply=""
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'PING\r\n' >&3
  read -r -t 1 reply <&3 || true
  exec 3>&-
  [[ "$reply" == +PONG* ]]
}

start() {
  install
  local pid
  if pid="$(running_pid)"; then
    echo "REDIS_URL=$(cat "$URL_FILE")"
    return
  fi
  mkdir -p "$DIR"
  local attempt port
  for attempt in 1 2 3 4 5 6 7 8 9 10; do
    port=$((20000 + RANDOM % 40000))
    port_in_use "$port" && continue
    # setsid: the server outlives this script and is not stopped with its terminal or job.
    setsid redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
      --daemonize no --protected-mode yes >"$DIR/log" 2>&1 </dev/null &
    pid=$!
    local waited
    for waited in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      if answers_ping "$port" 2>/dev/null; then
        echo "$pid" >"$PID_FILE"
        echo "redis://127.0.0.1:$port" >"$URL_FILE"
        echo "REDIS_URL=redis://127.0.0.1:$port"
        return
      fi
      sleep 0.1
    done
    # It exited (most likely the port was taken meanwhile) or never answered: try another port.
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  log "could not start redis-server; its last log:"
  tail -n 20 "$DIR/log" >&2 || true
  exit 1
}

stop() {
  local pid
  if pid="$(running_pid)"; then
    kill "$pid"
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$PID_FILE" "$URL_FILE"
}

case "${1:-start}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  url)
    running_pid >/dev/null || { log "no redis-server started by this script is running"; exit 1; }
    echo "REDIS_URL=$(cat "$URL_FILE")"
    ;;
  *)
    log "usage: scripts/redis.sh [install|start|stop|url]"
    exit 2
    ;;
esac
