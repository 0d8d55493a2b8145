//! The replay store in Redis, shared by every instance connected to it.

use std::fmt;
use std::future::Future;
use std::time::Duration;

use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, RedisError, Script};

use super::{
    Begin, BoxFuture, DEFAULT_ANONYMOUS_QUOTA, DEFAULT_OWNER_QUOTA, Owner, ReplayStore, StoreError,
};

/// The prefix of every key a [`RedisReplayStore`] writes, unless told otherwise.
pub const DEFAULT_REDIS_PREFIX: &str = "mcp:state:";

/// How long a [`RedisReplayStore`] waits for Redis, per call, unless told otherwise.
pub const DEFAULT_REDIS_TIMEOUT: Duration = Duration::from_secs(2);

/// Records the first use, within its owner's quota; or claims again a use of the same answers
/// that was released, keeping its expiry (`SETRANGE` keeps a key's time-to-live); or answers
/// the record already there.
///
/// The owner's records are a sorted set of state keys scored by their expiry (Redis's clock,
/// in milliseconds): expired members are dropped, and a new record is refused with `q` when
/// the owner holds the quota. The set expires with its longest-lived member.
///
/// `KEYS[1]`: the state's key; `KEYS[2]`: the owner's set; `ARGV[1]`: `p:<answers>`;
/// `ARGV[2]`: time-to-live in milliseconds; `ARGV[3]`: the owner's quota. Answers nil when it
/// recorded the use, `q` over the quota, the record's value otherwise.
const BEGIN_SCRIPT: &str = r"
local found = redis.call('GET', KEYS[1])
if found then
  if found == 'r' .. string.sub(ARGV[1], 2) then
    redis.call('SETRANGE', KEYS[1], 0, 'p')
    return false
  end
  return found
end
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  return 'q'
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ttl)
redis.call('ZADD', KEYS[2], now + ttl, KEYS[1])
if redis.call('PTTL', KEYS[2]) < ttl then
  redis.call('PEXPIRE', KEYS[2], ttl)
end
return false
";

/// Marks a pending use released, keeping its answers and its expiry.
///
/// `KEYS[1]`: the state's key; `ARGV[1]`: `p:<answers>`. Answers 1 when it released the use, 0
/// when no such use was pending.
const RELEASE_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SETRANGE', KEYS[1], 0, 'r')
return 1
";

/// Replaces a pending record by the finished one, keeping its expiry unless `ARGV[3]` is
/// sooner.
///
/// `KEYS[1]`: the state's key; `ARGV[1]`: `p:<answers>`; `ARGV[2]`: `d:<answers>:<reply>`;
/// `ARGV[3]`: time-to-live in milliseconds. Answers 1 when it stored the reply, 0 when no such
/// use was pending.
const FINISH_SCRIPT: &str = r"
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
local ttl = tonumber(ARGV[3])
local left = redis.call('PTTL', KEYS[1])
if left > 0 and left < ttl then
  ttl = left
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ttl)
return 1
";

