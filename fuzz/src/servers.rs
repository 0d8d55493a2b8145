//! The servers and handlers under test: the example tools and every conformance fixture, with
//! a fixed request-state key and a stopped clock, so that a state minted for one input is
//! minted the same for the next and never expires.

use std::sync::Arc;

use mcp_runtime::server::Server;
use mcp_runtime::state::{ManualClock, Signer};

/// The request-state key of every server here.
pub const KEY: [u8; 32] = *b"mcp-fuzz fixed request-state key";
/// The key id of [`KEY`].
pub const KEY_ID: u16 = 1;
/// The time the servers' clock shows (2027-01-15), seconds since the epoch.
pub const NOW: u64 = 1_800_000_000;

/// A signer with [`KEY`] whose clock stands at [`NOW`].
pub fn signer() -> Signer {
    Signer::new(KEY_ID, &KEY)
        .expect("the key is 32 bytes")
        .with_clock(Arc::new(ManualClock::from_unix_secs(NOW)))
}

/// The name, and so the state audience, of [`examples`].
pub const EXAMPLES_NAME: &str = "mcp-fuzz-examples";

/// A server with the example tools: `deploy`, `confirm_deploy`, `deployments`, `order`, the
/// tracker's `create_issue`, `close_issues` and `list_issues`, and `release`, a task tool (so
/// `tasks/get`, `tasks/update` and `tasks/cancel` are served).
pub fn examples() -> Server {
    examples_with(signer())
}

/// [`examples`] with another signer (a sealing one, say).
pub fn examples_with(signer: Signer) -> Server {
    let builder = mcp_examples::tracker::register(Server::builder());
    let builder = mcp_examples::release::register(builder);
    mcp_examples::deploy::register(builder)
        .name(EXAMPLES_NAME)
        .version("1.0.0")
        .signer(signer)
        .tool(mcp_examples::order::order)
        .build()
}

/// The conformance server: every fixture of `examples/src/bin/conformance-server.rs`.
pub fn conformance() -> Server {
    conformance::build(signer())
}

/// The conformance server's source, compiled here (see `build.rs`).
#[allow(
    deprecated,
    reason = "the fixtures exercise sampling and roots, deprecated in 2026-07-28"
)]
#[allow(dead_code, reason = "the file's `main` and options are not used here")]
#[allow(unreachable_pub, reason = "the file is written as a binary's root")]
mod conformance {
    include!(concat!(env!("OUT_DIR"), "/conformance_server.rs"));

    /// The conformance server, as its `main` builds it.
    pub(super) fn build(signer: mcp_runtime::state::Signer) -> Server {
        server().signer(signer).build()
    }
}
