//! Verification keys: JWK sets parsed under caps, and the cache of a fetched set, refreshed
//! when a token names a key it does not hold, at a bounded rate.

use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::{AlgorithmParameters, EllipticCurve, Jwk, KeyAlgorithm, PublicKeyUse};
use jsonwebtoken::{Algorithm, DecodingKey};
use serde_json::Value;

use super::fetch::FetchJwks;
use crate::logfield::{RateLimit, untrusted, warn_limited};

/// The largest JWK set document read, in bytes: 256 KiB, room for a few hundred keys.
pub const MAX_JWKS_BYTES: usize = 256 * 1024;

/// The most keys kept from one JWK set: 64. Further keys are ignored.
pub const MAX_JWKS_KEYS: usize = 64;

/// One verification key, pinned to the one algorithm it verifies.
pub(crate) struct Key {
    pub(crate) kid: Option<String>,
    pub(crate) algorithm: Algorithm,
    pub(crate) key: DecodingKey,
}

/// The keys of one JWK set.
#[derive(Default)]
pub(crate) struct KeySet {
    keys: Vec<Arc<Key>>,
}

/// Why no key verifies a token.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeyMiss {
    /// No key has the token's `kid` (or, without a `kid`, no single key has its algorithm).
    Unknown,
    /// The key the token names verifies another algorithm than the token's header says.
    OtherAlgorithm,
    /// No static key fits, and the JWK set was never fetched (its server is unreachable or
    /// refused): the token cannot be checked yet. The next fetch may be made after this long.
    Unavailable(Duration),
}

impl KeySet {
    /// The keys of a JWK set document: at most [`MAX_JWKS_KEYS`]; keys that are not for
    /// signatures, symmetric, on unsupported curves or malformed are skipped. `Err` when the
    /// document is not a JWK set at all.
    pub(crate) fn parse(document: &[u8]) -> Result<Self, String> {
        if document.len() > MAX_JWKS_BYTES {
            return Err(format!("larger than {MAX_JWKS_BYTES} bytes"));
        }
        #[derive(serde::Deserialize)]
        struct Document {
            keys: Vec<Value>,
        }
        let document: Document =
            serde_json::from_slice(document).map_err(|error| format!("not a JWK set: {error}"))?;
        let keys = document
            .keys
            .into_iter()
            .filter_map(|value| serde_json::from_value::<Jwk>(value).ok())
            .filter_map(|jwk| pinned(&jwk))
            .take(MAX_JWKS_KEYS)
            .map(Arc::new)
            .collect();
        Ok(Self { keys })
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    fn extend(&mut self, other: Self) {
        self.keys.extend(other.keys);
    }

    /// The key for a token whose header names `kid` and `algorithm`.
    pub(crate) fn find(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> Result<Arc<Key>, KeyMiss> {
        match kid {
            Some(kid) => {
                let key = self
                    .keys
                    .iter()
                    .find(|key| key.kid.as_deref() == Some(kid))
                    .ok_or(KeyMiss::Unknown)?;
                if key.algorithm == algorithm {
                    Ok(Arc::clone(key))
                } else {
                    Err(KeyMiss::OtherAlgorithm)
                }
            }
            // Without a `kid`, only an unambiguous key will do.
            None => {
                let mut candidates = self.keys.iter().filter(|key| key.algorithm == algorithm);
                match (candidates.next(), candidates.next()) {
                    (Some(key), None) => Ok(Arc::clone(key)),
                    _ => Err(KeyMiss::Unknown),
                }
            }
        }
    }
}

/// The one algorithm a JWK verifies: its `alg` when it names one its type and curve allow,
/// else the type's default (RS256 for RSA, the curve's ECDSA for EC, EdDSA for Ed25519).
/// `None` for keys this server does not verify with.
fn pinned(jwk: &Jwk) -> Option<Key> {
    if matches!(jwk.common.public_key_use, Some(ref used) if *used != PublicKeyUse::Signature) {
        return None;
    }
    let declared = jwk.common.key_algorithm;
    let algorithm = match &jwk.algorithm {
        AlgorithmParameters::RSA(_) => match declared {
            None => Algorithm::RS256,
            Some(KeyAlgorithm::RS256) => Algorithm::RS256,
            Some(KeyAlgorithm::RS384) => Algorithm::RS384,
            Some(KeyAlgorithm::RS512) => Algorithm::RS512,
            Some(KeyAlgorithm::PS256) => Algorithm::PS256,
            Some(KeyAlgorithm::PS384) => Algorithm::PS384,
            Some(KeyAlgorithm::PS512) => Algorithm::PS512,
            Some(_) => return None,
        },
        AlgorithmParameters::EllipticCurve(params) => {
            let algorithm = match params.curve {
                EllipticCurve::P256 => Algorithm::ES256,
                EllipticCurve::P384 => Algorithm::ES384,
                _ => return None,
            };
            if declared.is_some_and(|declared| declared != KeyAlgorithm::from(algorithm)) {
                return None;
            }
            algorithm
        }
        AlgorithmParameters::OctetKeyPair(params) => {
            if params.curve != EllipticCurve::Ed25519
                || declared.is_some_and(|declared| declared != KeyAlgorithm::EdDSA)
            {
                return None;
            }
            Algorithm::EdDSA
        }
        // Shared secrets never verify a token here: the resource server holds public keys.
        _ => return None,
    };
    let key = DecodingKey::from_jwk(jwk).ok()?;
    Some(Key {
        kid: jwk.common.key_id.clone(),
        algorithm,
        key,
    })
}

/// How a fetched JWK set is kept fresh.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Refresh {
    /// The least time between two fetches, whatever tokens arrive.
    pub(crate) min_interval: Duration,
    /// The age past which a set is fetched again in the background.
    pub(crate) max_age: Duration,
    /// How long one fetch may take.
    pub(crate) timeout: Duration,
}

/// Refused fetches and unusable documents: at most 10 lines a minute.
static FETCH_FAILED: RateLimit = RateLimit::new(10, Duration::from_secs(60));

/// The keys a server verifies with: its static keys, and a JWK set fetched from a URL.
pub(crate) struct Keys {
    fixed: KeySet,
    remote: Option<Arc<Remote>>,
}

struct Remote {
    url: String,
    fetcher: Arc<dyn FetchJwks>,
    refresh: Refresh,
    /// The last set fetched, and when.
    current: RwLock<(Arc<KeySet>, Option<Instant>)>,
    /// When the last fetch started: fetches are at least `min_interval` apart.
    last_attempt: Mutex<Option<Instant>>,
    /// One fetch at a time; requests that wait for it look again once it is done.
    fetching: tokio::sync::Mutex<()>,
}

impl Keys {
    pub(crate) fn new(
        fixed: Vec<KeySet>,
        remote: Option<(String, Arc<dyn FetchJwks>)>,
        refresh: Refresh,
    ) -> Self {
        let mut all = KeySet::default();
        for set in fixed {
            all.extend(set);
        }
        let remote = remote.map(|(url, fetcher)| {
            Arc::new(Remote {
                url,
                fetcher,
                refresh,
                current: RwLock::new((Arc::new(KeySet::default()), None)),
                last_attempt: Mutex::new(None),
                fetching: tokio::sync::Mutex::new(()),
            })
        });
        Self { fixed: all, remote }
    }

