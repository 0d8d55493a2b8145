#!/usr/bin/env bash
# The build-cost benchmark: what `#[tool]` costs to compile, against the same tools written as
# hand-written `ToolHandler` impls, and what each question point adds.
#
# Generates, with scripts/build-cost.py, a workspace of leaf crates that depend on this
# repository's `mcp-runtime` by path (in target/build-cost/, with its own target directory
# whatever CARGO_TARGET_DIR says; deleted at the end unless --keep):
#   leaf-macro-q0      N tools written with `#[tool]`, no questions;
#   leaf-hand-q0       the same N tools (same argument structs, same bodies) as hand-written
#                      `ToolHandler` impls: `definition()` builds the `Tool` from a schemars
#                      schema, `call()` answers `Reply::Complete`;
#   leaf-macro-asking  the N `#[tool]`s with Q straight-line yes/no questions each;
#   leaf-chain-kK      one `#[tool]` of K yes/no questions in a row, for K in 0, 5, 20, 40;
#   leaf-nested-kK     the same with each question inside an `if` of its own, for K in 20, 40;
#   leaf-match-kK      the same with each question in an arm of a `match` of its own;
#   leaf-loop-kK       the same in a row inside one loop's body, for K in 20, 40;
#   leaf-loopif-kK     the same each inside an `if` of its own inside one loop's body.
# A test first checks that the hand-written tools list and answer exactly as the `#[tool]`
# ones do (`tools/list`, and `tools/call` with good and bad arguments).
#
# Dependencies are built first; then only the leaf crate is rebuilt and timed (`cargo build
# -p <leaf> --lib`, dev profile; a run that recompiles anything else is an error), round-robin
# over the variants, R runs each, as wall-clock seconds and as CPU seconds (user + system of
# cargo and rustc, the steadier figure on a shared machine):
#   clean leaf    `touch src/lib.rs`, `CARGO_INCREMENTAL=0`;
#   edit in line  with the incremental cache, a one-line edit that moves no other line (a
#                 string literal in the first tool's body);
#   edit + line   the same, with a line added to that body, or taken away again, which moves
#                 every line below it (and the spans of everything the macros expand there).
# Prints the medians, the ratios macro / hand-written, ms per tool, ms per question point
# ((asking - no questions) / (N * Q)), and for the K series the seconds per question and the
# growth from K=20 to K=40 above K=0 (2x linear, 4x quadratic), against issue 32's budgets.
# Takes a few minutes to build the dependencies, then 19 timed leaf builds per run.
#
# Usage: scripts/build-cost.sh [--tools N] [--questions Q] [--runs R] [--quick] [--keep]
#   --tools N      tools per leaf crate (default 50)
#   --questions Q  questions per tool in leaf-macro-asking (default 2)
#   --runs R       timed builds per figure; the table shows medians (default 3)
#   --quick        a smoke run: N=10, R=1
#   --keep         keep target/build-cost/ (its built dependencies make the next run faster)
set -euo pipefail
export LC_ALL=C # decimal points in EPOCHREALTIME and in `time`'s figures
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

usage() {
  sed -n '/^# Usage:/,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

TOOLS=50
QUESTIONS=2
RUNS=3
KEEP=0
CHAIN=(0 5 20 40)
NESTED=(20 40)
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tools | --questions | --runs)
      [[ $# -ge 2 ]] || { echo "error: $1 needs a value" >&2; exit 2; } ;;&
    --tools) TOOLS="${2:-}"; shift 2 ;;
    --questions) QUESTIONS="${2:-}"; shift 2 ;;
    --runs) RUNS="${2:-}"; shift 2 ;;
    --quick) TOOLS=10; RUNS=1; shift ;;
    --keep) KEEP=1; shift ;;
    -h | --help) usage; exit 0 ;;
    *) echo "error: unknown option \`$1\`" >&2; usage >&2; exit 2 ;;
  esac
done
for value in "$TOOLS" "$QUESTIONS" "$RUNS"; do
  [[ "$value" =~ ^[0-9]+$ ]] || { echo "error: \`$value\` is not a number" >&2; exit 2; }
done
((TOOLS >= 1 && RUNS >= 1)) || { echo "error: --tools and --runs must be at least 1" >&2; exit 2; }
if ((BASH_VERSINFO[0] < 5)); then
  echo "error: bash 5 or later is needed (EPOCHREALTIME)" >&2
  exit 1
fi
command -v python3 >/dev/null || { echo "error: python3 is needed" >&2; exit 1; }

WORK="$ROOT/target/build-cost"
MANIFEST="$WORK/Cargo.toml"
TIMINGS="$WORK/timings"
LOG="$WORK/cargo.log"
export CARGO_TARGET_DIR="$WORK/target"
cleanup() {
  if ((KEEP == 0)); then
    rm -rf "$WORK"
  fi
}
trap cleanup EXIT

