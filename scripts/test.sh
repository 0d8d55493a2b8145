#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, then runs every test of
# the workspace. A fresh clone passes with this one line; `.ci/run` runs it too.
#
#   scripts/test.sh [CARGO TEST ARGUMENTS...]   e.g. scripts/test.sh -p mcp-tests --test oauth
#
# What it installs: `redis-server` (for the replay store's tests, through `scripts/redis.sh
# install`: Debian's package, as root or through sudo), only when it is not on PATH; the
# tests of a Redis going down start their own even when REDIS_URL names a shared one. Without
# arguments it runs `cargo test --locked --workspace`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

./scripts/redis.sh install

if [[ $# -eq 0 ]]; then
  set -- --workspace
fi
exec cargo test --locked "$@"
