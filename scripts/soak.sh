#!/usr/bin/env bash
# The soak benchmark: honest two-round `confirm_deploy` flows on loopback, first alone, then
# while hostile clients attack the same server (slow heads, slow chunked bodies, silent
# connections, 4 MiB bodies nested 120 deep, junk bytes: `attack mix`; and at once floods of
# `initialize` from another loopback address, `initialize` with megabytes of capabilities,
# subscribes with long URIs and standalone streams held open: `attack sessions-mix`, beside an
# honest legacy session that must survive).
#
# Builds `deploy`, `load` and `attack` in release. Each run gets a fresh server on a free
# loopback port pinned to CPU 0; the load generator runs pinned to CPU 1, and the attacker too,
# at the lowest priority.
# Prints the honest flows' errors during the attack (budget 0), their round-latency p99 next
# to the quiet run's (budget 3x), and the attacked server's peak resident memory (VmHWM,
# budget 128 MiB), each with its verdict. Exits 0 whatever the figures (1 only when a run
# printed none): a benchmark reports, it does not assert. The server is always stopped.
#
# Environment: SOAK_DURATION (measured seconds of each run, default 60), SOAK_CONCURRENCY
# (honest flows in flight, default 32), SOAK_SERVER_CPU and SOAK_CLIENT_CPU (cores to pin to,
# default 0 and 1), SOAK_DEPLOY (another `deploy` binary to soak, to compare builds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

DURATION="${SOAK_DURATION:-60}"
CONCURRENCY="${SOAK_CONCURRENCY:-32}"
SERVER_CPU="${SOAK_SERVER_CPU:-0}"
CLIENT_CPU="${SOAK_CLIENT_CPU:-1}"
WARMUP=1
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac

echo "== building deploy, load and attack (release)"
cargo build --locked --release --quiet -p mcp-examples --bin deploy --bin load --bin attack
DEPLOY="${SOAK_DEPLOY:-$TARGET/release/deploy}"

# shellcheck source=scripts/bench-server.sh
source "$ROOT/scripts/bench-server.sh"

WORK="$(mktemp -d -t mcp-soak.XXXXXX)"
SERVER_PID=""
ATTACK_PID=""
SESSIONS_PID=""
PORT=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
cleanup() {
  for pid in "$ATTACK_PID" "$SESSIONS_PID"; do
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  stop_server
  rm -rf "$WORK"
}
trap cleanup EXIT

start_server() {
  start_deploy "$DEPLOY" "$WORK/server-$1.log"
}

# The server's peak resident memory so far, in KiB.
peak_kib() {
  awk '/^VmHWM:/ { print $2 }' "/proc/$SERVER_PID/status"
}

honest_load() {
  "${CLIENT_PIN[@]}" "$TARGET/release/load" \
    --addr "127.0.0.1:$PORT" \
    --era stateless \
    --keep-going \
    --concurrency "$CONCURRENCY" \
    --duration "$DURATION" \
    --warmup "$WARMUP" \
    --server-pid "$SERVER_PID"
}

# The p99 round latency (µs) a load run printed.
p99_of() {
  sed -n 's/^round latency:.*p99 \([0-9]*\) µs.*/\1/p' "$1"
}

errors_of() {
  sed -n 's/^errors: *\([0-9]*\).*/\1/p' "$1"
}

echo "== quiet: $CONCURRENCY honest flows in flight for ${DURATION}s; server on CPU $SERVER_CPU, clients on CPU $CLIENT_CPU"
start_server quiet
honest_load | tee "$WORK/quiet.txt"
QUIET_PEAK="$(peak_kib)"
stop_server

echo
echo "== attacked: the same, while \`attack mix\` runs"
start_server attacked
# At the lowest priority: the attacker shares the generator's core and must not delay it,
# or the generator's own latency would be measured.
nice -n 19 "${CLIENT_PIN[@]}" "$TARGET/release/attack" --addr "127.0.0.1:$PORT" --server-pid "$SERVER_PID" \
  mix --duration "$((DURATION + WARMUP + 2))" >"$WORK/attack.txt" 2>&1 &
ATTACK_PID=$!
nice -n 19 "${CLIENT_PIN[@]}" "$TARGET/release/attack" --addr "127.0.0.1:$PORT" \
  sessions-mix --duration "$((DURATION + WARMUP + 2))" >"$WORK/sessions.txt" 2>&1 &
SESSIONS_PID=$!
# Let the hostile clients connect before the honest ones.
sleep 1
honest_load | tee "$WORK/attacked.txt"
wait "$ATTACK_PID" || true
ATTACK_PID=""
wait "$SESSIONS_PID" || true
SESSIONS_PID=""
ATTACKED_PEAK="$(peak_kib)"
LOG_LINES="$(wc -l <"$WORK/server-attacked.log")"
stop_server
echo
cat "$WORK/attack.txt"
echo
cat "$WORK/sessions.txt"

QUIET_P99="$(p99_of "$WORK/quiet.txt")"
ATTACKED_P99="$(p99_of "$WORK/attacked.txt")"
ERRORS="$(errors_of "$WORK/attacked.txt")"
QUIET_ERRORS="$(errors_of "$WORK/quiet.txt")"
[[ -n "$QUIET_P99" && -n "$ATTACKED_P99" && -n "$ERRORS" ]] || {
  echo "error: a load run printed no figures" >&2
  exit 1
}

verdict() {
  if [[ "$1" == 1 ]]; then echo "ok"; else echo "OVER BUDGET"; fi
}
ERRORS_OK=$([[ "$ERRORS" == 0 ]] && echo 1 || echo 0)
RATIO="$(awk -v a="$ATTACKED_P99" -v q="$QUIET_P99" 'BEGIN { printf "%.2f", a / q }')"
RATIO_OK="$(awk -v r="$RATIO" 'BEGIN { print (r <= 3.0) ? 1 : 0 }')"
PEAK_OK="$(awk -v k="$ATTACKED_PEAK" 'BEGIN { print (k <= 128 * 1024) ? 1 : 0 }')"
SESSION_OK=$(grep -q '^honest session: *still open' "$WORK/sessions.txt" && echo 1 || echo 0)

echo
echo "== soak summary (${DURATION}s per run)"
echo "honest errors:       $ERRORS under attack ($QUIET_ERRORS quiet) — budget 0: $(verdict "$ERRORS_OK")"
echo "round p99:           quiet $QUIET_P99 µs, attacked $ATTACKED_P99 µs: ${RATIO}x — budget 3x: $(verdict "$RATIO_OK")"
echo "server peak memory:  attacked $(awk -v k="$ATTACKED_PEAK" 'BEGIN { printf "%.1f", k / 1024 }') MiB (quiet $(awk -v k="$QUIET_PEAK" 'BEGIN { printf "%.1f", k / 1024 }') MiB) — budget 128 MiB: $(verdict "$PEAK_OK")"
echo "honest session:      $([[ "$SESSION_OK" == 1 ]] && echo "kept" || echo "lost") through the session attacks — budget kept: $(verdict "$SESSION_OK")"
echo "server log lines:    $LOG_LINES during the attacked run"
# A benchmark prints figures and verdicts; it fails only when a run printed no figures, never
# on a timing, which depends on the machine and what else it runs.
