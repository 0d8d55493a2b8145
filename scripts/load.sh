#!/usr/bin/env bash
# The load benchmark: complete two-round `confirm_deploy` flows over HTTP on loopback, against
# a floor and against ours, with the same generator, and the ratio of server CPU per flow.
#
# Builds the `floor` server (bare hyper answering the two rounds with canned bytes: what HTTP
# alone costs), the `deploy` server and the `load` generator in release. Runs each server in
# turn on a free loopback port pinned to CPU 0, the generator pinned to CPU 1 (bounded
# concurrency and duration), and prints flows per second, the 50th/99th percentile round
# latency and the server's CPU time per flow:
#
# - `floor`, stateless rounds;
# - `deploy` as users run it: no RUST_LOG, so its default log level (`info`, a line per
#   request), its log written to a file; stateless rounds, then legacy 2025-11-25 sessions;
# - `deploy` quiet (RUST_LOG=warn), the same two windows.
#
# It ends with the median stateless server CPU per flow of each, and its ratio to the floor's;
# then, for `deploy` with its default log and quiet, the median legacy server CPU per flow and
# its ratio to the same server's stateless median.
# The servers are always stopped.
#
# Environment: LOAD_CONCURRENCY (flows in flight, default 32), LOAD_DURATION (measured seconds
# per window, default 10), LOAD_WARMUP (seconds before measuring, default 1), LOAD_RUNS (runs of
# all three, interleaved, default 1; the medians are over them), LOAD_SERVER_CPU and
# LOAD_CLIENT_CPU (cores to pin to, default 0 and 1), LOAD_DEPLOY (another `deploy` binary to
# measure, such as one built from another commit), LOAD_SPIN=1 (the generator never sleeps: it
# polls its sockets in a loop, so no server pays, inside its reply's `write`, for waking it; a
# server faster than the generator then sleeps and wakes itself instead, so compare a server with
# and without it, not two servers' ratio; see `load --help`; default off).
#
# `scripts/load.sh --instructions` (or LOAD_INSTRUCTIONS=1) counts instead of timing, so its
# figures hold on a busy machine: it runs each server under valgrind's callgrind twice, for
# LOAD_FLOWS/5 flows and for that plus LOAD_FLOWS flows (default 1000), with LOAD_CONCURRENCY
# flows in flight (default 4 in this mode): the floor on stateless rounds, and `deploy`, with
# its default log and quiet, on stateless rounds and on legacy 2025-11-25 sessions. The
# difference between the two runs, divided by LOAD_FLOWS, is what a flow costs with start-up,
# connection set-up and shutdown taken out: user-space instructions per flow (the kernel's
# share is not counted) and heap allocations per flow (calls to malloc, calloc and
# posix_memalign), and the ratio of each server's instructions to the floor's; and, from
# callgrind's simulation of the host's caches, the misses per flow in the first-level
# instruction and data caches: an instruction that misses costs more time than one that hits.
# The generator opens one legacy session per connection and runs its flows back to back on it,
# so the session's `initialize` and `notifications/initialized` are in both runs and cancel
# out: a legacy flow here is the `tools/call` with its event stream, the `elicitation/create`
# sent on it, the answer POSTed back and the result. It then prints each era's ratio,
# legacy to stateless, for the default log and quiet.
# Valgrind's virtual CPU has no SHA extensions, so the state codec's SHA-256 runs in software
# under it and weighs more in these counts than it does natively: each row of ours says how many
# of its instructions that is, and its count and ratio without them and without the stateless
# flow's (the floor signs nothing, nor does a legacy flow, whose state stays in the session).
#
# `scripts/load.sh --counts` (or LOAD_COUNTS=1) counts what the kernel does for the server,
# natively: it runs each server as `--instructions` does (the floor on stateless rounds,
# `deploy` with its default log and quiet on stateless rounds and on legacy sessions;
# LOAD_CONCURRENCY in flight, default 32 as when timing) for LOAD_FLOWS/5 flows to warm it,
# then twice for LOAD_FLOWS flows (default 20000 in this mode), and prints per flow: from the
# first run, its threads' context switches, voluntary and not (from /proc), how many threads
# ran, each thread's time on a CPU by name (from schedstat, in nanoseconds: the log's writer
# thread, `mcp-log`, apart from the runtime's workers), and the server's user and system CPU
# time (clock ticks: indicative on a busy machine, where the counts still hold); from the second, under `perf stat`, the server's system
# calls, all kinds and the most frequent, the wake-ups its threads made (of any thread, the
# generator's included) and the inter-processor interrupts they sent. Needs `perf` with
# access to tracepoints (root, or kernel.perf_event_paranoid at -1).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

