//! Validation against the vendored 2026-07-28 JSON Schema: the same support the tests of
//! `mcp-runtime` use, compiled once per test process.

#[path = "../../../mcp-runtime/tests/common/mod.rs"]
mod common;

pub(crate) use common::schema_validate as assert_valid;
