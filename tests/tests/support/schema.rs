//! Validation against the vendored JSON Schemas (2026-07-28 and 2025-11-25): the same support the tests of
//! `mcp-runtime` use, compiled once per test process.

#[path = "../../../mcp-runtime/tests/common/mod.rs"]
mod common;

#[allow(
    unused_imports,
    reason = "not every test binary checks values against a schema of their own"
)]
pub(crate) use common::check_against;
#[allow(
    unused_imports,
    reason = "not every test binary validates legacy messages"
)]
pub(crate) use common::legacy_schema_validate as assert_legacy_valid;
#[allow(
    unused_imports,
    reason = "not every test binary validates 2026-07-28 messages"
)]
pub(crate) use common::schema_validate as assert_valid;

/// Asserts that `message` is one a 2025-11-25 server may send: a server-to-client request,
/// a server notification, or a response (a refusal's error among them).
#[allow(dead_code, reason = "not every test binary validates legacy messages")]
pub(crate) fn assert_legacy_server_message(message: &serde_json::Value) {
    assert_legacy_valid("JSONRPCMessage", message);
    match (message.get("method"), message.get("id")) {
        (Some(_), Some(_)) => assert_legacy_valid("ServerRequest", message),
        (Some(_), None) => assert_legacy_valid("ServerNotification", message),
        _ => assert_legacy_valid("JSONRPCResponse", message),
    }
}
