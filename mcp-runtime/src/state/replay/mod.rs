//! The replay store: request states used once, retries of that use answered once. See
//! [`ReplayStore`].

mod memory;
#[cfg(feature = "redis")]
mod redis_store;

use std::error::Error;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

pub use memory::{
    DEFAULT_ANONYMOUS_QUOTA, DEFAULT_OWNER_QUOTA, DEFAULT_REPLAY_CAPACITY, MemoryReplayStore,
};
#[cfg(feature = "redis")]
pub use redis_store::{DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT, RedisReplayStore};
#[cfg(feature = "redis")]
pub(crate) use redis_store::{answer_within, connect_redis, whole_millis};

/// A boxed future that can move between threads; what [`ReplayStore`] methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Records the use of request states, so that each is used once and retries of that one use are
/// answered with its reply.
///
/// A verified `requestState` carries a random 16-byte id. When a client sends one back, the
/// server asks a [`ReplayStore`] to [`begin`](ReplayStore::begin) its use, passing a 32-byte
/// digest of the answers (`inputResponses`) that come with it. The store records the first use
/// atomically, so that across every instance sharing the store:
///
/// - the first use runs the round ([`Begin::Fresh`]);
/// - a retry with the same answers, once that first use has [`finish`](ReplayStore::finish)ed,
///   gets the first use's reply without running anything ([`Begin::Done`]);
/// - a retry with the same answers while the first use still runs is told to try again later
///   ([`Begin::Pending`]);
/// - the same state with other answers is refused like an invalid state ([`Begin::Conflict`]).
///
/// # Lifetime
///
/// A record lives exactly as long as its state: `ttl` is the time the state has left, and no
/// store keeps a record longer than the `ttl` given to `begin` (a `finish` never extends it).
/// Once the state has expired the signer refuses it before the store is asked, so the record is
/// no longer needed. Pass a `ttl` that reaches at least the state's expiry (round up, and add
/// the clock skew allowed between instances): a record that vanishes while its state still
/// verifies lets that state be used again.
///
/// A first use that never finishes (its instance died, or `begin` failed after the store had
/// recorded it) leaves its state pending until it expires: retries are told to try later, and
/// the client eventually starts the request over. Nothing runs twice.
///
/// # A round cut off
///
/// The server runs a round whose use has begun in a task of its own, so a client that goes
/// away (its HTTP connection closes, or it cancels the request) does not cut it off: the
/// round runs to its end and stores its reply, and the retry gets it. A round can still be
/// dropped at the `.await` it had reached, before it has a reply to store, when its task is
/// aborted (the runtime shutting down). The server then
/// [`release`](ReplayStore::release)s its use: the record keeps the answers, so the state is
/// still refused with any others, but the next use with the same answers runs the round
/// again. The client never got a reply, and a lost reply is exactly what a retry is for;
/// keeping the record pending would refuse every retry until the state expires and leave the
/// client only to start the whole flow over, which runs more code again, not less. The price:
/// the code of the round before the `.await` where it was cut off ran, and runs again on the
/// retry. A side effect there that must happen once even then needs an idempotency key of its
/// own, as with any request a client may cancel. A round dropped once its reply is known
/// still stores it: the retry gets that reply and nothing runs again.
///
/// # Owners and quotas
///
/// Each use is charged to an [`Owner`]: the subject the state is bound to; for a caller
/// without one, the address it connects from; for a caller with neither (stdio, a transport
/// naming no peer), one shared anonymous owner. A store keeps at most a quota of live
/// records per owner ([`DEFAULT_OWNER_QUOTA`] per subject or address,
/// [`DEFAULT_ANONYMOUS_QUOTA`] for the anonymous owner, by default), so one client minting
/// states as fast as it can fills its
/// own quota, not the store: past it, its new states are refused with
/// [`StoreError::OverQuota`] (the server answers `503` with `Retry-After`, for that subject's
/// new single-use rounds only) until its records expire, while every other owner's rounds go
/// on. Uses of records already held (retries, conflicts) are answered whatever the quota.
/// [`begin`](ReplayStore::begin) charges the anonymous owner; the server calls
/// [`begin_owned`](ReplayStore::begin_owned).
///
/// # Failing closed
///
/// Every operation may fail with a [`StoreError`]: Redis unreachable or too slow, the in-process
/// store full. The caller then refuses the round with a retryable error and runs nothing; a
/// store that cannot vouch for single use never lets a state through.
///
/// # Stores
///
/// - [`MemoryReplayStore`] keeps the records in the process: for a single instance, or
///   instances behind a load balancer that routes every request of one flow to the same one.
/// - [`RedisReplayStore`] (feature `redis`, on by default) keeps them in Redis, shared by every
///   instance that connects to it; one round trip per call.
///
/// Memory bounds: the in-process store keeps at most its capacity of records, each holding the
/// reply of its first use, so its memory is about the capacity times the size of a reply; in
/// Redis every record is one key with the same content.
pub trait ReplayStore: Send + Sync + 'static {
    /// Records the use of state `id` with the answers whose digest is `answers`, unless the
    /// state was used before, and tells what to do; atomic across everything that shares the
    /// store.
    ///
    /// `ttl` is the time the state has left: a new record lives that long. A zero `ttl` is
    /// refused with [`StoreError::Ttl`].
    fn begin(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>>;

    /// [`begin`](ReplayStore::begin), charging a new record to `owner`, within its quota (see
    /// [owners and quotas](ReplayStore#owners-and-quotas)): past the quota, a new record is
    /// refused with [`StoreError::OverQuota`].
    ///
    /// The default ignores the owner and calls `begin`, so a store of the application's own
    /// keeps working without quotas.
    fn begin_owned(
        &self,
        owner: Owner<'_>,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        let _ = owner;
        self.begin(id, answers, ttl)
    }

    /// Stores `reply` as the outcome of the first use of state `id` with `answers`, for the rest
    /// of the state's lifetime, so that retries get it as [`Begin::Done`].
    ///
    /// Does nothing when no such use is pending: the record has expired, or was begun with
    /// other answers. The record keeps the expiry `begin` gave it, or expires `ttl` from now if
    /// that is sooner.
    fn finish(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), StoreError>>;

    /// Lets the pending first use of state `id` with `answers` be begun again, with the same
    /// answers only: its round was cut off before it had a reply (see [a round cut
    /// off](ReplayStore#a-round-cut-off)). The next [`begin`](ReplayStore::begin) with
    /// `answers` is then [`Begin::Fresh`], and with other answers still [`Begin::Conflict`].
    ///
    /// Does nothing when no such use is pending (the record has expired, was begun with other
    /// answers, or has finished). The record keeps its expiry.
    ///
    /// The default does nothing, so a store that does not implement it leaves a cut-off round
    /// pending until its state expires: retries are told to try later, and nothing runs twice.
    fn release(&self, id: &[u8; 16], answers: &[u8; 32]) -> BoxFuture<'_, Result<(), StoreError>> {
        let _ = (id, answers);
        Box::pin(std::future::ready(Ok(())))
    }
}

