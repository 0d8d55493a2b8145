//! The fixed test vector of the default binding: a request context and its exact digest.
//! Shared with the end-to-end tests, which check it with `serde_json`'s `preserve_order` on.

#![allow(dead_code, reason = "each test binary uses part of these")]
#![allow(
    unreachable_pub,
    reason = "shared through `#[path]` by several test binaries"
)]

use mcp_runtime::state::BindingContext;
use serde_json::Value;

/// The arguments of the vector, as a client might send them (members not in key order).
pub const VECTOR_ARGUMENTS: &str = r#"{"replicas":3,"env":"prod"}"#;

/// The default binding of [`vector_cx`] over [`VECTOR_ARGUMENTS`], as its `Debug` prints it.
pub const VECTOR_BINDING: &str =
    "Binding(ce43e8b77825551a2551d9c7ca94857b4398846893cb27ed53c87bf9da59bd58)";

/// The context of the test vectors.
pub fn vector_cx(arguments: &Value) -> BindingContext<'_> {
    BindingContext::new("tools/call", "deploy")
        .with_audience("ops-server")
        .with_subject(Some("alice"))
        .with_arguments(Some(arguments))
}