/// A [`ReplayStore`] in Redis: every instance connected to the same Redis (with the same key
/// prefix) sees every other's records.
///
/// # Key layout
///
/// One string key per state, `<prefix><id as 32 lowercase hex digits>` (prefix
/// [`DEFAULT_REDIS_PREFIX`] by default), expiring with the state (`PX`):
///
/// - `p:<answers digest as 64 hex digits>` while the first use runs;
/// - `r:<answers digest as 64 hex digits>` once it was released (cut off) and until it is
///   begun again with the same answers;
/// - `d:<answers digest as 64 hex digits>:<reply bytes>` once it finished.
///
/// And one sorted set per owner, `<prefix>owner:<digest of the subject as 32 hex digits>`,
/// whose members are the keys of the owner's records scored by their expiry, and which
/// expires with the last of them: the quota (see [owners and
/// quotas](ReplayStore#owners-and-quotas); [`DEFAULT_OWNER_QUOTA`] per subject,
/// [`DEFAULT_ANONYMOUS_QUOTA`] for callers without one, see
/// [`with_owner_quota`](Self::with_owner_quota)) is counted there, atomically with the
/// record, in the same script, so every instance sharing the Redis shares each owner's quota.
/// Both keys of a `begin` are named in the script's `KEYS`; on a Redis Cluster they would have
/// to share a slot, which this layout does not arrange: use one Redis (with replicas).
///
/// # Round trips
///
/// [`begin`](ReplayStore::begin), [`finish`](ReplayStore::finish) and
/// [`release`](ReplayStore::release) are one round trip each: a Lua script run with `EVALSHA`
/// (`GET key`, and `SETRANGE key 0 p` on a released use of the same answers; for a new record
/// `ZREMRANGEBYSCORE` and `ZCARD` on the owner's set, then `SET key p:<answers> PX ttl` and
/// `ZADD`; `GET`, `PTTL`, `SET key d:<answers>:<reply> PX ttl` when the record is
/// the pending one; `GET`, `SETRANGE key 0 r`). Redis runs a script atomically, so two
/// instances beginning the same state at once get one [`Begin::Fresh`]. The scripts are loaded
/// when connecting; when Redis forgets them (a restart, a failover, `SCRIPT FLUSH`) the next
/// call loads them again, one extra round trip.
///
/// A round that runs its handler thus costs two round trips, and no fewer can do: running at
/// most once needs the claim recorded, atomically across instances, before any handler code
/// runs, and answering a retry identically needs the reply recorded, which exists only once
/// the handler has run. A retry answered from the store costs one. The `finish` is awaited
/// before the reply leaves, so that any reply a client may have received is already in the
/// store; sent in the background it would save the reply one round trip of latency, but a
/// retry overtaking it would be told to try later, and an instance dying in between would
/// leave the state pending until it expires after a reply went out.
///
/// # When Redis is down
///
/// The connection is multiplexed and re-established in the background after a failure. Every
/// call that cannot complete within the timeout ([`DEFAULT_REDIS_TIMEOUT`] by default, see
/// [`with_timeout`](Self::with_timeout)), Redis unreachable, too slow or answering an error,
/// fails with [`StoreError::Backend`]: the caller fails closed, refusing the round with a
/// retryable error. Nothing runs unrecorded. A `begin` that timed out may still have been
/// recorded: its state then stays pending until it expires.
///
/// Redis must keep keys until they expire: run it without an eviction policy that drops keys
/// with a time-to-live (`maxmemory-policy noeviction`, the default), or a record may vanish
/// and its state be replayed. For the same reason, a Redis that loses its data (a restart
/// without persistence, a failover to a replica that lagged) forgets the records of states
/// still valid, which may then be used once more; with `noeviction`, a full Redis refuses new
/// records, and `begin` fails closed.
///
/// ```no_run
/// use mcp_runtime::state::RedisReplayStore;
///
/// # async fn connect() -> Result<(), mcp_runtime::state::StoreError> {
/// let store = RedisReplayStore::connect("redis://127.0.0.1:6379").await?
///     .with_prefix("deploy:state:");
/// # drop(store);
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RedisReplayStore {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
    owner_quota: usize,
    anonymous_quota: usize,
    begin_script: Script,
    finish_script: Script,
    release_script: Script,
}

impl RedisReplayStore {
    /// Connects to the Redis at `url` (`redis://[[user]:password@]host[:port][/db]`, or
    /// `redis+unix:///path`), and loads the scripts.
    ///
    /// Fails with [`StoreError::Backend`] when the URL is invalid or Redis cannot be reached
    /// within [`DEFAULT_REDIS_TIMEOUT`].
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let store = Self {
            connection: connect_redis(url).await.map_err(StoreError::Backend)?,
            prefix: DEFAULT_REDIS_PREFIX.to_owned(),
            timeout: DEFAULT_REDIS_TIMEOUT,
            owner_quota: DEFAULT_OWNER_QUOTA,
            anonymous_quota: DEFAULT_ANONYMOUS_QUOTA,
            begin_script: Script::new(BEGIN_SCRIPT),
            finish_script: Script::new(FINISH_SCRIPT),
            release_script: Script::new(RELEASE_SCRIPT),
        };
        let mut connection = store.connection.clone();
        for script in [
            &store.begin_script,
            &store.finish_script,
            &store.release_script,
        ] {
            within(store.timeout, script.load_async(&mut connection)).await?;
        }
        Ok(store)
    }

    /// Writes every key under `prefix` instead of [`DEFAULT_REDIS_PREFIX`]. Instances that
    /// share records must use the same prefix.
    #[must_use]
    pub fn with_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// Waits at most `timeout` for Redis in each call instead of [`DEFAULT_REDIS_TIMEOUT`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Lets each subject hold up to `quota` records that have not expired, across every
    /// instance (at least one; default [`DEFAULT_OWNER_QUOTA`]).
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

    /// The prefix of every key this store writes.
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    fn owner_key(&self, owner: Owner<'_>) -> String {
        let mut key = String::with_capacity(self.prefix.len() + 38);
        key.push_str(&self.prefix);
        key.push_str("owner:");
        push_hex(&mut key, &owner.key());
        key
    }

    fn key(&self, id: &[u8; 16]) -> String {
        let mut key = String::with_capacity(self.prefix.len() + 32);
        key.push_str(&self.prefix);
        push_hex(&mut key, id);
        key
    }
}