INSTRUCTIONS="${LOAD_INSTRUCTIONS:-0}"
COUNTS="${LOAD_COUNTS:-0}"
case "${1:-}" in
  --instructions) INSTRUCTIONS=1 ;;
  --counts) COUNTS=1 ;;
  "") ;;
  *)
    echo "usage: scripts/load.sh [--instructions | --counts]" >&2
    exit 2
    ;;
esac
# label NAME: how the summary names a measured server.
label() {
  case "$1" in
    floor) echo "floor (bare hyper, canned bytes)" ;;
    default) echo "deploy, as users run it (no RUST_LOG)" ;;
    quiet) echo "deploy, RUST_LOG=warn" ;;
  esac
}

if [[ "$INSTRUCTIONS" == 1 ]]; then
  CONCURRENCY="${LOAD_CONCURRENCY:-4}"
else
  CONCURRENCY="${LOAD_CONCURRENCY:-32}"
fi
if [[ "$COUNTS" == 1 ]]; then
  FLOWS="${LOAD_FLOWS:-20000}"
else
  FLOWS="${LOAD_FLOWS:-1000}"
fi
DURATION="${LOAD_DURATION:-10}"
WARMUP="${LOAD_WARMUP:-1}"
SERVER_CPU="${LOAD_SERVER_CPU:-0}"
CLIENT_CPU="${LOAD_CLIENT_CPU:-1}"
RUNS="${LOAD_RUNS:-1}"
SPIN=()
GENERATOR="generator on CPU"
if [[ "${LOAD_SPIN:-0}" == 1 ]]; then
  SPIN=(--spin)
  GENERATOR="generator spinning on CPU"
fi
TARGET="${CARGO_TARGET_DIR:-$ROOT/target}"
case "$TARGET" in /*) ;; *) TARGET="$ROOT/$TARGET" ;; esac

echo "== building floor, deploy and load (release)"
cargo build --locked --release --quiet -p mcp-examples --bin floor --bin deploy --bin load
DEPLOY="${LOAD_DEPLOY:-$TARGET/release/deploy}"

# shellcheck source=scripts/bench-server.sh
source "$ROOT/scripts/bench-server.sh"

WORK="$(mktemp -d -t mcp-load.XXXXXX)"
SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  SERVER_PID=""
}
trap 'stop_server; rm -rf "$WORK"' EXIT

# measure NAME BINARY FILTER ERA: one server under load; its stateless server CPU per flow (µs)
# is appended to $WORK/NAME, and with ERA both its legacy one to $WORK/NAME.legacy.
measure() {
  local name="$1" binary="$2" filter="$3" era="$4"
  echo
  echo "=== $name"
  start_deploy "$binary" "$WORK/server.log" "$filter"
  "${CLIENT_PIN[@]}" "$TARGET/release/load" "${SPIN[@]}" \
    --addr "127.0.0.1:$PORT" \
    --era "$era" \
    --concurrency "$CONCURRENCY" \
    --duration "$DURATION" \
    --warmup "$WARMUP" \
    --server-pid "$SERVER_PID" | tee "$WORK/out"
  stop_server
  if [[ "$filter" == default ]]; then
    echo "server log:     $(wc -l <"$WORK/server.log") lines, $(($(wc -c <"$WORK/server.log") / 1024)) KiB"
  fi
  rm -f "$WORK/server.log"
  sed -n 's/^server CPU: *\([0-9.]*\) µs\/flow.*/\1/p' "$WORK/out" >"$WORK/cpu"
  head -n 1 "$WORK/cpu" >>"$WORK/$name"
  if [[ "$era" == both ]]; then
    sed -n 2p "$WORK/cpu" >>"$WORK/$name.legacy"
  fi
}

