//! The in-process replay store.

use std::cmp::Reverse;
use std::collections::hash_map::Entry as Slot;
use std::collections::{BinaryHeap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use super::{Begin, BoxFuture, Owner, ReplayStore, StoreError};
use crate::state::{Clock, SystemClock};

/// How many records a [`MemoryReplayStore`] keeps unless told otherwise.
pub const DEFAULT_REPLAY_CAPACITY: usize = 100_000;

/// How many live records one subject may hold in a replay store unless told otherwise: 1,024,
/// four times the server's default cap on requests at once (256). A subject may keep every
/// request slot busy with single-use rounds and still have room for the states those rounds
/// mint, while about a hundred subjects are needed to fill the in-process store's default
/// capacity.
pub const DEFAULT_OWNER_QUOTA: usize = 1_024;

/// How many live records the callers with neither a subject nor a known address hold
/// together, unless told otherwise:
/// 50,000, half the in-process store's default capacity, so anonymous traffic never takes the
/// room of authenticated subjects.
pub const DEFAULT_ANONYMOUS_QUOTA: usize = 50_000;

/// A [`ReplayStore`] in this process's memory.
///
/// Records expire with their states and are dropped as later calls pass their expiry. The
/// store holds at most its capacity of records ([`DEFAULT_REPLAY_CAPACITY`] by default, see
/// [`with_capacity`](Self::with_capacity)). At that bound it drops expired records first and
/// otherwise **refuses** to begin the use of a new state, with [`StoreError::Full`], rather
/// than forget a live record: a store that forgets lets that state be replayed. Uses of states
/// it already holds are still answered. Size the capacity for the states minted during one
/// time-to-live (a busy server minting 100 states a second with a ten-minute time-to-live holds
/// up to 60,000).
///
/// Within the capacity, each owner holds at most its quota ([`DEFAULT_OWNER_QUOTA`] per
/// subject, [`DEFAULT_ANONYMOUS_QUOTA`] for the callers without one together; see
/// [`with_owner_quota`](Self::with_owner_quota)): one subject cannot fill the store, and past
/// its quota only its own new states are refused ([`StoreError::OverQuota`]).
///
/// One mutex guards a hash map and a queue of expiries; it is held for a lookup and an insert,
/// never across an `.await`. Records are not shared with other processes: behind a load
/// balancer, use [`RedisReplayStore`](super::RedisReplayStore) or route every round of a flow
/// to the same instance.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::state::{Begin, MemoryReplayStore, ReplayStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryReplayStore::new();
/// let (id, answers, ttl) = ([1; 16], [2; 32], Duration::from_secs(600));
/// assert_eq!(store.begin(&id, &answers, ttl).await?, Begin::Fresh);
/// assert_eq!(store.begin(&id, &answers, ttl).await?, Begin::Pending);
/// store.finish(&id, &answers, b"{\"content\":[]}", ttl).await?;
/// assert_eq!(store.begin(&id, &answers, ttl).await?, Begin::Done(b"{\"content\":[]}".to_vec()));
/// assert_eq!(store.begin(&id, &[3; 32], ttl).await?, Begin::Conflict);
/// # Ok::<(), mcp_runtime::state::StoreError>(())
/// # }).unwrap();
/// ```
pub struct MemoryReplayStore {
    records: Mutex<Records>,
    capacity: usize,
    owner_quota: usize,
    anonymous_quota: usize,
    clock: Arc<dyn Clock>,
}

#[derive(Default)]
struct Records {
    by_id: HashMap<[u8; 16], Record>,
    /// When each record expires, soonest first. A record whose expiry a `finish` brought
    /// forward has two entries here; the later one finds it gone or renewed and is skipped.
    expiries: BinaryHeap<Reverse<(SystemTime, [u8; 16])>>,
    /// How many records each owner holds, by [`Owner::key`]; owners holding none are absent.
    owners: HashMap<[u8; 16], usize>,
}

struct Record {
    owner: [u8; 16],
    answers: [u8; 32],
    expires: SystemTime,
    /// The first use's reply, once it finished.
    reply: Option<Box<[u8]>>,
    /// No use runs: the last one was released before it finished.
    released: bool,
}

impl MemoryReplayStore {
    /// An empty store holding up to [`DEFAULT_REPLAY_CAPACITY`] records, on the system clock.
    pub fn new() -> Self {
        Self {
            records: Mutex::default(),
            capacity: DEFAULT_REPLAY_CAPACITY,
            owner_quota: DEFAULT_OWNER_QUOTA,
            anonymous_quota: DEFAULT_ANONYMOUS_QUOTA,
            clock: Arc::new(SystemClock),
        }
    }

    /// Holds up to `capacity` records that have not expired (at least one).
    #[must_use]
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// Lets each subject hold up to `quota` records that have not expired (at least one;
    /// default [`DEFAULT_OWNER_QUOTA`]).
    #[must_use]
    pub fn with_owner_quota(mut self, quota: usize) -> Self {
        self.owner_quota = quota.max(1);
        self
    }

    /// Lets the callers with neither a subject nor a known address hold up to `quota` records
    /// together (at least one;
    /// default [`DEFAULT_ANONYMOUS_QUOTA`]).
    #[must_use]
    pub fn with_anonymous_quota(mut self, quota: usize) -> Self {
        self.anonymous_quota = quota.max(1);
        self
    }

    /// Reads the time from `clock` instead of the system clock; for tests.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// The most records the store holds.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// How many records the store holds, expired ones it has not dropped yet included.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether the store holds no record.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Records> {
        // Every change under this lock leaves the map and the queue consistent between two
        // statements, so a panic elsewhere cannot leave them half-written.
        self.records.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn begin_now(
        &self,
        owner: Owner<'_>,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> Result<Begin, StoreError> {
        let now = self.clock.now();
        let expires = expiry(now, ttl)?;
        let quota = match owner {
            Owner::Subject(_) | Owner::Peer(_) => self.owner_quota,
            Owner::Anonymous => self.anonymous_quota,
        };
        let owner = owner.key();
        let mut records = self.lock();
        records.drop_expired(now);
        let Records {
            by_id,
            expiries,
            owners,
        } = &mut *records;
        let full = by_id.len() >= self.capacity;
        let held = owners.get(&owner).copied().unwrap_or(0);
        match by_id.entry(*id) {
            Slot::Occupied(mut slot) => {
                let record = slot.get_mut();
                Ok(if record.answers != *answers {
                    Begin::Conflict
                } else if let Some(reply) = &record.reply {
                    Begin::Done(reply.to_vec())
                } else if record.released {
                    record.released = false;
                    Begin::Fresh
                } else {
                    Begin::Pending
                })
            }
            Slot::Vacant(_) if held >= quota => Err(StoreError::OverQuota { quota }),
            Slot::Vacant(_) if full => Err(StoreError::Full {
                capacity: self.capacity,
            }),
            Slot::Vacant(slot) => {
                *owners.entry(owner).or_insert(0) += 1;
                slot.insert(Record {
                    owner,
                    answers: *answers,
                    expires,
                    reply: None,
                    released: false,
                });
                expiries.push(Reverse((expires, *id)));
                Ok(Begin::Fresh)
            }
        }
    }

    fn finish_now(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> Result<(), StoreError> {
        let now = self.clock.now();
        let until = expiry(now, ttl)?;
        let mut records = self.lock();
        records.drop_expired(now);
        let Records {
            by_id, expiries, ..
        } = &mut *records;
        if let Some(record) = by_id.get_mut(id)
            && record.answers == *answers
            && record.reply.is_none()
        {
            record.reply = Some(reply.into());
            if until < record.expires {
                record.expires = until;
                expiries.push(Reverse((until, *id)));
            }
        }
        Ok(())
    }

    fn release_now(&self, id: &[u8; 16], answers: &[u8; 32]) {
        let now = self.clock.now();
        let mut records = self.lock();
        records.drop_expired(now);
        if let Some(record) = records.by_id.get_mut(id)
            && record.answers == *answers
            && record.reply.is_none()
        {
            record.released = true;
        }
    }
}

impl Records {
    /// Drops every record that expired at or before `now`.
    fn drop_expired(&mut self, now: SystemTime) {
        while let Some(&Reverse((at, id))) = self.expiries.peek() {
            if at > now {
                break;
            }
            self.expiries.pop();
            if self
                .by_id
                .get(&id)
                .is_some_and(|record| record.expires <= now)
                && let Some(record) = self.by_id.remove(&id)
                && let Slot::Occupied(mut held) = self.owners.entry(record.owner)
            {
                *held.get_mut() -= 1;
                if *held.get() == 0 {
                    held.remove();
                }
            }
        }
    }
}

/// When a record made at `now` for `ttl` expires.
fn expiry(now: SystemTime, ttl: Duration) -> Result<SystemTime, StoreError> {
    if ttl.is_zero() {
        return Err(StoreError::Ttl(ttl));
    }
    now.checked_add(ttl).ok_or(StoreError::Ttl(ttl))
}

impl ReplayStore for MemoryReplayStore {
    fn begin(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        Box::pin(std::future::ready(self.begin_now(
            Owner::Anonymous,
            id,
            answers,
            ttl,
        )))
    }

    fn begin_owned(
        &self,
        owner: Owner<'_>,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        Box::pin(std::future::ready(self.begin_now(owner, id, answers, ttl)))
    }

    fn finish(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        Box::pin(std::future::ready(self.finish_now(id, answers, reply, ttl)))
    }

    fn release(&self, id: &[u8; 16], answers: &[u8; 32]) -> BoxFuture<'_, Result<(), StoreError>> {
        self.release_now(id, answers);
        Box::pin(std::future::ready(Ok(())))
    }
}

impl Default for MemoryReplayStore {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryReplayStore")
            .field("records", &self.len())
            .field("capacity", &self.capacity)
            .field("owner_quota", &self.owner_quota)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::ManualClock;

    #[test]
    fn expired_records_leave_the_queue_and_the_map() {
        let clock = Arc::new(ManualClock::from_unix_secs(1_000));
        let store = MemoryReplayStore::new().with_clock(clock.clone());
        let ttl = Duration::from_secs(10);
        for n in 0..5u8 {
            assert_eq!(
                store
                    .begin_now(Owner::Anonymous, &[n; 16], &[0; 32], ttl)
                    .ok(),
                Some(Begin::Fresh)
            );
        }
        // A finish that brings the expiry forward queues it a second time.
        store
            .finish_now(&[0; 16], &[0; 32], b"r", Duration::from_secs(5))
            .expect("finishes");
        assert_eq!(store.lock().expiries.len(), 6);
        clock.advance(Duration::from_secs(5));
        assert_eq!(
            store
                .begin_now(Owner::Anonymous, &[9; 16], &[0; 32], ttl)
                .ok(),
            Some(Begin::Fresh)
        );
        assert_eq!(store.len(), 5);
        clock.advance(Duration::from_secs(20));
        store
            .finish_now(&[1; 16], &[0; 32], b"late", ttl)
            .expect("finishes");
        let records = store.lock();
        assert!(records.by_id.is_empty());
        assert!(records.expiries.is_empty());
    }
}