impl ReplayStore for RedisReplayStore {
    fn begin(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        self.begin_owned(Owner::Anonymous, id, answers, ttl)
    }

    fn begin_owned(
        &self,
        owner: Owner<'_>,
        id: &[u8; 16],
        answers: &[u8; 32],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<Begin, StoreError>> {
        let key = self.key(id);
        let owner_key = self.owner_key(owner);
        let quota = match owner {
            Owner::Subject(_) | Owner::Peer(_) => self.owner_quota,
            Owner::Anonymous => self.anonymous_quota,
        };
        let answers = *answers;
        Box::pin(async move {
            let millis = ttl_millis(ttl)?;
            let pending = value(b'p', &answers);
            let mut connection = self.connection.clone();
            let found: Option<Vec<u8>> = within(
                self.timeout,
                self.begin_script
                    .key(key)
                    .key(owner_key)
                    .arg(pending)
                    .arg(millis)
                    .arg(quota)
                    .invoke_async(&mut connection),
            )
            .await?;
            match found {
                None => Ok(Begin::Fresh),
                Some(found) if found == b"q" => Err(StoreError::OverQuota { quota }),
                Some(found) => parse(&found, &answers),
            }
        })
    }

    fn finish(
        &self,
        id: &[u8; 16],
        answers: &[u8; 32],
        reply: &[u8],
        ttl: Duration,
    ) -> BoxFuture<'_, Result<(), StoreError>> {
        let key = self.key(id);
        let pending = value(b'p', answers);
        let mut done = value(b'd', answers);
        done.reserve_exact(1 + reply.len());
        done.push(b':');
        done.extend_from_slice(reply);
        Box::pin(async move {
            let millis = ttl_millis(ttl)?;
            let mut connection = self.connection.clone();
            let _stored: u8 = within(
                self.timeout,
                self.finish_script
                    .key(key)
                    .arg(pending)
                    .arg(done)
                    .arg(millis)
                    .invoke_async(&mut connection),
            )
            .await?;
            Ok(())
        })
    }

    fn release(&self, id: &[u8; 16], answers: &[u8; 32]) -> BoxFuture<'_, Result<(), StoreError>> {
        let key = self.key(id);
        let pending = value(b'p', answers);
        Box::pin(async move {
            let mut connection = self.connection.clone();
            let _released: u8 = within(
                self.timeout,
                self.release_script
                    .key(key)
                    .arg(pending)
                    .invoke_async(&mut connection),
            )
            .await?;
            Ok(())
        })
    }
}

impl fmt::Debug for RedisReplayStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisReplayStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Why a Redis store's backend failed: Redis unreachable, failing, or not answering in time.
pub(crate) type Backend = Box<dyn std::error::Error + Send + Sync>;

/// The multiplexed connection to the Redis at `url` that every Redis store here uses,
/// connected within [`DEFAULT_REDIS_TIMEOUT`].
pub(crate) async fn connect_redis(url: &str) -> Result<ConnectionManager, Backend> {
    let client = Client::open(url)?;
    let config = ConnectionManagerConfig::new()
        .set_connection_timeout(Some(Duration::from_secs(1)))
        .set_response_timeout(Some(Duration::from_secs(1)))
        // A reconnection that fails gives up quickly: calls waiting on it fail closed
        // within their timeout, and the next call tries again.
        .set_number_of_retries(2)
        .set_min_delay(Duration::from_millis(50))
        .set_max_delay(Duration::from_millis(500));
    answer_within(
        DEFAULT_REDIS_TIMEOUT,
        ConnectionManager::new_with_config(client, config),
    )
    .await
}

/// Runs a Redis call, failing after `timeout`.
pub(crate) async fn answer_within<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, RedisError>>,
) -> Result<T, Backend> {
    match tokio::time::timeout(timeout, call).await {
        Ok(result) => Ok(result?),
        Err(elapsed) => Err(format!("no answer from Redis within {timeout:?} ({elapsed})").into()),
    }
}

/// A time-to-live in whole milliseconds, rounded up (`PX` takes at least 1); `None` when it
/// is zero or too large for Redis, which adds it to its clock in milliseconds as a signed
/// 64-bit number.
pub(crate) fn whole_millis(ttl: Duration) -> Option<u64> {
    let millis = ttl.as_nanos().div_ceil(1_000_000);
    u64::try_from(millis)
        .ok()
        .filter(|&millis| millis > 0 && millis <= 1 << 52)
}