# count NAME BINARY FILTER ERA FLOWS: one server under callgrind for FLOWS flows of ERA
# (stateless or legacy); writes its user-space instructions, heap allocations, and first-level
# instruction and data cache misses over the whole run to $WORK/count, and the instructions
# spent in SHA-256's block function (inclusive).
count() {
  local name="$1" binary="$2" filter="$3" era="$4" flows="$5" out="$WORK/callgrind.out"
  rm -f "$out"
  SERVER_WRAP=(valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$out"
    --log-file="$WORK/valgrind.log")
  start_deploy "$binary" "$WORK/server.log" "$filter"
  "${CLIENT_PIN[@]}" "$TARGET/release/load" "${SPIN[@]}" --addr "127.0.0.1:$PORT" --era "$era" \
    --concurrency "$CONCURRENCY" --flows "$flows" >"$WORK/out" ||
    { cat "$WORK/out" "$WORK/server.log" >&2; exit 1; }
  stop_server
  SERVER_WRAP=()
  rm -f "$WORK/server.log"
  # The totals are the `summary:` line, in the order the `events:` line names them;
  # allocations are the calls into the allocator, summed over the call arcs into it (names are
  # written once, then referred to by their number); SHA-256's instructions are the inclusive
  # cost (on the line after a `calls=` line) of the call arcs into its block function.
  awk '
    /^events:/ { for (i = 2; i <= NF; i++) event[$i] = i }
    /^summary:/ {
      instructions = $event["Ir"]
      instruction_misses = $event["I1mr"]
      data_misses = $event["D1mr"] + $event["D1mw"]
    }
    /^c?fn=/ {
      spec = substr($0, index($0, "=") + 1)
      if (match(spec, /^\([0-9]+\) /)) { id = substr(spec, 1, RLENGTH - 1); names[id] = substr(spec, RLENGTH + 1) }
      else if (spec ~ /^\([0-9]+\)$/) { id = spec } else { id = spec; names[id] = spec }
      if ($0 ~ /^cfn=/) callee = names[id]
    }
    sha_cost { sha += $(event["Ir"]); sha_cost = 0 }
    /^calls=/ {
      if (callee ~ /^(malloc|calloc|posix_memalign)(\047[0-9]+)?$/) allocations += substr($1, 7)
      if (callee ~ /^sha2::sha256::compress256(\047[0-9]+)?$/) sha_cost = 1
    }
    END { printf "%d %d %d %d %d\n", instructions, allocations, instruction_misses, data_misses, sha }
  ' "$out" >"$WORK/count"
}

# instructions NAME BINARY FILTER ERA: the instructions, allocations and cache misses of one
# flow of ERA on a server, from two runs; writes them per flow to $WORK/NAME.
instructions() {
  local name="$1" few=$((FLOWS / 5))
  count "$@" "$few"
  cp "$WORK/count" "$WORK/count.few"
  count "$@" $((few + FLOWS))
  paste -d' ' "$WORK/count.few" "$WORK/count" | awk -v flows="$FLOWS" '{
    printf "%.0f %.1f %.0f %.0f %.0f\n", ($6 - $1) / flows, ($7 - $2) / flows, ($8 - $3) / flows,
      ($9 - $4) / flows, ($10 - $5) / flows
  }' >"$WORK/$name"
}

# flows ERA N: N flows of ERA (stateless or legacy) against the server started last.
flows() {
  "${CLIENT_PIN[@]}" "$TARGET/release/load" "${SPIN[@]}" --addr "127.0.0.1:$PORT" --era "$1" \
    --concurrency "$CONCURRENCY" --flows "$2" >"$WORK/out" ||
    { cat "$WORK/out" "$WORK/server.log" >&2; exit 1; }
}

# threads PID: a line per thread of the process, "tid voluntary involuntary ticks ns name",
# ticks its user and system CPU time in clock ticks, ns its time on a CPU in nanoseconds (from
# schedstat), name its name with any digits taken out (tokio's workers are one name).
threads() {
  local task
  for task in /proc/"$1"/task/*; do
    awk -v tid="${task##*/}" '/^voluntary_ctxt_switches/ { v = $2 } /^nonvoluntary_ctxt_switches/ { n = $2 }
      END { printf "%s %d %d ", tid, v, n }' "$task/status" 2>/dev/null || continue
    printf '%s %s %s\n' "$(sed 's/.*) //' "$task/stat" | awk '{ print $12 + $13 }')" \
      "$(cut -d' ' -f1 "$task/schedstat" 2>/dev/null || echo 0)" "$(tr -d '0-9 ' <"$task/comm")"
  done
}

