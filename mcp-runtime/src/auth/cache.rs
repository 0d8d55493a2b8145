//! Tokens already verified: a client sends the same token on every request of a session,
//! and a signature verification costs far more than the round it guards. A verified token is
//! remembered whole, for at most [`MAX_CACHED_FOR`] and never past its `exp` (plus the clock
//! skew, as verification allows), in a map of bounded size.
//!
//! The map hashes only a token's last [`HASHED_TAIL`] bytes (its signature's end: as random
//! as the signature, and a fraction of the cost of hashing it whole), with the process's
//! random keys; a lookup then compares the whole token. A crafted token sharing a tail only
//! shares a bucket: it is still verified in full, and only verified tokens are remembered.

use std::collections::HashMap;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::Claims;

/// How many of a token's last bytes the map hashes.
const HASHED_TAIL: usize = 32;

/// The longest token remembered: 4 KiB, so a full cache holds a bounded number of bytes.
/// Longer tokens are verified on every request.
pub(crate) const MAX_CACHED_TOKEN_BYTES: usize = 4096;

/// Hashes the tail of each byte string written (a `str` is written whole, then a marker).
struct TailHasher<H>(H);

impl<H: Hasher> Hasher for TailHasher<H> {
    fn finish(&self) -> u64 {
        self.0.finish()
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0
            .write(&bytes[bytes.len().saturating_sub(HASHED_TAIL)..]);
    }
}

/// The process's random hash keys, hashing tails only.
#[derive(Default)]
struct Tails(RandomState);

impl BuildHasher for Tails {
    type Hasher = TailHasher<<RandomState as BuildHasher>::Hasher>;

    fn build_hasher(&self) -> Self::Hasher {
        TailHasher(self.0.build_hasher())
    }
}

/// How long a verified token is answered from the cache at most: 5 minutes, after which it
/// is verified again (against the keys then held).
pub(crate) const MAX_CACHED_FOR: Duration = Duration::from_secs(5 * 60);

/// Verified tokens.
pub(crate) struct TokenCache {
    capacity: usize,
    entries: Mutex<HashMap<Box<str>, Entry, Tails>>,
}

struct Entry {
    claims: Arc<Claims>,
    until: Instant,
}

impl TokenCache {
    /// A cache of at most `capacity` tokens (`0`: none).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(HashMap::default()),
        }
    }

    /// The claims of `token`, if it was verified and its time is not up.
    pub(crate) fn get(&self, token: &str) -> Option<Arc<Claims>> {
        if self.capacity == 0 || token.len() > MAX_CACHED_TOKEN_BYTES {
            return None;
        }
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = entries.get(token)?;
        if entry.until > Instant::now() {
            return Some(Arc::clone(&entry.claims));
        }
        entries.remove(token);
        None
    }

    /// Remembers `token` as verified with `claims`, until its expiry (with `skew`) or
    /// [`MAX_CACHED_FOR`], whichever comes first. At capacity, expired entries go first, then
    /// an arbitrary one.
    pub(crate) fn insert(&self, token: &str, claims: Arc<Claims>, skew: Duration) {
        if self.capacity == 0 || token.len() > MAX_CACHED_TOKEN_BYTES {
            return;
        }
        let now = Instant::now();
        let left = claims.expires_at().map_or(Duration::ZERO, |exp| {
            let since_epoch = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .unwrap_or_default();
            (Duration::from_secs(exp) + skew).saturating_sub(since_epoch)
        });
        let until = now + left.min(MAX_CACHED_FOR);
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        if entries.len() >= self.capacity {
            entries.retain(|_, entry| entry.until > now);
            if entries.len() >= self.capacity
                && let Some(evicted) = entries.keys().next().cloned()
            {
                entries.remove(&evicted);
            }
        }
        entries.insert(token.into(), Entry { claims, until });
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;

    fn claims(exp: u64) -> Arc<Claims> {
        let Value::Object(map) = json!({"exp": exp}) else {
            unreachable!()
        };
        Arc::new(Claims::new("alice".into(), map))
    }

    fn now() -> u64 {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap()
            .as_secs()
    }

    #[test]
    fn tokens_are_kept_until_they_expire_and_capacity_is_bounded() {
        let cache = TokenCache::new(2);
        cache.insert("a", claims(now() + 600), Duration::ZERO);
        assert_eq!(cache.get("a").unwrap().subject(), "alice");
        assert!(cache.get("b").is_none());
        // Expired (skew included) on arrival: never answered from the cache.
        cache.insert("old", claims(now() - 120), Duration::from_secs(60));
        assert!(cache.get("old").is_none());
        cache.insert("b", claims(now() + 600), Duration::ZERO);
        cache.insert("c", claims(now() + 600), Duration::ZERO);
        let held = ["a", "b", "c"]
            .iter()
            .filter(|token| cache.get(token).is_some())
            .count();
        assert_eq!(held, 2);
        let none = TokenCache::new(0);
        none.insert("a", claims(now() + 600), Duration::ZERO);
        assert!(none.get("a").is_none());
        // Same tail, another token: a miss, not the other token's claims.
        let tail = "x".repeat(HASHED_TAIL);
        cache.insert(&format!("a{tail}"), claims(now() + 600), Duration::ZERO);
        assert!(cache.get(&format!("a{tail}")).is_some());
        assert!(cache.get(&format!("b{tail}")).is_none());
        let long = "y".repeat(MAX_CACHED_TOKEN_BYTES + 1);
        cache.insert(&long, claims(now() + 600), Duration::ZERO);
        assert!(cache.get(&long).is_none());
        let without_exp = TokenCache::new(1);
        without_exp.insert(
            "a",
            Arc::new(Claims::new("x".into(), Map::new())),
            Duration::ZERO,
        );
        assert!(without_exp.get("a").is_none());
    }
}
