//! The `deploy` example's server: its tools and their registry, under a fixed key.

#![allow(
    dead_code,
    reason = "each test binary includes this support and uses part of it"
)]

use mcp_examples::deploy;
use mcp_runtime::server::Server;
use mcp_runtime::state::Signer;

/// The server the `deploy` example builds, signing with a key made of `secret`.
pub(crate) fn server(secret: u8) -> Server {
    deploy::register(Server::builder().name("deploy").version("0.0.0"))
        .signer(Signer::new(1, &[secret; 32]).expect("a 32-byte key is long enough"))
        .build()
}