# kernel NAME BINARY FILTER ERA: what the kernel does for one server on flows of ERA; writes
# its summary to $WORK/NAME. After FLOWS/5 flows to warm it, FLOWS flows give its CPU time and context
# switches (from /proc), then FLOWS more under `perf stat` its system calls and wake-ups: perf
# weighs on what it counts (a wake-up costs more traced), so no time is read while it runs.
kernel() {
  local name="$1" binary="$2" filter="$3" era="$4" perf_pid user0 system0 user1 system1
  start_deploy "$binary" "$WORK/server.log" "$filter"
  flows "$era" $((FLOWS / 5))
  threads "$SERVER_PID" >"$WORK/threads.before"
  read -r user0 system0 < <(sed 's/.*) //' "/proc/$SERVER_PID/stat" | awk '{ print $12, $13 }')
  flows "$era" "$FLOWS"
  read -r user1 system1 < <(sed 's/.*) //' "/proc/$SERVER_PID/stat" | awk '{ print $12, $13 }')
  threads "$SERVER_PID" >"$WORK/threads.after"
  perf stat -x, -o "$WORK/perf" -p "$SERVER_PID" -e 'syscalls:sys_enter_*' "${PERF_EVENTS[@]}" &
  perf_pid=$!
  # perf attaches to an idle server: the flows start once it counts.
  sleep 1
  flows "$era" "$FLOWS"
  kill -INT "$perf_pid"
  wait "$perf_pid" || true
  stop_server
  rm -f "$WORK/server.log"
  {
    awk -F, -v flows="$FLOWS" '
      $3 ~ /^syscalls:sys_enter_/ && $1 > 0 { kind = substr($3, 20); calls[kind] = $1; total += $1 }
      $3 == "sched:sched_waking" { wakes = $1 }
      $3 == "ipi:ipi_send_cpu" { ipis = $1 }
      END {
        printf "  %.2f system calls a flow:", total / flows
        n = 0
        for (kind in calls) if (calls[kind] / flows >= 0.01) order[++n] = kind
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
          if (calls[order[j]] > calls[order[i]]) { t = order[i]; order[i] = order[j]; order[j] = t }
        for (i = 1; i <= n; i++) printf " %s %.2f", order[i], calls[order[i]] / flows
        printf "\n  %.3f wake-ups made a flow", wakes / flows
        if (ipis != "") printf ", %.3f inter-processor interrupts sent", ipis / flows
        printf "\n"
      }' "$WORK/perf"
    awk -v flows="$FLOWS" '
      NR == FNR { voluntary[$1] = $2; involuntary[$1] = $3; ticks[$1] = $4; next }
      {
        v += $2 - voluntary[$1]; n += $3 - involuntary[$1]
        if ($2 != voluntary[$1] || $3 != involuntary[$1] || $4 != ticks[$1]) ran++
      }
      END { printf "  %.3f context switches a flow (%.3f voluntary, %.3f not), %d thread(s) ran\n",
        (v + n) / flows, v / flows, n / flows, ran }' "$WORK/threads.before" "$WORK/threads.after"
    # Each thread's time on a CPU, by name: the log's writer apart from the requests' workers.
    awk -v flows="$FLOWS" '
      NR == FNR { ns[$1] = $5; next }
      { spent[$6] += $5 - ns[$1] }
      END {
        printf "  CPU a flow by thread:"
        for (name in spent) if (spent[name] / flows >= 10) printf " %s %.2f µs", name, spent[name] / flows / 1000
        printf "\n"
      }' "$WORK/threads.before" "$WORK/threads.after"
    awk -v user=$((user1 - user0)) -v sys=$((system1 - system0)) -v hz="$(getconf CLK_TCK)" \
      -v flows="$FLOWS" 'BEGIN {
      printf "  CPU a flow: user %.1f µs, system %.1f µs (%d and %d clock ticks)\n",
        user * 1e6 / hz / flows, sys * 1e6 / hz / flows, user, sys }'
  } >"$WORK/$name"
}

if [[ "$COUNTS" == 1 ]]; then
  command -v perf >/dev/null || { echo "error: --counts needs perf" >&2; exit 1; }
  perf stat -e 'syscalls:sys_enter_writev' -- true >/dev/null 2>&1 ||
    { echo "error: --counts needs perf with access to tracepoints (root, or kernel.perf_event_paranoid at -1)" >&2; exit 1; }
  PERF_EVENTS=(-e sched:sched_waking)
  ! perf stat -e ipi:ipi_send_cpu -- true >/dev/null 2>&1 || PERF_EVENTS+=(-e ipi:ipi_send_cpu)
  echo "== perf stat, $FLOWS flows (after $((FLOWS / 5))), $CONCURRENCY in flight; servers on CPU $SERVER_CPU, $GENERATOR $CLIENT_CPU"
  kernel floor "$TARGET/release/floor" warn stateless
  kernel default "$DEPLOY" default stateless
  kernel quiet "$DEPLOY" warn stateless
  kernel default.legacy "$DEPLOY" default legacy
  kernel quiet.legacy "$DEPLOY" warn legacy
  for name in floor default quiet default.legacy quiet.legacy; do
    echo
    case "$name" in
      *.legacy) echo "$(label "${name%.legacy}"), legacy (2025-11-25 session) flows" ;;
      *) echo "$(label "$name"), stateless (2026-07-28) flows" ;;
    esac
    cat "$WORK/$name"
  done
  exit 0
