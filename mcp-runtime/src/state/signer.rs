//! The signer: mints and verifies `requestState` tokens.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;

use super::StateError;
use super::binding::{Binding, BindingContext, BindingPolicy, default_binding};
use super::clock::{Clock, SystemClock, unix_secs};
use super::envelope::{
    CHECK_LEN, FORMAT_SIGNED, HEADER_LEN, Header, Parts, TAG_LEN, sign_into, verify_signed,
};
use super::id::StateId;
use super::keys::{Key, KeyError, KeyRing};
use super::seal::{self, FORMAT_SEALED};
use super::varint::MAX_VARINT_LEN;

/// How long a minted state stays valid unless the signer says otherwise: ten minutes.
pub const DEFAULT_TTL: Duration = Duration::from_secs(10 * 60);

/// The longest token a signer decodes unless told otherwise: 16 KiB of base64 text.
pub const DEFAULT_MAX_TOKEN_LEN: usize = 16 * 1024;

/// URL-safe base64 without padding, strict: no padding, no non-zero trailing bits. The SIMD
/// engine picks the best instruction set once, at first use.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
static BASE64: std::sync::LazyLock<base64::engine::Simd> = std::sync::LazyLock::new(|| {
    base64::engine::Simd::url_safe(base64::engine::general_purpose::NO_PAD)
});
/// URL-safe base64 without padding, strict: no padding, no non-zero trailing bits.
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
static BASE64: base64::engine::GeneralPurpose = base64::engine::general_purpose::URL_SAFE_NO_PAD;

/// Mints `requestState` tokens and verifies them: HMAC-SHA256 (or, [sealed](Self::sealed),
/// AES-256-GCM-SIV) under a [`KeyRing`], an expiry, a random [`StateId`] and a binding to the
/// request. See the [module documentation](super) for the token layouts and the threat model.
///
/// Cloning is cheap (one reference count) and clones share their configuration; a server
/// clones its signer into every task. The `&mut self` methods change only the clone they are
/// called on (copy-on-write), so configure a signer fully before sharing it, or build a new one
/// and swap it in.
#[derive(Clone)]
pub struct Signer {
    inner: Arc<Inner>,
}

#[derive(Clone)]
struct Inner {
    ring: KeyRing,
    ttl_secs: u64,
    clock: Arc<dyn Clock>,
    max_token_len: usize,
    binding: BindingSource,
    sealed: bool,
}

#[derive(Clone)]
enum BindingSource {
    Default,
    Policy(BindingPolicy),
    Fixed(Binding),
}

impl Signer {
    /// A signer whose only key, `secret` under id `key_id`, mints and verifies; default
    /// time-to-live, size limit, clock and binding policy.
    ///
    /// Every instance behind a load balancer must be built with the same secret under the
    /// same id, so that any of them verifies what another minted.
    ///
    /// # Errors
    ///
    /// [`KeyError::SecretTooShort`] if `secret` is shorter than
    /// [`MIN_SECRET_LEN`](super::MIN_SECRET_LEN) (32) bytes.
    pub fn new(key_id: u16, secret: &[u8]) -> Result<Self, KeyError> {
        Ok(Self::from_key_ring(KeyRing::new(key_id, secret)?))
    }

    /// A signer with a fresh random 32-byte key, for a single process only.
    ///
    /// The key exists in this process alone: after a restart, or on another instance behind
    /// a load balancer (where the next round of a request may land), every state it minted is
    /// refused and the client has to start over. Servers with more than one instance must
    /// share one key from configuration, through [`Signer::new`].
    ///
    /// # Errors
    ///
    /// [`KeyError::Random`] if the operating system's random source fails.
    pub fn random() -> Result<Self, KeyError> {
        Ok(Self::from_key_ring(KeyRing::random()?))
    }

    /// A signer over `ring`, with the default time-to-live, size limit, clock and binding
    /// policy.
    pub fn from_key_ring(ring: KeyRing) -> Self {
        Self {
            inner: Arc::new(Inner {
                ring,
                ttl_secs: DEFAULT_TTL.as_secs(),
                clock: Arc::new(SystemClock),
                max_token_len: DEFAULT_MAX_TOKEN_LEN,
                binding: BindingSource::Default,
                sealed: false,
            }),
        }
    }

    /// The same signer minting states that live for `ttl` ([`DEFAULT_TTL`] by default).
    ///
    /// Expiry has a resolution of one second: `ttl` is rounded up to whole seconds, and is at
    /// least one second.
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> Self {
        let secs = ttl
            .as_secs()
            .saturating_add(u64::from(ttl.subsec_nanos() > 0))
            .max(1);
        Arc::make_mut(&mut self.inner).ttl_secs = secs;
        self
    }

