//! Single use of request states, and retries answered once: the server's side of the
//! [`ReplayStore`].
//!
//! When a client echoes a verified state of a single-use handler, the round first records the
//! state's use in the store, keyed by the state's random id, with a digest of this round's
//! answers:
//!
//! - the first use runs the round, and its reply (result or error) is stored for the rest of
//!   the state's lifetime;
//! - the same state with the same answers (a client retrying after a lost response) gets that
//!   stored reply, without running any handler code;
//! - while the first use still runs, a retry is told to try again later (`503`, `-32603`);
//! - the same state with other answers is refused like any invalid state;
//! - a store that fails (Redis unreachable, the in-process store full) refuses the round with
//!   the same retryable error, and nothing runs: it fails closed;
//! - a caller that holds its quota of live records (see [`ReplayStore`'s owners and
//!   quotas](crate::state::ReplayStore#owners-and-quotas)) is refused the same way, for its
//!   own new rounds only: records are charged to the subject the state is bound to, and
//!   callers without one share one anonymous owner;
//! - a first use runs in a task of the server's (`call.rs`), not in the request's future: when
//!   its client goes away (closes the connection, cancels the request) the round runs to its
//!   end all the same and stores its reply, and the retry gets that reply; nothing runs twice.
//!   At most as many such rounds run at once as requests may (`max_concurrent_requests`); past
//!   that a round is refused with the retryable error before its handler runs (its record
//!   released). A round dropped before its reply (its task aborted as the runtime shuts
//!   down) releases its record, as [`ReplayStore`'s a round cut
//!   off](crate::state::ReplayStore#a-round-cut-off) describes.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;
use sha2::{Digest as _, Sha256};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::logfield::{RateLimit, warn_limited};
use crate::protocol::InputResponses;
use crate::state::{Begin, ReplayStore, StoreError};

/// The replay store, and the single-use rounds allowed to run at once.
#[derive(Clone)]
pub(crate) struct Replay {
    pub(crate) store: Arc<dyn ReplayStore>,
    /// One permit per single-use round running, whether its client still waits or went
    /// away: as many as requests may run at once.
    rounds: Arc<Semaphore>,
}

impl Replay {
    /// The server's replay state, when it has a store: `max_rounds` single-use rounds may run
    /// at once (the server's cap on requests at once).
    pub(crate) fn new(store: Option<Arc<dyn ReplayStore>>, max_rounds: usize) -> Option<Self> {
        store.map(|store| Self {
            store,
            rounds: Arc::new(Semaphore::new(max_rounds.max(1))),
        })
    }

    /// A permit for one more single-use round, if fewer than the cap run.
    pub(crate) fn round_permit(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.rounds).try_acquire_owned().ok()
    }
}

/// Rounds refused over their caller's quota: at most 10 lines every 5 seconds.
static OVER_QUOTA: RateLimit = RateLimit::new(10, Duration::from_secs(5));

/// Extra time a record outlives its state, for clocks of instances that disagree a little.
const CLOCK_SKEW: Duration = Duration::from_secs(5);

/// One use of a single-use state, begun: [`Use::finish`] stores its reply; dropped before
/// that is done, it stores the reply in the background when the round has one, and otherwise
/// releases the record so that a retry can run the round.
pub(crate) struct Use {
    store: Arc<dyn ReplayStore>,
    id: [u8; 16],
    answers: [u8; 32],
    ttl: Duration,
    /// The round's reply, encoded, once it is known.
    reply: Option<Vec<u8>>,
    /// The reply is in the store (or the store refused it).
    finished: bool,
}

/// What the record of a use says about this round.
pub(crate) enum Verdict {
    /// The first use: run the round, then [`Use::finish`].
    Run(Use),
    /// A retry of a finished use: this is its reply.
    Replay(StoredReply),
    /// A retry while the first use runs, or a store that failed: try again later.
    RetryLater(&'static str),
    /// Another use with other answers: refuse the state.
    Conflict,
}

/// A round's reply as stored: its result, or its JSON-RPC error, serialised.
pub(crate) enum StoredReply {
    Result(Vec<u8>),
    Error(Vec<u8>),
}

impl StoredReply {
    fn encode(&self) -> Vec<u8> {
        let (tag, body) = match self {
            Self::Result(body) => (b'r', body),
            Self::Error(body) => (b'e', body),
        };
        let mut bytes = Vec::with_capacity(body.len() + 1);
        bytes.push(tag);
        bytes.extend_from_slice(body);
        bytes
    }

