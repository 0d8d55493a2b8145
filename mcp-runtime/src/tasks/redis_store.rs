//! The task store in Redis, shared by every instance connected to it.

use std::future::Future;
use std::time::Duration;

use redis::aio::ConnectionManager;
use redis::{RedisError, Script};

use super::{
    BoxFuture, DEFAULT_TASK_CAPACITY, DEFAULT_TASKS_PER_OWNER, Owner, TaskStore, TaskStoreError,
    Versioned,
};
use crate::state::{DEFAULT_REDIS_TIMEOUT, answer_within, connect_redis, whole_millis};

/// The prefix of every key a [`RedisTaskStore`] writes, unless told otherwise.
pub const DEFAULT_TASK_REDIS_PREFIX: &str = "mcp:task:";

/// Creates a task within its owner's quota and the store's capacity.
///
/// `KEYS[1]`: the task's hash; `KEYS[2]`: the owner's set; `KEYS[3]`: the set of every task;
/// `ARGV[1]`: the record; `ARGV[2]`: time-to-live in milliseconds; `ARGV[3]`: the owner's
/// quota; `ARGV[4]`: the capacity. Answers `ok`, `e` (exists), `q` (quota) or `f` (full).
const CREATE_SCRIPT: &str = r"
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 'e'
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return 'q'
end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then
  return 'f'
end
redis.call('HSET', KEYS[1], 'v', 1, 'r', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ttl)
for i = 2, 3 do
  redis.call('ZADD', KEYS[i], now + ttl, KEYS[1])
  if redis.call('PTTL', KEYS[i]) < ttl then
    redis.call('PEXPIRE', KEYS[i], ttl)
  end
end
return 'ok'
";

/// Replaces the record when the version is still the one read.
///
/// `KEYS[1]`: the task's hash; `ARGV[1]`: the version read; `ARGV[2]`: the new record.
/// Answers 1 when it replaced the record, 0 otherwise.
const REPLACE_SCRIPT: &str = r"
if redis.call('HGET', KEYS[1], 'v') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'r', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'v', 1)
return 1
";

/// A [`TaskStore`] in Redis: every instance connected to the same Redis (with the same key
/// prefix) sees every other's tasks.
///
/// # Key layout
///
/// - `<prefix>t:<task id>`: a hash with the version `v` and the record `r`, expiring `ttl`
///   after creation;
/// - `<prefix>o:<digest of the owner as 32 hex digits>`: a sorted set of the owner's task keys
///   scored by their expiry (Redis's clock, in milliseconds), where its quota is counted;
/// - `<prefix>all`: the same for every task, where the capacity is counted.
///
/// [`create`](TaskStore::create) and [`replace`](TaskStore::replace) are one Lua script each
/// (atomic in Redis), [`get`](TaskStore::get) one `HMGET`. The keys of a `create` would have
/// to share a slot on a Redis Cluster, which this layout does not arrange: use one Redis (with
/// replicas). Every call gives up after the timeout ([`DEFAULT_REDIS_TIMEOUT`]) with
/// [`TaskStoreError::Backend`].
#[derive(Clone)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
    owner_quota: usize,
    capacity: usize,
    create_script: Script,
    replace_script: Script,
}

impl RedisTaskStore {
    /// Connects to the Redis at `url` and loads the scripts.
    pub async fn connect(url: &str) -> Result<Self, TaskStoreError> {
        let store = Self {
            connection: connect_redis(url).await.map_err(TaskStoreError::Backend)?,
            prefix: DEFAULT_TASK_REDIS_PREFIX.to_owned(),
            timeout: DEFAULT_REDIS_TIMEOUT,
            owner_quota: DEFAULT_TASKS_PER_OWNER,
            capacity: DEFAULT_TASK_CAPACITY,
            create_script: Script::new(CREATE_SCRIPT),
            replace_script: Script::new(REPLACE_SCRIPT),
        };
        let mut connection = store.connection.clone();
        for script in [&store.create_script, &store.replace_script] {
            within(store.timeout, script.load_async(&mut connection)).await?;
        }
        Ok(store)
    }

    /// Writes every key under `prefix` instead of [`DEFAULT_TASK_REDIS_PREFIX`]. Instances
    /// that share tasks must use the same prefix.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Waits at most `timeout` for Redis in each call.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lets each owner hold up to `quota` live tasks across every instance (at least one).
    #[must_use]
    pub fn with_owner_quota(mut self, quota: usize) -> Self {
        self.owner_quota = quota.max(1);
        self
    }

    /// Holds up to `capacity` live tasks across every instance (at least one).
    #[must_use]
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// The prefix of every key this store writes.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn key(&self, id: &str) -> String {
        format!("{}t:{id}", self.prefix)
    }
}

impl TaskStore for RedisTaskStore {
    fn create(
        &self,
        owner: Owner<'_>,
        id: &str,
        record: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let key = self.key(id);
        let mut owner_key = format!("{}o:", self.prefix);
        for byte in owner.key() {
            owner_key.push_str(&format!("{byte:02x}"));
        }
        let all = format!("{}all", self.prefix);
        let record = record.to_vec();
        Box::pin(async move {
            let millis = ttl_millis(ttl)?;
            let mut connection = self.connection.clone();
            let answer: String = within(
                self.timeout,
                self.create_script
                    .key(key)
                    .key(owner_key)
                    .key(all)
                    .arg(record)
                    .arg(millis)
                    .arg(self.owner_quota)
                    .arg(self.capacity)
                    .invoke_async(&mut connection),
            )
            .await?;
            match answer.as_str() {
                "ok" => Ok(()),
                "e" => Err(TaskStoreError::Exists),
                "q" => Err(TaskStoreError::OverQuota {
                    quota: self.owner_quota,
                }),
                _ => Err(TaskStoreError::Full {
                    capacity: self.capacity,
                }),
            }
        })
    }

    fn get(&self, id: &str) -> BoxFuture<'_, Result<Option<Versioned>, TaskStoreError>> {
        let key = self.key(id);
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let (version, record): (Option<u64>, Option<Vec<u8>>) = within(
                self.timeout,
                redis::cmd("HMGET")
                    .arg(key)
                    .arg("v")
                    .arg("r")
                    .query_async(&mut connection),
            )
            .await?;
            Ok(version
                .zip(record)
                .map(|(version, record)| Versioned { version, record }))
        })
    }

    fn replace(
        &self,
        id: &str,
        version: u64,
        record: &[u8],
    ) -> BoxFuture<'_, Result<bool, TaskStoreError>> {
        let key = self.key(id);
        let record = record.to_vec();
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let replaced: u8 = within(
                self.timeout,
                self.replace_script
                    .key(key)
                    .arg(version)
                    .arg(record)
                    .invoke_async(&mut connection),
            )
            .await?;
            Ok(replaced == 1)
        })
    }
}

async fn within<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, RedisError>>,
) -> Result<T, TaskStoreError> {
    answer_within(timeout, call)
        .await
        .map_err(TaskStoreError::Backend)
}

fn ttl_millis(ttl: Duration) -> Result<u64, TaskStoreError> {
    whole_millis(ttl).ok_or(TaskStoreError::Ttl(ttl))
}
