#!/usr/bin/env bash
# The load benchmark: complete two-round `confirm_deploy` flows over HTTP on loopback, on the
# stateless 2026-07-28 wire and on legacy 2025-11-25 sessions, one window after the other.
#
# Builds the `deploy` server and the `load` generator in release, starts the server on a free
# loopback port pinned to CPU 0, runs the generator pinned to CPU 1 (bounded concurrency and
# duration), and prints flows per second, the 50th/99th percentile round latency and the
# server's CPU time per flow. The server is always stopped.
#
# Environment: LOAD_CONCURRENCY (flows in flight, default 32), LOAD_DURATION (measured seconds,
# default 10), LOAD_WARMUP (seconds before measuring, default 1), LOAD_SERVER_CPU and
# LOAD_CLIENT_CPU (cores to pin to, default 0 and 1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

CONCURRENCY="${LOAD_CONCURRENCY:-32}"
DURATION="${LOAD_DURATION:-10}"
WARMUP="${LOAD_WARMUP:-1}"
SERVER_CPU="${LOAD_SERVER_CPU:-0}"
CLIENT_CPU="${LOAD_CLIENT_CPU:-1}"
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac

echo "== building deploy and load (release)"
cargo build --locked --release --quiet -p mcp-examples --bin deploy --bin load

# shellcheck source=scripts/bench-server.sh
source "$ROOT/scripts/bench-server.sh"

LOG="$(mktemp -t mcp-load-server.XXXXXX)"
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -f "$LOG"
}
trap stop_server EXIT

start_deploy "$TARGET/release/deploy" "$LOG"

echo "== $CONCURRENCY flows in flight for ${DURATION}s (after ${WARMUP}s warm-up); server on CPU $SERVER_CPU, generator on CPU $CLIENT_CPU"
"${CLIENT_PIN[@]}" "$TARGET/release/load" \
  --addr "127.0.0.1:$PORT" \
  --concurrency "$CONCURRENCY" \
  --duration "$DURATION" \
  --warmup "$WARMUP" \
  --server-pid "$SERVER_PID"