    fn decode(mut bytes: Vec<u8>) -> Option<Self> {
        let tag = *bytes.first()?;
        bytes.remove(0);
        match tag {
            b'r' => Some(Self::Result(bytes)),
            b'e' => Some(Self::Error(bytes)),
            _ => None,
        }
    }
}

/// Records the use of state `id` (valid until `expires_at`, in Unix seconds) with this
/// round's `answers`, charged to `subject`, else to the caller's `peer` (or the anonymous
/// owner).
pub(crate) async fn begin(
    store: Arc<dyn ReplayStore>,
    subject: Option<&str>,
    peer: Option<std::net::IpAddr>,
    id: [u8; 16],
    expires_at: u64,
    answers: Option<&InputResponses>,
) -> Verdict {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let ttl = Duration::from_secs(expires_at).saturating_sub(now) + CLOCK_SKEW;
    let answers = answers_digest(answers);
    let owner = crate::server::owner::charged_to(subject, peer);
    match store.begin_owned(owner, &id, &answers, ttl).await {
        Ok(Begin::Fresh) => Verdict::Run(Use {
            store,
            id,
            answers,
            ttl,
            reply: None,
            finished: false,
        }),
        Ok(Begin::Done(reply)) => match StoredReply::decode(reply) {
            Some(reply) => Verdict::Replay(reply),
            None => {
                tracing::error!("the replay store holds a reply it cannot read");
                Verdict::RetryLater("the replay store failed; retry later")
            }
        },
        Ok(Begin::Pending) => Verdict::RetryLater("this round is still running; retry later"),
        Ok(Begin::Conflict) => Verdict::Conflict,
        Err(error @ StoreError::OverQuota { .. }) => {
            warn_limited!(OVER_QUOTA, %error, "a caller's single-use round is refused over its quota");
            Verdict::RetryLater(
                "too many single-use states of this caller are in flight; retry later",
            )
        }
        Err(error) => {
            tracing::error!(%error, "the replay store failed; the round is refused");
            Verdict::RetryLater("the replay store failed; retry later")
        }
    }
}

impl Use {
    /// Stores the round's reply for retries. A failure only costs retries their replay (they
    /// are then told to try later until the state expires), so it is logged, not answered.
    pub(crate) async fn finish(mut self, reply: &StoredReply) {
        let reply = self.reply.insert(reply.encode());
        let stored = self
            .store
            .finish(&self.id, &self.answers, reply, self.ttl)
            .await;
        self.finished = true;
        if let Err(error) = stored {
            tracing::error!(%error, "the replay store did not keep a reply");
        }
    }
}

impl Drop for Use {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("a cut-off round cannot release its state outside a Tokio runtime");
            return;
        };
        let store = Arc::clone(&self.store);
        let (id, answers, ttl) = (self.id, self.answers, self.ttl);
        match self.reply.take() {
            // Cut off while storing its reply: the round is done, so retries get the reply.
            Some(reply) => runtime.spawn(async move {
                if let Err(error) = store.finish(&id, &answers, &reply, ttl).await {
                    tracing::error!(%error, "the replay store did not keep a reply");
                }
            }),
            None => runtime.spawn(async move {
                match store.release(&id, &answers).await {
                    Ok(()) => tracing::debug!("a cut-off round released its state for a retry"),
                    Err(error) => tracing::error!(
                        %error,
                        "the replay store did not release a cut-off round; its state stays \
                         pending until it expires"
                    ),
                }
            }),
        };
    }
}

/// A digest of a round's answers that does not depend on the order of object members.
fn answers_digest(answers: Option<&InputResponses>) -> [u8; 32] {
    let mut hasher = Sha256::new();
    match answers {
        None => hasher.update([0]),
        Some(answers) => {
            hasher.update([1]);
            feed_len(&mut hasher, answers.len());
            for (key, value) in answers {
                feed_str(&mut hasher, key);
                feed(&mut hasher, value);
            }
        }
    }
    hasher.finalize().into()
}

fn feed_len(hasher: &mut Sha256, len: usize) {
    hasher.update((len as u64).to_le_bytes());
}

fn feed_str(hasher: &mut Sha256, text: &str) {
    feed_len(hasher, text.len());
    hasher.update(text.as_bytes());
}

fn feed(hasher: &mut Sha256, value: &Value) {
    match value {
        Value::Null => hasher.update([b'n']),
        Value::Bool(flag) => hasher.update([b'b', u8::from(*flag)]),
        Value::Number(number) => {
            hasher.update([b'#']);
            feed_str(hasher, &number.to_string());
        }
        Value::String(text) => {
            hasher.update([b's']);
            feed_str(hasher, text);
        }
        Value::Array(items) => {
            hasher.update([b'a']);
            feed_len(hasher, items.len());
            for item in items {
                feed(hasher, item);
            }
        }
        Value::Object(members) => {
            hasher.update([b'o']);
            feed_len(hasher, members.len());
            let mut sorted: Vec<_> = members.iter().collect();
            sorted.sort_unstable_by(|a, b| a.0.cmp(b.0));
            for (key, member) in sorted {
                feed_str(hasher, key);
                feed(hasher, member);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn digest(answers: Value) -> [u8; 32] {
        let answers: InputResponses = serde_json::from_value(answers).unwrap();
        answers_digest(Some(&answers))
    }

    #[test]
    fn the_digest_ignores_member_order_and_sees_every_value() {
        let a = digest(json!({"k": {"action": "accept", "content": {"a": 1, "b": [true]}}}));
        let b = digest(json!({"k": {"content": {"b": [true], "a": 1}, "action": "accept"}}));
        assert_eq!(a, b);
        let other = digest(json!({"k": {"action": "accept", "content": {"a": 2, "b": [true]}}}));
        assert_ne!(a, other);
        assert_ne!(digest(json!({"k": "1"})), digest(json!({"k": 1})));
        assert_ne!(answers_digest(None), digest(json!({})));
    }
}