impl<S: ReplayStore + ?Sized> ReplayStore for Arc<S> {
    fn begin(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        (**self).begin(id, answers, ttl)
    }

    fn begin_owned(
        &self,
        owner: Owner<'_>,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        (**self).begin_owned(owner, id, answers, ttl)
    }

    fn finish(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).finish(id, answers, reply, ttl)
    }

    fn release(&self, id: &[u8; 16], answers: &[u8; 32]) -> BoxFuture<'_, Result<(), StoreError>> {
        (**self).release(id, answers)
    }
}

/// Who a new record is charged to ([`ReplayStore::begin_owned`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner<'a> {
    /// The subject the state is bound to.
    Subject(&'a str),
    /// A caller without a subject, by the address it connects from (an IPv6 address by its
    /// /64 network): it gets a subject's quota.
    Peer(std::net::IpAddr),
    /// A caller with neither (stdio, or a transport that names no peer): every such caller
    /// shares this one owner.
    Anonymous,
}

impl Owner<'_> {
    /// A fixed-size key for the owner: a digest of its subject, so that a long subject costs
    /// no more memory (or Redis key space) than a short one.
    pub(crate) fn key(self) -> [u8; 16] {
        use sha2::{Digest as _, Sha256};
        let mut hasher = Sha256::new();
        match self {
            Self::Subject(subject) => {
                hasher.update([1]);
                hasher.update(subject.as_bytes());
            }
            Self::Peer(address) => {
                hasher.update([2]);
                match address {
                    std::net::IpAddr::V4(v4) => hasher.update(v4.octets()),
                    std::net::IpAddr::V6(v6) => hasher.update(v6.octets()),
                }
            }
            Self::Anonymous => hasher.update([0]),
        }
        let digest = hasher.finalize();
        let mut key = [0; 16];
        key.copy_from_slice(&digest[..16]);
        key
    }
}

/// What [`ReplayStore::begin`] found, and so what the caller does with the state in hand.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Begin {
    /// The first use of this state, or a use again after the first was
    /// [`release`](ReplayStore::release)d: run the round, then
    /// [`finish`](ReplayStore::finish) it (or release it when it is cut off).
    Fresh,
    /// A retry with the same answers whose first use finished: answer with these bytes, the
    /// reply the first use stored, and run nothing.
    Done(Vec<u8>),
    /// A retry with the same answers while the first use still runs: answer a retryable error.
    Pending,
    /// The state was used with other answers: refuse it like an invalid state.
    Conflict,
}

/// Why a [`ReplayStore`] could not answer. The caller fails closed: it refuses the round with a
/// retryable error and runs nothing.
#[derive(Debug)]
#[non_exhaustive]
pub enum StoreError {
    /// The in-process store holds `capacity` records that have not expired, and forgetting one
    /// would let its state be replayed.
    Full {
        /// The store's maximum number of records.
        capacity: usize,
    },
    /// The owner of a new record already holds `quota` records that have not expired (see
    /// [owners and quotas](ReplayStore#owners-and-quotas)); other owners are not affected.
    OverQuota {
        /// The owner's maximum number of records.
        quota: usize,
    },
    /// The `ttl` was zero (the state has no time left) or too large to represent.
    Ttl(Duration),
    /// The backend could not be reached, did not answer in time, or answered with an error.
    Backend(Box<dyn Error + Send + Sync>),
    /// The backend holds a record under the state's key that this store did not write.
    Corrupt,
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { capacity } => {
                write!(f, "replay store full: {capacity} records have not expired")
            }
            Self::OverQuota { quota } => write!(
                f,
                "replay store quota reached: this caller holds {quota} records that have not expired"
            ),
            Self::Ttl(ttl) => write!(f, "replay store cannot keep a record for {ttl:?}"),
            Self::Backend(error) => write!(f, "replay store backend failed: {error}"),
            Self::Corrupt => f.write_str("replay store holds a record it did not write"),
        }
    }
}

impl Error for StoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Backend(error) => Some(&**error),
            _ => None,
        }
    }
}
