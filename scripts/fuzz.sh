#!/usr/bin/env bash
# Coverage-guided fuzzing of mcp-runtime on the stable toolchain: builds the targets of fuzz/
# with libFuzzer (the libfuzzer-sys crate, compiled from source with the machine's C++
# compiler) and LLVM's sanitizer-coverage passes (plain `-C` flags, no nightly), then runs each
# target for a while, one after another.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]   default 60 s, every target
#   scripts/fuzz.sh --ci                              the short run for CI: 12 s per target
#
# Targets: state (request-state codec), dispatch (JSON-RPC envelope and dispatch, both eras),
# forms (answer parsers of every example form), http (HTTP/1.1 framing on a loopback socket).
# The corpus grows in fuzz/corpus/TARGET (seeded from the target's own valid inputs on every
# run); a finding is written to fuzz/artifacts/TARGET/ and reproduces in a plain build:
#
#   cargo run -p mcp-fuzz --bin fuzz-TARGET -- fuzz/artifacts/TARGET/crash-...
#
# Prints executions and findings per target; exits non-zero if any target found something, or
# ran no input at all (a target that never ran cannot report "no finding").
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

seconds=60
locked=()
targets=()
for arg in "$@"; do
    case "$arg" in
        --ci) seconds=12; locked=(--locked) ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        ''|*[!0-9]*) targets+=("$arg") ;;
        *) seconds="$arg" ;;
    esac
done
[[ ${#targets[@]} -gt 0 ]] || targets=(state dispatch forms http)

triple="$(rustc -vV | sed -n 's/^host: //p')"
# An explicit --target keeps these flags off build scripts and proc macros.
export RUSTFLAGS="-Cpasses=sancov-module \
 -Cllvm-args=-sanitizer-coverage-level=4 \
 -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
 -Cllvm-args=-sanitizer-coverage-pc-table \
 -Cllvm-args=-sanitizer-coverage-trace-compares \
 -Cdebug-assertions -Coverflow-checks"
export CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
target_dir="${MCP_FUZZ_TARGET_DIR:-target/fuzz}"

echo "== building the fuzz targets (libFuzzer, sanitizer coverage, $triple)"
started=$SECONDS
cargo build "${locked[@]}" --release -p mcp-fuzz --features libfuzzer \
    --target "$triple" --target-dir "$target_dir" --bins
echo "   built in $((SECONDS - started)) s"

bin_dir="$target_dir/$triple/release"
failed=0
summary=()
for target in "${targets[@]}"; do
    corpus="fuzz/corpus/$target"
    artifacts="fuzz/artifacts/$target"
    dict="$target_dir/$target.dict"
    log="$target_dir/$target.log"
    mkdir -p "$corpus" "$artifacts"
    echo "== fuzzing $target for $seconds s"
    status=0
    # The target writes its seeds and dictionary in its initialisation, which libFuzzer runs
    # before it reads either. -timeout: an input running this long (seconds of real time) is a hang. The targets'
    # own deadlines catch waits; this catches a spinning thread.
    MCP_FUZZ_SEEDS="$corpus" MCP_FUZZ_DICT="$dict" \
        "$bin_dir/fuzz-$target" "$corpus" \
        -max_total_time="$seconds" -timeout=20 -rss_limit_mb=4096 -max_len=16384 \
        -dict="$dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
        >"$log" 2>&1 || status=$?
    execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
    coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1 | sed 's/cov: //' || true)"
    found="$(grep -E '^(SUMMARY|==[0-9]+== ERROR)' "$log" | head -1 || true)"
    if [[ $status -ne 0 || -n "$found" ]]; then
        failed=1
        echo "   FINDING in $target (exit $status): ${found:-see $log}"
        grep -E "panicked at|^thread '" -A3 "$log" | head -20 || true
        ls -t "$artifacts" | head -3 | sed "s|^|   artifact: $artifacts/|"
        summary+=("$target: ${execs:-?} executions, coverage ${coverage:-?}, FINDING (log: $log)")
    elif [[ ! "$execs" =~ ^[0-9]+$ || "$execs" -eq 0 ]]; then
        failed=1
        echo "   NO INPUT RAN in $target: libFuzzer reported ${execs:-no} executions (log: $log)"
        tail -n 5 "$log" | sed 's/^/   /'
        summary+=("$target: ${execs:-no} executions, NOT FUZZED (log: $log)")
    else
        summary+=("$target: ${execs:-?} executions, coverage ${coverage:-?}, no finding")
    fi
done

echo "== fuzzing summary ($seconds s per target)"
printf '   %s\n' "${summary[@]}"
exit "$failed"
