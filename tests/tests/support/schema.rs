//! Validation against the vendored 2026-07-28 JSON Schema: the same support the tests of
//! `mcp-runtime` use, compiled once per test process.

#[allow(
    dead_code,
    unreachable_pub,
    reason = "each test binary includes this support and uses part of it"
)]
#[path = "../../../mcp-runtime/tests/common/mod.rs"]
mod common;

pub(crate) use common::schema_validate as assert_valid;