    /// The same signer reading the time from `clock` ([`SystemClock`] by default); tests pass
    /// a [`ManualClock`](super::ManualClock).
    #[must_use]
    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        Arc::make_mut(&mut self.inner).clock = clock;
        self
    }

    /// The same signer refusing, before any decoding, tokens longer than `max` bytes
    /// ([`DEFAULT_MAX_TOKEN_LEN`] by default).
    #[must_use]
    pub fn with_max_token_len(mut self, max: usize) -> Self {
        Arc::make_mut(&mut self.inner).max_token_len = max;
        self
    }

    /// The same signer binding states with `policy` instead of [`default_binding`].
    ///
    /// The policy must be deterministic. To add to the default rather than replace it, call
    /// [`default_binding`] inside and [`Binding::extended`] its result.
    #[must_use]
    pub fn with_policy<F>(mut self, policy: F) -> Self
    where
        F: Fn(&BindingContext<'_>) -> Binding + Send + Sync + 'static,
    {
        Arc::make_mut(&mut self.inner).binding = BindingSource::Policy(Arc::new(policy));
        self
    }

    /// The same signer binding states with a policy already shared as a [`BindingPolicy`];
    /// see [`with_policy`](Self::with_policy).
    #[must_use]
    pub fn with_shared_policy(mut self, policy: BindingPolicy) -> Self {
        Arc::make_mut(&mut self.inner).binding = BindingSource::Policy(policy);
        self
    }

    /// The same signer binding every state to `binding`, whatever the request.
    ///
    /// States then stay valid across subjects, methods, targets and arguments; only the key
    /// and the expiry protect them.
    #[must_use]
    pub fn with_fixed_binding(mut self, binding: Binding) -> Self {
        Arc::make_mut(&mut self.inner).binding = BindingSource::Fixed(binding);
        self
    }

    /// The same signer minting sealed tokens: the payload encrypted as well as authenticated
    /// (AES-256-GCM-SIV under a key derived from each secret), so that a client cannot read
    /// it. Signed tokens are the default.
    ///
    /// Every signer opens both formats, whichever it mints: a fleet switches to sealed states
    /// one instance at a time without refusing the signed states still in flight (a sealed
    /// signer accepts them until they expire), and can switch back the same way. See the
    /// [module documentation](super#two-formats-one-signer).
    #[must_use]
    pub fn sealed(mut self) -> Self {
        Arc::make_mut(&mut self.inner).sealed = true;
        self
    }

    /// Whether this signer mints sealed tokens ([`sealed`](Self::sealed)) rather than signed
    /// ones.
    pub fn is_sealed(&self) -> bool {
        self.inner.sealed
    }

    /// The clock this signer reads the time from, for expiry; a store that remembers states
    /// until they expire reads the same one.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// The key ring.
    pub fn key_ring(&self) -> &KeyRing {
        &self.inner.ring
    }

    /// Adds a key that verifies but does not mint; see [`KeyRing::add_verifying_key`].
    ///
    /// # Errors
    ///
    /// As [`KeyRing::add_verifying_key`].
    pub fn add_verifying_key(&mut self, key_id: u16, secret: &[u8]) -> Result<(), KeyError> {
        Arc::make_mut(&mut self.inner)
            .ring
            .add_verifying_key(key_id, secret)
    }

    /// Mints with a new key from now on, keeping the old one to verify; see
    /// [`KeyRing::rotate`].
    ///
    /// # Errors
    ///
    /// As [`KeyRing::rotate`].
    pub fn rotate(&mut self, key_id: u16, secret: &[u8]) -> Result<(), KeyError> {
        Arc::make_mut(&mut self.inner).ring.rotate(key_id, secret)
    }

    /// Removes a verifying key; see [`KeyRing::remove_key`].
    ///
    /// # Errors
    ///
    /// As [`KeyRing::remove_key`].
    pub fn remove_key(&mut self, key_id: u16) -> Result<(), KeyError> {
        Arc::make_mut(&mut self.inner).ring.remove_key(key_id)
    }

    /// The time-to-live of the states this signer mints, in whole seconds.
    pub fn ttl(&self) -> Duration {
        Duration::from_secs(self.inner.ttl_secs)
    }

    /// The longest token this signer decodes.
    pub fn max_token_len(&self) -> usize {
        self.inner.max_token_len
    }

    /// The binding this signer gives a request: its fixed binding if it has one, else its
    /// policy applied to `cx`.
    ///
    /// A round that verifies the incoming state and signs the next one for the same request
    /// can compute this once and pass it to [`verify_with_binding`](Self::verify_with_binding)
    /// and [`sign_with_binding`](Self::sign_with_binding): the result is the same as
    /// [`verify`](Self::verify) then [`sign`](Self::sign), and the binding is hashed once.
    pub fn binding(&self, cx: &BindingContext<'_>) -> Binding {
        match &self.inner.binding {
            BindingSource::Default => default_binding(cx),
            BindingSource::Policy(policy) => policy(cx),
            BindingSource::Fixed(binding) => *binding,
        }
    }

    /// Whether this signer binds with a policy of its own, the only binding that may read
    /// more than the default policy does (the request's `_meta`).
    pub(crate) fn has_policy(&self) -> bool {
        matches!(self.inner.binding, BindingSource::Policy(_))
    }

    /// Mints a token carrying `payload`, bound to the request `cx` under this signer's policy,
    /// with the minting key, expiring one time-to-live from now.
    ///
    /// This is the only way a server mints; see the [module documentation](super#who-may-mint).
    pub fn sign(&self, cx: &BindingContext<'_>, payload: &[u8]) -> String {
        self.sign_with_binding(&self.binding(cx), payload)
    }

    /// Verifies `token` for the request `cx` under this signer's policy and returns its
    /// payload.
    ///
    /// # Errors
    ///
    /// The [`StateError`] reason, for the log; answer the client with
    /// [`INVALID_STATE_MESSAGE`](super::INVALID_STATE_MESSAGE) whatever it is.
    pub fn verify(&self, cx: &BindingContext<'_>, token: &str) -> Result<Vec<u8>, StateError> {
        self.verify_with_binding(&self.binding(cx), token)
    }

    /// Opens `token` for the request `cx` under this signer's policy: its payload, state id and
    /// expiry.
    ///
    /// # Errors
    ///
    /// As [`verify`](Self::verify).
    pub fn open(&self, cx: &BindingContext<'_>, token: &str) -> Result<Opened, StateError> {
        self.open_with_binding(&self.binding(cx), token)
    }

    /// Mints a token carrying `payload`, bound to `binding` instead of what this signer's
    /// policy would give.
    ///
    /// # Panics
    ///
    /// If the operating system's random source fails when this thread draws its first state
    /// id (see [`StateId`]).
    pub fn sign_with_binding(&self, binding: &Binding, payload: &[u8]) -> String {
        self.sign_with_id(binding, StateId::random(), payload)
    }

    /// Mints a token as [`sign_with_binding`](Self::sign_with_binding) does, with the state id
    /// `id` instead of a random one. For test vectors only: a server that mints two states
    /// with one id cannot tell them apart.
    #[doc(hidden)]
    pub fn sign_with_id(&self, binding: &Binding, id: StateId, payload: &[u8]) -> String {
        self.mint(binding, id, payload, encode)
    }

    /// Mints a token as [`sign_with_binding`](Self::sign_with_binding) does, its text
    /// appended to `out` (an answer being written) rather than made a string of its own.
    pub(crate) fn sign_onto(&self, binding: &Binding, payload: &[u8], out: &mut Vec<u8>) {
        self.mint(binding, StateId::random(), payload, |raw| {
            encode_onto(raw, out)
        });
    }

    /// The bytes of a token carrying `payload` under the state id `id`, handed to `text` to
    /// write out.
    fn mint<T>(
        &self,
        binding: &Binding,
        id: StateId,
        payload: &[u8],
        text: impl FnOnce(&[u8]) -> T,
    ) -> T {
        let inner = &*self.inner;
        let key = inner.ring.minting();
        let expires = unix_secs(inner.clock.now()).saturating_add(inner.ttl_secs);
        let format = if inner.sealed {
            FORMAT_SEALED
        } else {
            FORMAT_SIGNED
        };

        with_scratch(|raw| {
            raw.reserve(HEADER_LEN + MAX_VARINT_LEN + payload.len() + CHECK_LEN + TAG_LEN);
            raw.push(format);
            raw.extend_from_slice(&key.id().to_be_bytes());
            raw.extend_from_slice(&expires.to_be_bytes());
            raw.extend_from_slice(id.as_bytes());
            if inner.sealed {
                seal::seal(key.seal(), raw, binding, payload);
            } else {
                sign_into(key.mac(), raw, binding, payload);
            }
            text(raw)
        })
    }

    /// Verifies `token` against `binding` instead of what this signer's policy would give,
    /// and returns its payload.
    ///
    /// # Errors
    ///
    /// The [`StateError`] reason, for the log; answer the client with
    /// [`INVALID_STATE_MESSAGE`](super::INVALID_STATE_MESSAGE) whatever it is.
    pub fn verify_with_binding(
        &self,
        binding: &Binding,
        token: &str,
    ) -> Result<Vec<u8>, StateError> {
        self.open_with_binding(binding, token)
            .map(Opened::into_payload)
    }

    /// Opens `token` against `binding` instead of what this signer's policy would give: its
    /// payload, state id and expiry. Signed and sealed tokens both open, whichever this
    /// signer mints.
    ///
    /// # Errors
    ///
    /// The [`StateError`] reason, for the log; answer the client with
    /// [`INVALID_STATE_MESSAGE`](super::INVALID_STATE_MESSAGE) whatever it is.
    pub fn open_with_binding(&self, binding: &Binding, token: &str) -> Result<Opened, StateError> {
        let inner = &*self.inner;
        if token.len() > inner.max_token_len {
            return Err(StateError::TooLarge);
        }
        // Decoded into a buffer that is not zeroed as it is allocated: see `encode`.
        let mut raw = Vec::new();
        BASE64
            .decode_vec(token, &mut raw)
            .map_err(|_| StateError::Malformed)?;
        let header = Header::parse(&raw)?;
        let payload = match header.format {
            FORMAT_SIGNED => {
                let parts = Parts::parse(&raw)?;
                let key = find(&inner.ring, header.key_id)?;
                verify_signed(key.mac(), &raw, &parts, binding)?;
                parts.payload_start..parts.body_end
            }
            FORMAT_SEALED => {
                seal::sealed_len(raw.len()).ok_or(StateError::Malformed)?;
                let key = find(&inner.ring, header.key_id)?;
                seal::open(key.seal(), &mut raw, binding)?
            }
            _ => return Err(StateError::Malformed),
        };

        if unix_secs(inner.clock.now()) >= header.expires {
            return Err(StateError::Expired);
        }
        raw.truncate(payload.end);
        raw.drain(..payload.start);
        Ok(Opened {
            payload: raw,
            id: header.id,
            expires_at: header.expires,
            key_id: header.key_id,
            sealed: header.format == FORMAT_SEALED,
        })
    }
}

