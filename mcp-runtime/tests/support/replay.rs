//! What the replay store tests share: state ids, answer digests, a reply, one begun use.

use std::time::Duration;

use mcp_runtime::state::{Begin, ReplayStore};

/// How long the states of these tests live.
pub(crate) const TTL: Duration = Duration::from_secs(600);

/// A random state id, so that runs against a shared Redis never meet.
pub(crate) fn id() -> [u8; 16] {
    let mut id = [0; 16];
    getrandom::fill(&mut id).expect("the system has randomness");
    id
}

/// A stand-in for the digest of a round's answers.
pub(crate) fn answers(n: u8) -> [u8; 32] {
    [n; 32]
}

/// The bytes of a result object, with what a store might mistake for its own syntax.
pub(crate) const REPLY: &[u8] = b"{\"content\":[{\"type\":\"text\",\"text\":\"d:p:\"}]}\x00\xff:";

/// Begins a use of `id` with `answers`, for as long as the states of these tests live.
pub(crate) async fn begin(store: &dyn ReplayStore, id: &[u8; 16], answers: &[u8; 32]) -> Begin {
    store
        .begin(id, answers, TTL)
        .await
        .expect("the store answers")
}