LEAVES=(leaf-macro-q0 leaf-hand-q0)
if ((QUESTIONS > 0)); then LEAVES+=(leaf-macro-asking); fi
CHAINS=()
for k in "${CHAIN[@]}"; do CHAINS+=("leaf-chain-k$k"); done
for k in "${NESTED[@]}"; do CHAINS+=("leaf-nested-k$k" "leaf-match-k$k" "leaf-loop-k$k" "leaf-loopif-k$k"); done

echo "== generating $TOOLS tools per leaf, $QUESTIONS questions each, chains of ${CHAIN[*]}"
python3 scripts/build-cost.py generate "$WORK" --tools "$TOOLS" --questions "$QUESTIONS" \
  --chain "$(IFS=,; echo "${CHAIN[*]}")" --nested "$(IFS=,; echo "${NESTED[*]}")" --runtime "$ROOT/mcp-runtime" --lock "$ROOT/Cargo.lock"
: >"$TIMINGS"

# Runs cargo with its output in $LOG, shown only when it fails.
quiet_cargo() {
  if ! cargo "$@" >"$LOG" 2>&1; then
    cat "$LOG" >&2
    echo "error: cargo $* failed" >&2
    exit 1
  fi
}

packages() {
  local name
  for name in "$@"; do printf -- '-p\n%s\n' "$name"; done
}

# Builds leaf $2 once, timed, and records it under mode $1: wall-clock seconds, and the CPU
# seconds (user + system) of cargo and the compiler, steadier on a shared machine. Nothing
# but the leaf may compile.
timed_build() {
  local mode="$1" leaf="$2" status=0 start end micros compiled wall cpu
  local TIMEFORMAT='%3U %3S'
  start="${EPOCHREALTIME/./}"
  {
    time cargo build --manifest-path "$MANIFEST" -p "$leaf" --lib >"$LOG" 2>&1 || status=$?
  } 2>"$WORK/cpu"
  end="${EPOCHREALTIME/./}"
  if ((status != 0)); then
    cat "$LOG" >&2
    echo "error: cargo build -p $leaf failed" >&2
    exit 1
  fi
  compiled="$(grep -c '^ *Compiling ' "$LOG" || true)"
  if [[ "$compiled" != 1 ]]; then
    cat "$LOG" >&2
    echo "error: $compiled crates compiled for $leaf; only the leaf should have" >&2
    exit 1
  fi
  micros=$((end - start))
  printf -v wall '%d.%06d' $((micros / 1000000)) $((micros % 1000000))
  cpu="$(awk '{ printf "%.3f", $1 + $2 }' "$WORK/cpu")"
  echo "$mode $leaf $wall $cpu" >>"$TIMINGS"
  printf '   %-5s %-20s %6.2f s wall %6.2f s CPU\n' "$mode" "$leaf" "$wall" "$cpu"
}

echo "== checking that the hand-written tools list and answer as the #[tool] ones"
export CARGO_INCREMENTAL=0
quiet_cargo test --manifest-path "$MANIFEST" -p build-cost-check

echo "== building the dependencies (no incremental cache)"
mapfile -t selected < <(packages "${LEAVES[@]}" "${CHAINS[@]}")
quiet_cargo build --manifest-path "$MANIFEST" "${selected[@]}" --lib

# One untimed rebuild of each leaf first, so no timed run pays for a cold start.
for leaf in "${LEAVES[@]}"; do
  touch "$WORK/crates/$leaf/src/lib.rs"
  quiet_cargo build --manifest-path "$MANIFEST" -p "$leaf" --lib
done

echo "== clean leaf: touch src/lib.rs, CARGO_INCREMENTAL=0 ($RUNS runs)"
for _ in $(seq 1 "$RUNS"); do
  for leaf in "${LEAVES[@]}" "${CHAINS[@]}"; do
    touch "$WORK/crates/$leaf/src/lib.rs"
    timed_build clean "$leaf"
  done
done

echo "== edit loop: one-line edits with the incremental cache ($RUNS runs)"
export CARGO_INCREMENTAL=1
rev=1
for leaf in "${LEAVES[@]}"; do
  python3 scripts/build-cost.py edit "$WORK/crates/$leaf/src/lib.rs" "$rev"
done
mapfile -t selected < <(packages "${LEAVES[@]}")
quiet_cargo build --manifest-path "$MANIFEST" "${selected[@]}" --lib
for _ in $(seq 1 "$RUNS"); do
  rev=$((rev + 1))
  for leaf in "${LEAVES[@]}"; do
    python3 scripts/build-cost.py edit "$WORK/crates/$leaf/src/lib.rs" "$rev"
    timed_build edit "$leaf"
    python3 scripts/build-cost.py edit "$WORK/crates/$leaf/src/lib.rs" "$rev" --shift
    timed_build shift "$leaf"
  done
done

python3 scripts/build-cost.py report "$TIMINGS" --tools "$TOOLS" --questions "$QUESTIONS" \
  --runs "$RUNS"
echo
echo "cargo build -p <leaf> --lib, dev profile, rustc $(rustc --version | cut -d' ' -f2)," \
  "$(nproc 2>/dev/null || echo '?') cores."
