//! What the state tests share: the keys, the signers, a payload and a request to bind.

#![allow(dead_code, reason = "each state test binary uses part of these")]
#![allow(
    unreachable_pub,
    reason = "shared through `#[path]` by several test binaries"
)]

use mcp_runtime::state::{BindingContext, Signer};
use serde_json::{Value, json};

pub const SECRET: [u8; 32] = [0x42; 32];
pub const OTHER_SECRET: [u8; 32] = [0x17; 32];
pub const NOW: u64 = 1_800_000_000;

pub fn signer() -> Signer {
    Signer::new(1, &SECRET).expect("a 32-byte secret is accepted")
}

/// The same key, minting sealed tokens.
pub fn sealer() -> Signer {
    signer().sealed()
}

/// A signed and a sealed signer over the same key.
pub fn both() -> [Signer; 2] {
    [signer(), sealer()]
}

pub fn payload() -> Vec<u8> {
    (0..=255u8).collect()
}

pub fn cx<'a>(arguments: Option<&'a Value>) -> BindingContext<'a> {
    BindingContext::new("tools/call", "deploy")
        .with_subject(Some("alice"))
        .with_arguments(arguments)
}

pub fn args() -> Value {
    json!({ "env": "prod", "replicas": 3, "tags": ["a", "b"] })
}