/// Runs a Redis call, failing with [`StoreError::Backend`] after `timeout`.
async fn within<T>(
    timeout: Duration,
    call: impl Future<Output = Result<T, RedisError>>,
) -> Result<T, StoreError> {
    answer_within(timeout, call)
        .await
        .map_err(StoreError::Backend)
}

/// The time-to-live in whole milliseconds, rounded up: `PX` takes at least 1.
fn ttl_millis(ttl: Duration) -> Result<u64, StoreError> {
    whole_millis(ttl).ok_or(StoreError::Ttl(ttl))
}

/// `<tag>:<answers as 64 hex digits>`.
fn value(tag: u8, answers: &[u8; 32]) -> Vec<u8> {
    let mut value = String::with_capacity(2 + 64);
    value.push(char::from(tag));
    value.push(':');
    push_hex(&mut value, answers);
    value.into_bytes()
}

/// What the record `found` under a state's key means for a use with `answers`.
fn parse(found: &[u8], answers: &[u8; 32]) -> Result<Begin, StoreError> {
    const DIGEST_END: usize = 2 + 64;
    let (head, reply) = match found.get(DIGEST_END) {
        None => (found, None),
        Some(b':') => (&found[..DIGEST_END], Some(&found[DIGEST_END + 1..])),
        Some(_) => return Err(StoreError::Corrupt),
    };
    let (tag, digest) = match head {
        [tag, b':', digest @ ..] if digest.len() == 64 => (*tag, digest),
        _ => return Err(StoreError::Corrupt),
    };
    let mut ours = String::with_capacity(64);
    push_hex(&mut ours, answers);
    let same = digest == ours.as_bytes();
    match (tag, reply) {
        // The begin script claims a released use of the same answers itself; should it ever
        // answer one, that use is as good as running.
        (b'p' | b'r', None) if same => Ok(Begin::Pending),
        (b'd', Some(reply)) if same => Ok(Begin::Done(reply.to_vec())),
        (b'p' | b'r', None) | (b'd', Some(_)) => Ok(Begin::Conflict),
        _ => Err(StoreError::Corrupt),
    }
}

fn push_hex(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for &byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_written() {
        let (ours, theirs) = ([0xab; 32], [0x01; 32]);
        let pending = value(b'p', &ours);
        assert_eq!(pending.len(), 66);
        assert!(pending.starts_with(b"p:abab"));
        let mut done = value(b'd', &ours);
        done.extend_from_slice(b":\x00:reply\xff");
        assert_eq!(parse(&pending, &ours).ok(), Some(Begin::Pending));
        assert_eq!(
            parse(&done, &ours).ok(),
            Some(Begin::Done(b"\x00:reply\xff".to_vec()))
        );
        let mut empty = value(b'd', &ours);
        empty.push(b':');
        assert_eq!(parse(&empty, &ours).ok(), Some(Begin::Done(Vec::new())));
        assert_eq!(parse(&pending, &theirs).ok(), Some(Begin::Conflict));
        let released = value(b'r', &ours);
        assert_eq!(parse(&released, &theirs).ok(), Some(Begin::Conflict));
        assert_eq!(parse(&done, &theirs).ok(), Some(Begin::Conflict));
    }

    #[test]
    fn foreign_records_are_corrupt() {
        let answers = [0; 32];
        let mut unfinished = value(b'd', &answers);
        let mut trailing = value(b'p', &answers);
        trailing.extend_from_slice(b":x");
        let mut glued = value(b'd', &answers);
        glued.push(b'x');
        unfinished.truncate(65);
        for found in [
            &b""[..],
            b"p:",
            b"x:00",
            &unfinished,
            &trailing,
            &glued,
            &value(b'd', &answers),
        ] {
            assert!(
                matches!(parse(found, &answers), Err(StoreError::Corrupt)),
                "{found:?}"
            );
        }
    }

    #[test]
    fn time_to_live_rounds_up_to_milliseconds() {
        assert_eq!(ttl_millis(Duration::from_nanos(1)).ok(), Some(1));
        assert_eq!(ttl_millis(Duration::from_micros(1_500)).ok(), Some(2));
        assert_eq!(ttl_millis(Duration::from_secs(600)).ok(), Some(600_000));
        assert!(matches!(
            ttl_millis(Duration::ZERO),
            Err(StoreError::Ttl(_))
        ));
        assert!(matches!(ttl_millis(Duration::MAX), Err(StoreError::Ttl(_))));
    }
}
