//! Where tasks of the tasks extension (`io.modelcontextprotocol/tasks`) are kept: see
//! [`TaskStore`].
//!
//! The server side of the extension (which calls become tasks, `tasks/get`, `tasks/update`,
//! `tasks/cancel`) is configured with [`Tasks`](crate::server::Tasks); this module holds only
//! the storage it writes through, with two implementations that pass one behaviour suite
//! (`mcp-runtime/tests/task_store.rs`).

mod memory;
#[cfg(feature = "redis")]
mod redis_store;

use std::error::Error;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use memory::{DEFAULT_TASK_CAPACITY, DEFAULT_TASKS_PER_OWNER, MemoryTaskStore};
#[cfg(feature = "redis")]
pub use redis_store::{DEFAULT_TASK_REDIS_PREFIX, RedisTaskStore};

pub use crate::state::{BoxFuture, Owner};

/// A task record as a store holds it: opaque bytes, and the version every change bumps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Versioned {
    /// Starts at 1 when the task is created; each successful
    /// [`replace`](TaskStore::replace) adds one.
    pub version: u64,
    /// The record, as the server wrote it.
    pub record: Vec<u8>,
}

/// Keeps the tasks of the tasks extension, so that every instance sharing the store answers
/// `tasks/get` and takes `tasks/update` for any of them.
///
/// A store keeps opaque records (the server's serialised task: status, result, the signed
/// continuation of its flow) under the task's id, with a version for compare-and-set:
///
/// - [`create`](TaskStore::create) stores a new record, charged to an [`Owner`], living
///   `ttl`; it is durable (a `get` anywhere finds it) when the future resolves, which is when
///   the server sends `CreateTaskResult`;
/// - [`get`](TaskStore::get) reads it with its version;
/// - [`replace`](TaskStore::replace) writes a new record only when the version is still the
///   one read, atomically across every instance: of two instances changing one task at once,
///   one wins and the other learns it lost. Every status change goes through it, which is what
///   makes terminal states final and a `tasks/update` resume a flow at most once.
///
/// # Bounds
///
/// A record lives `ttl` from its creation and no longer (a `replace` keeps the expiry). Each
/// owner holds at most a quota of live tasks ([`DEFAULT_TASKS_PER_OWNER`] by default), and the
/// store at most a capacity ([`DEFAULT_TASK_CAPACITY`] in process); past either, `create` fails
/// with [`TaskStoreError::OverQuota`] or [`TaskStoreError::Full`] and nothing else is affected.
/// The size of one record is bounded by the server before it writes
/// ([`Tasks::max_task_bytes`](crate::server::Tasks::max_task_bytes)).
///
/// # Failing closed
///
/// Every operation may fail with a [`TaskStoreError`]. A `create` that fails creates no task
/// (the server then serves the call as an ordinary one); a `replace` that fails changes nothing.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task `id` with `record`, charged to `owner`, expiring after `ttl`.
    fn create(
        &self,
        owner: Owner<'_>,
        id: &str,
        record: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `id` with its version; `None` when there is none (never created, or expired).
    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<Versioned>, TaskStoreError>>;

    /// Replaces the record of task `id` with `record` if its version is still `version`, and
    /// answers whether it did; the task keeps its expiry.
    fn replace(
        &self,
        id: &str,
        version: u64,
        record: &[u8],
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>>;
}

impl<S: TaskStore + ?Sized> TaskStore for Arc<S> {
    fn create(
        &self,
        owner: Owner<'_>,
        id: &str,
        record: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        (**self).create(owner, id, record, ttl)
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<Versioned>, TaskStoreError>> {
        (**self).get(id)
    }

    fn replace(
        &self,
        id: &str,
        version: u64,
        record: &[u8],
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        (**self).replace(id, version, record)
    }
}

/// Why a [`TaskStore`] could not answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// The store holds `capacity` live tasks.
    Full {
        /// The store's maximum number of tasks.
        capacity: usize,
    },
    /// The owner of a new task holds `quota` live tasks; other owners are not affected.
    OverQuota {
        /// The owner's maximum number of tasks.
        quota: usize,
    },
    /// A task with this id exists already.
    Exists,
    /// The `ttl` was zero or too large to represent.
    Ttl(Duration),
    /// The backend could not be reached, did not answer in time, or answered with an error.
    Backend(Box<dyn Error + Send + Sync>),
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Full { capacity } => write!(f, "task store full: {capacity} live tasks"),
            Self::OverQuota { quota } => write!(
                f,
                "task quota reached: this caller holds {quota} live tasks"
            ),
            Self::Exists => f.write_str("a task with this id exists"),
            Self::Ttl(ttl) => write!(f, "task store cannot keep a task for {ttl:?}"),
            Self::Backend(error) => write!(f, "task store backend failed: {error}"),
        }
    }
}

impl Error for TaskStoreError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            Self::Backend(error) => Some(&**error),
            _ => None,
        }
    }
}