    /// The key for a token's header: a static key, else a fetched one. An unknown `kid`
    /// fetches the set again, unless the last fetch is more recent than the minimum
    /// interval.
    pub(crate) async fn find(
        &self,
        kid: Option<&str>,
        algorithm: Algorithm,
    ) -> Result<Arc<Key>, KeyMiss> {
        let fixed = self.fixed.find(kid, algorithm);
        let Some(remote) = &self.remote else {
            return fixed;
        };
        if fixed.is_ok() {
            return fixed;
        }
        let (set, fetched_at) = remote.current();
        match set.find(kid, algorithm) {
            Ok(key) => {
                if fetched_at.is_some_and(|at| at.elapsed() > remote.refresh.max_age)
                    && let Ok(runtime) = tokio::runtime::Handle::try_current()
                {
                    // Stale: fetched again in the background; this request goes on.
                    let remote = Arc::clone(remote);
                    runtime.spawn(async move { remote.fetch_if_due().await });
                }
                Ok(key)
            }
            Err(KeyMiss::Unknown) => {
                remote.fetch_if_due().await;
                let (set, fetched_at) = remote.current();
                match set.find(kid, algorithm) {
                    Err(KeyMiss::Unknown) if fetched_at.is_none() => {
                        Err(KeyMiss::Unavailable(remote.next_fetch_in()))
                    }
                    found => found,
                }
            }
            missed => missed,
        }
    }
}

impl Remote {
    fn current(&self) -> (Arc<KeySet>, Option<Instant>) {
        let current = self.current.read().unwrap_or_else(PoisonError::into_inner);
        (Arc::clone(&current.0), current.1)
    }

