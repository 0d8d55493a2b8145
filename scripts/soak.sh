#!/usr/bin/env bash
# The soak benchmark: honest two-round `confirm_deploy` flows on loopback, first alone, then
# while hostile clients attack the same server (slow heads, slow chunked bodies, silent
# connections, 4 MiB bodies nested 120 deep, junk bytes: `attack mix`; and at once floods of
# `initialize` from another loopback address, `initialize` with megabytes of capabilities,
# subscribes with long URIs and standalone streams held open: `attack sessions-mix`, beside an
# honest legacy session that must survive; and `attack replay-fill` and `token-spray`, each
# against a server of its own with an honest client that must be served).
#
# Builds `deploy`, `load` and `attack` in release. Each run gets a fresh server on a free
# loopback port pinned to CPU 0; the load generator runs pinned to CPU 1, and the attacker too,
# at the lowest priority.
# Prints the honest flows' errors during the attack (budget 0), their round-latency p99 next
# to the quiet run's (budget 3x), and the attacked server's peak resident memory (VmHWM,
# budget 128 MiB), each with its verdict. The server is always stopped.
#
#   scripts/soak.sh            exits 1 when an honest flow failed (or a run printed no figures):
#                              that budget does not depend on the machine
#   scripts/soak.sh --check    exits 1 on any verdict over budget, timing and memory too: for
#                              a quiet machine of known speed (CI runs neither)
#
# Environment: SOAK_DURATION (measured seconds of each run, default 60), SOAK_CONCURRENCY
# (honest flows in flight, default 32), SOAK_SERVER_CPU and SOAK_CLIENT_CPU (cores to pin to,
# default 0 and 1), SOAK_DEPLOY (another `deploy` binary to soak, to compare builds).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

CHECK=0
for arg in "$@"; do
  case "$arg" in
    --check) CHECK=1 ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "soak.sh: unknown argument $arg (see --help)" >&2; exit 2 ;;
  esac
done

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
STATES_PID=""
PORT=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
cleanup() {
  for pid in "$ATTACK_PID" "$SESSIONS_PID" "$STATES_PID"; do
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
# The state and identity attacks serve their own OAuth-protected `deploy` (they mint the
# tokens), each with an honest client of its own: run beside the honest flows, they compete
# for the same cores.
STATES_SECONDS=$(( DURATION / 4 > 2 ? DURATION / 4 : 2 ))
(
  nice -n 19 "${CLIENT_PIN[@]}" "$TARGET/release/attack" replay-fill --duration "$STATES_SECONDS"
  nice -n 19 "${CLIENT_PIN[@]}" "$TARGET/release/attack" token-spray --duration "$STATES_SECONDS"
) >"$WORK/states.txt" 2>&1 &
STATES_PID=$!
# Let the hostile clients connect before the honest ones.
sleep 1
honest_load | tee "$WORK/attacked.txt"
wait "$ATTACK_PID" || true
ATTACK_PID=""
wait "$SESSIONS_PID" || true
SESSIONS_PID=""
wait "$STATES_PID" || true
STATES_PID=""
ATTACKED_PEAK="$(peak_kib)"
LOG_LINES="$(wc -l <"$WORK/server-attacked.log")"
stop_server
echo
cat "$WORK/attack.txt"
echo
cat "$WORK/sessions.txt"
echo
cat "$WORK/states.txt"

QUIET_P99="$(p99_of "$WORK/quiet.txt")"
ATTACKED_P99="$(p99_of "$WORK/attacked.txt")"
ERRORS="$(errors_of "$WORK/attacked.txt")"
QUIET_ERRORS="$(errors_of "$WORK/quiet.txt")"
[[ -n "$QUIET_P99" && -n "$ATTACKED_P99" && -n "$ERRORS" ]] || {
  echo "error: a load run printed no figures" >&2
  exit 1
}

# One verdict per budget. `always` budgets fail the script in every mode: they hold on any
# machine. `timing` budgets (latency, memory) depend on the machine and what else it runs, so
# they fail it only under --check. A new budget is one more `budget` call and summary line.
BROKEN=()
VERDICT=""
budget() { # budget always|timing OK NAME: sets VERDICT, records NAME when it fails the run
  if [[ "$2" == 1 ]]; then
    VERDICT="ok"
  else
    VERDICT="OVER BUDGET"
    if [[ "$1" == always || "$CHECK" == 1 ]]; then BROKEN+=("$3"); fi
  fi
}
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

RATIO="$(awk -v a="$ATTACKED_P99" -v q="$QUIET_P99" 'BEGIN { printf "%.2f", a / q }')"

echo
echo "== soak summary (${DURATION}s per run)"
budget always "$([[ "$ERRORS" == 0 && "${QUIET_ERRORS:-0}" == 0 ]] && echo 1 || echo 0)" "honest errors"
echo "honest errors:       $ERRORS under attack (${QUIET_ERRORS:-?} quiet) — budget 0: $VERDICT"
budget timing "$(awk -v r="$RATIO" 'BEGIN { print (r <= 3.0) ? 1 : 0 }')" "round p99"
echo "round p99:           quiet $QUIET_P99 µs, attacked $ATTACKED_P99 µs: ${RATIO}x — budget 3x: $VERDICT"
budget timing "$(awk -v k="$ATTACKED_PEAK" 'BEGIN { print (k <= 128 * 1024) ? 1 : 0 }')" "peak memory"
echo "server peak memory:  attacked $(mib "$ATTACKED_PEAK") MiB (quiet $(mib "$QUIET_PEAK") MiB) — budget 128 MiB: $VERDICT"
budget always "$(grep -q '^honest session: *still open' "$WORK/sessions.txt" && echo 1 || echo 0)" "honest session"
echo "honest session:      $([[ "$VERDICT" == ok ]] && echo kept || echo lost) through the session attacks — budget kept: $VERDICT"
# "N M": the honest rounds of a mode's run with the server's defaults, and how many succeeded.
FILL="$(grep -A1 '^replay-fill, default quota' "$WORK/states.txt" | sed -n 's/.*during the fill \([0-9]*\)\/\([0-9]*\) ok.*/\1 \2/p')"
SPRAY="$(grep -A1 '^token-spray, default bound' "$WORK/states.txt" | sed -n 's/.*under spray .*(\([0-9]*\) ok of \([0-9]*\)).*/\1 \2/p')"
all_ok() { read -r ok total <<<"$1"; [[ -n "${total:-}" && "$total" -gt 0 && "$ok" == "$total" ]]; }
budget always "$(all_ok "$FILL" && all_ok "$SPRAY" && echo 1 || echo 0)" "honest states"
echo "honest states:       single-use rounds ${FILL/ //} ok while one subject fills the store; cached-token calls ${SPRAY/ //} ok under a token spray — budget all: $VERDICT"
echo "server log lines:    $LOG_LINES during the attacked run"

if [[ ${#BROKEN[@]} -gt 0 ]]; then
  echo "soak: over budget: ${BROKEN[*]}" >&2
  exit 1
fi
if [[ "$CHECK" == 0 ]]; then
  echo "(timing and memory verdicts are printed only; --check fails on them too)"
fi