/// What an authentic, unexpired token carries: returned by [`Signer::open_with_binding`] and
/// [`Signer::open`].
///
/// [`Debug`](fmt::Debug) shows the payload's length, never its bytes, since a sealed payload
/// is secret.
#[derive(Clone, PartialEq, Eq)]
pub struct Opened {
    payload: Vec<u8>,
    id: StateId,
    expires_at: u64,
    key_id: u16,
    sealed: bool,
}

impl Opened {
    /// The payload.
    pub fn payload(&self) -> &[u8] {
        &self.payload
    }

    /// The payload, owned.
    pub fn into_payload(self) -> Vec<u8> {
        self.payload
    }

    /// The state's random id, the same on every copy of this token and on no other token.
    ///
    /// A server that must accept a state at most once records this id, and refuses a token
    /// whose id it has recorded; it need remember the id only until
    /// [`expires_at`](Self::expires_at), after which the signer refuses the token anyway.
    pub fn id(&self) -> StateId {
        self.id
    }

    /// When the token expires, in whole seconds since the Unix epoch on the signer's
    /// [clock](Signer::clock): it is refused from this second on.
    pub fn expires_at(&self) -> u64 {
        self.expires_at
    }

    /// The id of the key that minted the token.
    pub fn key_id(&self) -> u16 {
        self.key_id
    }