    /// How long until a fetch is due again: what is left of `min_interval` since the last
    /// one began, in whole seconds, at least one.
    fn next_fetch_in(&self) -> Duration {
        let last = *self
            .last_attempt
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let left = last.map_or(Duration::ZERO, |at| {
            self.refresh.min_interval.saturating_sub(at.elapsed())
        });
        Duration::from_secs(left.as_secs() + u64::from(left.subsec_nanos() > 0))
            .max(Duration::from_secs(1))
    }

    /// Fetches the set, unless the last fetch began less than `min_interval` ago. A failed
    /// fetch keeps the keys held.
    async fn fetch_if_due(&self) {
        let _one_at_a_time = self.fetching.lock().await;
        {
            let mut last = self
                .last_attempt
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            if last.is_some_and(|at| at.elapsed() < self.refresh.min_interval) {
                return;
            }
            *last = Some(Instant::now());
        }
        let fetched = tokio::time::timeout(
            self.refresh.timeout,
            self.fetcher.fetch(&self.url, MAX_JWKS_BYTES),
        )
        .await;
        let parsed = match fetched {
            Ok(Ok(document)) => KeySet::parse(&document),
            Ok(Err(error)) => Err(error),
            Err(_) => Err(format!(
                "no answer within {} ms",
                self.refresh.timeout.as_millis()
            )),
        };
        match parsed {
            Ok(set) => {
                tracing::debug!(url = %untrusted(&self.url), keys = set.len(), "fetched the JWK set");
                let mut current = self.current.write().unwrap_or_else(PoisonError::into_inner);
                *current = (Arc::new(set), Some(Instant::now()));
            }
            Err(reason) => warn_limited!(
                FETCH_FAILED,
                url = %untrusted(&self.url),
                reason = %untrusted(&reason),
                "cannot fetch the JWK set; keeping the keys held"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const EC_X: &str = "MKBCTNIcKUSDii11ySs3526iDZ8AiTo7Tu6KPAqv7D4";
    const EC_Y: &str = "4Etl6SRW2YiLUrN5vfvVHuhp7x8PxltmWWlbbM4IFyM";

    fn ec(kid: &str, extra: Value) -> Value {
        let mut key = json!({"kty": "EC", "crv": "P-256", "x": EC_X, "y": EC_Y, "kid": kid});
        if let (Value::Object(key), Value::Object(extra)) = (&mut key, extra) {
            key.extend(extra);
        }
        key
    }

    fn parse(keys: Vec<Value>) -> KeySet {
        KeySet::parse(json!({ "keys": keys }).to_string().as_bytes()).unwrap()
    }

    #[test]
    fn keys_are_pinned_to_one_algorithm_and_unusable_ones_skipped() {
        let set = parse(vec![
            ec("plain", json!({})),
            ec("declared", json!({"alg": "ES256", "use": "sig"})),
            ec("mismatched", json!({"alg": "ES384"})),
            ec("encryption", json!({"use": "enc"})),
            json!({"kty": "oct", "k": "c2VjcmV0", "kid": "secret"}),
            json!({"kty": "EC", "crv": "P-256", "x": "!!", "y": EC_Y, "kid": "broken"}),
            json!("not a key"),
        ]);
        assert_eq!(set.len(), 2);
        assert!(set.find(Some("plain"), Algorithm::ES256).is_ok());
        assert!(set.find(Some("declared"), Algorithm::ES256).is_ok());
        assert_eq!(
            set.find(Some("plain"), Algorithm::RS256).err(),
            Some(KeyMiss::OtherAlgorithm)
        );
        for skipped in ["mismatched", "encryption", "secret", "broken", "absent"] {
            assert_eq!(
                set.find(Some(skipped), Algorithm::ES256).err(),
                Some(KeyMiss::Unknown),
                "{skipped}"
            );
        }
        // Without a `kid`, two candidates are one too many.
        assert_eq!(
            set.find(None, Algorithm::ES256).err(),
            Some(KeyMiss::Unknown)
        );
        assert!(
            parse(vec![ec("only", json!({}))])
                .find(None, Algorithm::ES256)
                .is_ok()
        );
    }

    #[test]
    fn documents_are_capped_in_size_and_keys() {
        let many: Vec<Value> = (0..200).map(|n| ec(&format!("k{n}"), json!({}))).collect();
        assert_eq!(parse(many).len(), MAX_JWKS_KEYS);
        let huge = vec![b' '; MAX_JWKS_BYTES + 1];
        assert!(KeySet::parse(&huge).err().unwrap().contains("larger than"));
        assert!(KeySet::parse(b"{\"nokeys\":[]}").is_err());
    }
}