fi

if [[ "$INSTRUCTIONS" == 1 ]]; then
  command -v valgrind >/dev/null || { echo "error: --instructions needs valgrind" >&2; exit 1; }
  echo "== callgrind, $FLOWS flows (after $((FLOWS / 5))), $CONCURRENCY in flight"
  instructions floor "$TARGET/release/floor" warn stateless
  instructions default "$DEPLOY" default stateless
  instructions quiet "$DEPLOY" warn stateless
  instructions default.legacy "$DEPLOY" default legacy
  instructions quiet.legacy "$DEPLOY" warn legacy
  read -r FLOOR _ <"$WORK/floor"
  # row LABEL FILE [BASE]: one server's counts per flow, with the ratio of its instructions to
  # the floor's, or to BASE's when given.
  row() {
    local base="$FLOOR" against="the floor"
    local base_sha=0
    [[ $# -lt 3 ]] || { read -r base _ _ _ base_sha <"$3"; against="stateless"; }
    read -r per_flow allocations instruction_misses data_misses sha <"$2"
    awk -v label="$1" -v i="$per_flow" -v a="$allocations" -v base="$base" -v against="$against" \
      -v im="$instruction_misses" -v dm="$data_misses" -v sha="$sha" -v base_sha="$base_sha" 'BEGIN {
      printf "%-40s %8d instructions/flow  %5.2fx %-9s  %6.1f allocations/flow (%.1f a round)\n",
        label, i, i / base, against, a, a / 2
      printf "%-40s %8d instruction and %d data cache misses/flow (first level)\n", "", im, dm
      if (sha > 0 || base_sha > 0) printf "%-40s %8d of them SHA-256 in software (without: %d, %.2fx %s)\n",
        "", sha, i - sha, (i - sha) / (base - base_sha), against }'
  }
  echo
  echo "== stateless (2026-07-28) flows"
  for name in floor default quiet; do
    row "$(label "$name")" "$WORK/$name"
  done
  echo
  echo "== legacy (2025-11-25 session) flows, against the stateless flows of the same server"
  for name in default quiet; do
    row "$(label "$name")" "$WORK/$name.legacy" "$WORK/$name"
  done
  exit 0
fi

echo "== $CONCURRENCY flows in flight for ${DURATION}s per window (after ${WARMUP}s warm-up), $RUNS run(s); servers on CPU $SERVER_CPU, $GENERATOR $CLIENT_CPU"
for run in $(seq 1 "$RUNS"); do
  echo
  echo "== run $run of $RUNS"
  measure floor "$TARGET/release/floor" warn stateless
  measure default "$DEPLOY" default both
  measure quiet "$DEPLOY" warn both
done

median() {
  sort -g "$1" | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
FLOOR="$(median "$WORK/floor")"
echo
echo "== stateless server CPU per flow, median of $RUNS run(s) (each run's figures in order)"
for name in floor default quiet; do
  label="$(label "$name")"
  awk -v label="$label" -v value="$(median "$WORK/$name")" -v floor="$FLOOR" -v runs="$(paste -sd' ' "$WORK/$name")" \
    'BEGIN { printf "%-40s %7.1f µs/flow  %5.2fx the floor  (%s)\n", label, value, value / floor, runs }'
done
echo
echo "== legacy (2025-11-25 session) server CPU per flow, median of $RUNS run(s), against the same server's stateless median"
for name in default quiet; do
  label="$(label "$name")"
  awk -v label="$label" -v value="$(median "$WORK/$name.legacy")" -v base="$(median "$WORK/$name")" \
    -v runs="$(paste -sd' ' "$WORK/$name.legacy")" \
    'BEGIN { printf "%-40s %7.1f µs/flow  %5.2fx stateless  (%s)\n", label, value, value / base, runs }'
done
