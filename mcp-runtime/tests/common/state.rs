//! What the state tests share: the keys, the signers, a payload and a request to bind.

#![allow(dead_code, reason = "each state test binary uses part of these")]
#![allow(
    unreachable_pub,
    reason = "shared through `#[path]` by several test binaries"
)]

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use mcp_runtime::state::{Binding, BindingContext, Signer};
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

/// A signed token built by hand from the documented layout: `body` (header, payload length,
/// payload) under `SECRET`, then the 8-byte binding check and the tag over `binding`.
pub fn signed_by_hand(body: &[u8], binding: &Binding) -> String {
    let mac = Hmac::<sha2::Sha256>::new_from_slice(&SECRET).expect("any key length");
    let check = mac.clone().chain_update(body).chain_update([0]).finalize();
    let check = &check.into_bytes()[..8];
    let tag = mac
        .chain_update(body)
        .chain_update([1])
        .chain_update(check)
        .chain_update(binding.as_bytes())
        .finalize()
        .into_bytes();
    URL_SAFE_NO_PAD.encode([body, check, &tag].concat())
}