    /// Whether the token was sealed (its payload encrypted) rather than signed.
    pub fn is_sealed(&self) -> bool {
        self.sealed
    }
}

impl fmt::Debug for Opened {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Opened")
            .field("payload_len", &self.payload.len())
            .field("id", &self.id)
            .field("expires_at", &self.expires_at)
            .field("key_id", &self.key_id)
            .field("sealed", &self.sealed)
            .finish()
    }
}

/// The most a thread's scratch buffer keeps between two tokens: a token's bytes up to this
/// size are written without an allocation of their own; a larger one's buffer is dropped after.
const SCRATCH_KEPT: usize = 4096;

thread_local! {
    /// The bytes of the token being minted on this thread, before they are encoded: kept from
    /// one token to the next, so that minting allocates only the token's text.
    static SCRATCH: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// `write` given this thread's scratch buffer, empty. Whatever `write` leaves in it is
/// cleared; the buffer is kept unless it grew past [`SCRATCH_KEPT`]. A call within `write`
/// (none is made) would get a fresh buffer, not the one in use.
fn with_scratch<T>(write: impl FnOnce(&mut Vec<u8>) -> T) -> T {
    let mut raw = SCRATCH.take();
    let out = write(&mut raw);
    if raw.capacity() <= SCRATCH_KEPT {
        raw.clear();
        SCRATCH.set(raw);
    }
    out
}

/// `raw` in base64, as `BASE64.encode` writes it, into a buffer that is allocated and then
/// filled rather than allocated zeroed: the allocator serves a zeroed allocation on its slow
/// path, every time.
fn encode(raw: &[u8]) -> String {
    let mut text = Vec::new();
    encode_onto(raw, &mut text);
    String::from_utf8(text).expect("base64 is ASCII")
}

/// `raw` in base64, as `BASE64.encode` writes it, appended to `out`.
fn encode_onto(raw: &[u8], out: &mut Vec<u8>) {
    use base64::engine::Config as _;
    let len = base64::encoded_len(raw.len(), BASE64.config().encode_padding())
        .expect("a token's length in base64 fits in memory");
    let start = out.len();
    out.resize(start + len, 0);
    let written = BASE64
        .encode_slice(raw, &mut out[start..])
        .expect("the buffer has the length of the encoding");
    out.truncate(start + written);
}

/// Key `key_id` of `ring`.
fn find(ring: &KeyRing, key_id: u16) -> Result<&Key, StateError> {
    ring.find(key_id).ok_or(StateError::UnknownKey)
}

impl fmt::Debug for Signer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inner = &*self.inner;
        let binding = match &inner.binding {
            BindingSource::Default => "default",
            BindingSource::Policy(_) => "policy",
            BindingSource::Fixed(_) => "fixed",
        };
        f.debug_struct("Signer")
            .field("key_ring", &inner.ring)
            .field("ttl_secs", &inner.ttl_secs)
            .field("max_token_len", &inner.max_token_len)
            .field("binding", &binding)
            .field("sealed", &inner.sealed)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_overhead_is_fixed_plus_varint() {
        let signer = Signer::new(1, &[1; 32]).expect("a 32-byte secret is accepted");
        let binding = Binding::from_bytes([0; 32]);
        let raw_len = |payload_len: usize| {
            let token = signer.sign_with_binding(&binding, &vec![b'x'; payload_len]);
            BASE64.decode(token).expect("tokens are base64").len()
        };
        assert_eq!(raw_len(0), 27 + 1 + 40);
        assert_eq!(raw_len(256), 256 + 27 + 2 + 40);
        let sealed = signer.clone().sealed();
        let sealed_len = |payload_len: usize| {
            let token = sealed.sign_with_binding(&binding, &vec![b'x'; payload_len]);
            BASE64.decode(token).expect("tokens are base64").len()
        };
        assert_eq!(sealed_len(0), 27 + 16);
        assert_eq!(sealed_len(256), 256 + 27 + 16);
    }

    /// A token minted by the build before this one (the binding fed to SHA-256 as slices)
    /// opens in this one, and this one mints it byte for byte: the tokens' format, the
    /// binding's encoding and the key's use are unchanged. Every kind of argument value is
    /// bound.
    #[test]
    fn a_token_minted_by_the_previous_build_opens() {
        const TOKEN: &str = "AgAHAAAAAGtJ1FgJCQkJCQkJCQkJCQkJCQkJB3BheWxvYWQKp4SvqSnI7fEKM2F4oYAMXNnVNi7Je9J4QFf5gf1hkpmCv-Z32joT";
        let clock = Arc::new(super::super::ManualClock::from_unix_secs(1_800_000_000));
        let signer = Signer::new(7, &[0x42; 32])
            .expect("a 32-byte secret is accepted")
            .with_clock(clock);
        let arguments = serde_json::json!({
            "service": "api", "replicas": 3, "offset": -2, "ratio": 1.5, "on": true,
            "off": false, "none": null, "tags": ["a", "b"], "nested": {"z": 1, "a": "x"}
        });
        let cx = BindingContext::new("tools/call", "confirm_deploy")
            .with_audience("deploy")
            .with_subject(Some("alice"))
            .with_arguments(Some(&arguments));
        let binding = signer.binding(&cx);
        let minted = signer.sign_with_id(&binding, StateId::from_bytes([9; 16]), b"payload");
        assert_eq!(minted, TOKEN);
        let opened = signer.open(&cx, TOKEN).expect("the old token opens");
        assert_eq!(opened.into_payload(), b"payload");
    }
}
