//! The in-process task store.

use std::cmp::Reverse;
use std::collections::hash_map::Entry as Slot;
use std::collections::{BinaryHeap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime};

use super::{BoxFuture, Owner, TaskStore, TaskStoreError, Versioned};
use crate::state::{Clock, SystemClock};

/// How many live tasks a [`MemoryTaskStore`] keeps unless told otherwise.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

/// How many live tasks one owner (a subject; a caller without one by its address; the callers
/// with neither together) may hold unless told otherwise.
pub const DEFAULT_TASKS_PER_OWNER: usize = 100;

/// A [`TaskStore`] in this process's memory: for one instance, or instances behind a load
/// balancer that routes every request about a task to the one that created it.
///
/// Tasks expire `ttl` after their creation and are dropped as later calls pass their expiry.
/// At its capacity ([`DEFAULT_TASK_CAPACITY`] by default) the store drops expired tasks first
/// and otherwise refuses new ones ([`TaskStoreError::Full`]); each owner holds at most its
/// quota ([`DEFAULT_TASKS_PER_OWNER`]). One mutex guards a map and a queue of expiries, never
/// held across an `.await`.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::tasks::{MemoryTaskStore, Owner, TaskStore};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let store = MemoryTaskStore::new();
/// store.create(Owner::Anonymous, "t1", b"working", Duration::from_secs(60)).await?;
/// let found = store.get("t1").await?.expect("created");
/// assert!(store.replace("t1", found.version, b"completed").await?);
/// assert!(!store.replace("t1", found.version, b"cancelled").await?, "a stale version loses");
/// # Ok::<(), mcp_runtime::tasks::TaskStoreError>(())
/// # }).unwrap();
/// ```
pub struct MemoryTaskStore {
    tasks: Mutex<Tasks>,
    capacity: usize,
    owner_quota: usize,
    clock: Arc<dyn Clock>,
}

#[derive(Default)]
struct Tasks {
    by_id: HashMap<String, Entry>,
    /// When each task expires, soonest first.
    expiries: BinaryHeap<Reverse<(SystemTime, String)>>,
    /// How many tasks each owner holds, by [`Owner::key`]; owners holding none are absent.
    owners: HashMap<[u8; 16], usize>,
}

struct Entry {
    owner: [u8; 16],
    version: u64,
    record: Box<[u8]>,
    expires: SystemTime,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTaskStore {
    /// An empty store on the system clock, with the default capacity and quota.
    pub fn new() -> Self {
        Self {
            tasks: Mutex::default(),
            capacity: DEFAULT_TASK_CAPACITY,
            owner_quota: DEFAULT_TASKS_PER_OWNER,
            clock: Arc::new(SystemClock),
        }
    }

    /// Holds up to `capacity` live tasks (at least one).
    #[must_use]
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// Lets each owner hold up to `quota` live tasks (at least one).
    #[must_use]
    pub fn with_owner_quota(mut self, quota: usize) -> Self {
        self.owner_quota = quota.max(1);
        self
    }

    /// Reads the time from `clock` instead of the system clock; for tests.
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    /// How many tasks the store holds, expired ones it has not dropped yet included.
    pub fn len(&self) -> usize {
        self.lock().by_id.len()
    }

    /// Whether the store holds no task.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn lock(&self) -> MutexGuard<'_, Tasks> {
        // Every change under the lock leaves the map, queue and counts consistent between two
        // statements.
        self.tasks.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn create_now(
        &self,
        owner: Owner<'_>,
        id: &str,
        record: &[u8],
        ttl: Duration,
    ) -> Result<(), TaskStoreError> {
        if ttl.is_zero() {
            return Err(TaskStoreError::Ttl(ttl));
        }
        let now = self.clock.now();
        let expires = now.checked_add(ttl).ok_or(TaskStoreError::Ttl(ttl))?;
        let owner = owner.key();
        let mut tasks = self.lock();
        tasks.drop_expired(now);
        let full = tasks.by_id.len() >= self.capacity;
        let held = tasks.owners.get(&owner).copied().unwrap_or(0);
        let Tasks {
            by_id,
            expiries,
            owners,
        } = &mut *tasks;
        match by_id.entry(id.to_owned()) {
            Slot::Occupied(_) => Err(TaskStoreError::Exists),
            Slot::Vacant(_) if held >= self.owner_quota => Err(TaskStoreError::OverQuota {
                quota: self.owner_quota,
            }),
            Slot::Vacant(_) if full => Err(TaskStoreError::Full {
                capacity: self.capacity,
            }),
            Slot::Vacant(slot) => {
                *owners.entry(owner).or_insert(0) += 1;
                expiries.push(Reverse((expires, id.to_owned())));
                slot.insert(Entry {
                    owner,
                    version: 1,
                    record: record.into(),
                    expires,
                });
                Ok(())
            }
        }
    }

    fn get_now(&self, id: &str) -> Option<Versioned> {
        let now = self.clock.now();
        let mut tasks = self.lock();
        tasks.drop_expired(now);
        tasks.by_id.get(id).map(|entry| Versioned {
            version: entry.version,
            record: entry.record.to_vec(),
        })
    }

    fn replace_now(&self, id: &str, version: u64, record: &[u8]) -> bool {
        let now = self.clock.now();
        let mut tasks = self.lock();
        tasks.drop_expired(now);
        match tasks.by_id.get_mut(id) {
            Some(entry) if entry.version == version => {
                entry.version += 1;
                entry.record = record.into();
                true
            }
            _ => false,
        }
    }
}

impl Tasks {
    fn drop_expired(&mut self, now: SystemTime) {
        while let Some(Reverse((expires, _))) = self.expiries.peek() {
            if *expires > now {
                break;
            }
            let Some(Reverse((expires, id))) = self.expiries.pop() else {
                break;
            };
            if let Slot::Occupied(slot) = self.by_id.entry(id)
                && slot.get().expires == expires
            {
                let entry = slot.remove();
                if let Slot::Occupied(mut held) = self.owners.entry(entry.owner) {
                    *held.get_mut() -= 1;
                    if *held.get() == 0 {
                        held.remove();
                    }
                }
            }
        }
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(
        &self,
        owner: Owner<'_>,
        id: &str,
        record: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(std::future::ready(self.create_now(owner, id, record, ttl)))
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<Versioned>, TaskStoreError>> {
        Box::pin(std::future::ready(Ok(self.get_now(id))))
    }

    fn replace(
        &self,
        id: &str,
        version: u64,
        record: &[u8],
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        Box::pin(std::future::ready(
            Ok(self.replace_now(id, version, record)),
        ))
    }
}
