//! The request-state codec: signed or sealed, bound, expiring, identified continuation tokens.
//!
//! Between two rounds of a multi-round request the server keeps nothing. The flow driver
//! serialises where the handler stopped (its continuation) into a payload, and a [`Signer`]
//! turns that payload into the opaque `requestState` string the client sends back on its next
//! try. On that next try the same (or any other) server instance verifies the string before any
//! user code runs, and refuses any state it did not mint for this very request.
//!
//! # Threat model
//!
//! - **Signed, or sealed.** A signed token (the default) carries its payload in the clear: any
//!   client can base64-decode the token and read it, so a signed continuation must never hold
//!   a secret. A sealed token ([`Signer::sealed`]) encrypts the payload as well, so a client
//!   learns nothing of it but its length. In both formats the client cannot change a single
//!   bit, or forge a token, without the server's secret.
//! - **Bound to the request.** A state minted for one request is refused on another: the tag
//!   (or seal) covers a [`Binding`] the verifier recomputes from the request it is answering
//!   (by default the server's audience, the authenticated subject, the method, the target and a
//!   digest of the arguments; see [`default_binding`]). Two services that share a key and a
//!   tool name refuse each other's states when their audiences differ. The binding itself is
//!   not carried in the token.
//! - **Expiring.** Every token carries its expiry (ten minutes after minting by default, see
//!   [`Signer::with_ttl`]); the server refuses it afterwards.
//! - **Identified, so that it can be used once.** Every token carries a random 16-byte
//!   [`StateId`] under its tag or seal, and [`Signer::open`] returns it with the expiry
//!   ([`Opened`]). The codec stores nothing, so on its own it lets a client replay a state it
//!   legitimately holds, with the same subject and arguments, until it expires; a server that
//!   records the id of every state it accepts, until that state's expiry, refuses the second
//!   use.
//! - **The secret never leaves the server.** Of each key only the prepared HMAC state and a
//!   sealing key derived from it with HKDF are kept; keys are at least 32 bytes long; tags are
//!   compared in constant time.
//! - **Quiet failures.** Every refusal has a [`StateError`] reason for the server's log, but a
//!   client only ever sees [`INVALID_STATE_MESSAGE`]: it cannot learn whether its token was
//!   expired, forged or bound elsewhere.
//! - **Bounded work.** A token longer than the signer's limit (16 KiB by default) is refused
//!   before any decoding, and no input makes the codec panic.
//!
//! What each format shows a client, and what it protects:
//!
//! | | signed (format 2) | sealed (format 3) |
//! |---|---|---|
//! | payload | readable; authenticated | secret; authenticated |
//! | payload length | readable | readable (the ciphertext is as long as the payload) |
//! | key id, expiry, state id | readable; authenticated | readable; authenticated |
//! | binding | not carried; covered by the tag | not carried; associated data of the seal |
//! | refusal reasons | a binding mismatch told apart from tampering | not told apart ([`StateError::BadSeal`]) |
//!
//! # Token layouts
//!
//! A token is URL-safe base64 without padding (`A-Z a-z 0-9 - _`) of these bytes, fixed-size
//! integers big-endian. Both formats open with the same 27-byte header:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format: `2` signed, `3` sealed; `1` (signed, without a state id) is retired and refused |
//! | 2 | key id (`u16`) of the key that minted it |
//! | 8 | expiry, unix seconds (`u64`); the token is refused from this second on |
//! | 16 | state id ([`StateId`]), random |
//!
//! The key id is read from the token and looked up directly in the signer's [`KeyRing`], so
//! rotating keys needs no trial verification.
//!
//! ## Signed, format 2
//!
//! | bytes | field |
//! |---|---|
//! | 27 | header |
//! | 1–10 | payload length `n`, unsigned LEB128 in its shortest form |
//! | `n` | payload, opaque bytes |
//! | 8 | binding check: the first 8 bytes of HMAC-SHA256(key, *body* ‖ `0x00`) |
//! | 32 | tag: HMAC-SHA256(key, *body* ‖ `0x01` ‖ *check* ‖ *binding*) |
//!
//! where *body* is everything before the binding check, *binding* the 32-byte [`Binding`] and
//! *key* the secret itself. The envelope adds 67 bytes plus the length's (2 for payloads of 128
//! bytes to 16 KiB), so a 256-byte payload makes a 434-character token.
//!
//! The encoded payload length makes every MAC input prefix-free, and the domain byte after the
//! body separates the two MACs, so no tag the server publishes can stand in for another.
//!
//! ## Sealed, format 3
//!
//! | bytes | field |
//! |---|---|
//! | 27 | header |
//! | `n` | the payload, encrypted |
//! | 16 | tag |
//!
//! The cipher is AES-256-GCM-SIV (RFC 8452) under a *sealing key* derived for each key of the
//! ring: HKDF-SHA256 (RFC 5869) with salt `mcp-runtime/state/seal`, the secret as input key
//! material and info `mcp-runtime/state/seal/aes-256-gcm-siv/v1` ‖ key id, 32 bytes. The nonce
//! is the first 12 bytes of the state id; the associated data is the 27-byte header followed by
//! the 32-byte binding. The envelope adds 43 bytes, so a 256-byte payload makes a
//! 399-character token.
//!
//! GCM-SIV resists nonce misuse: should two tokens ever share a nonce (a broken random source,
//! a process that forks after minting), it reveals only whether their payloads and bindings
//! were equal, where AES-GCM or ChaCha20-Poly1305 would give away the key stream and let a
//! client forge tokens.
//!
//! ## Why a binding check
//!
//! The binding is mixed into the tag, so a state replayed on another request fails exactly like
//! a forged one. The 8-byte check of signed tokens, an HMAC over everything except the binding,
//! lets the log tell them apart: when the tag fails but the check holds, the token was minted
//! by this server for another binding ([`StateError::BindingMismatch`]); when both fail it was
//! altered or forged ([`StateError::BadSignature`]). A token whose tag alone was altered reads
//! as a binding mismatch too: the check vouches only that this server minted the body. The
//! check does not involve the binding, so the token carries nothing derived from the binding
//! but the tag. Minting shares the HMAC state of the body between the two MACs, and a
//! successful verification never computes the check, so it costs two compression rounds when
//! signing and nothing when verifying.
//!
//! Sealed tokens carry no such check: one that told a binding mismatch from tampering would
//! have to MAC the whole ciphertext when sealing, as dear again as signing. A sealed token that
//! does not open is [`StateError::BadSeal`], whatever the cause.
//!
//! ## Two formats, one signer
//!
//! Every signer opens both formats, whichever it mints. A fleet switches to sealed states one
//! instance at a time, [`Signer::sealed`] on each, without refusing the signed states still in
//! flight: a sealed signer accepts them until they expire. It switches back the same way. A
//! token's format is its own first byte, authenticated with the rest of it.
//!
//! # Who may mint
//!
//! A server holds one [`Signer`] and only ever mints with [`Signer::sign`], which applies the
//! signer's own policy (or fixed binding) to the request being answered (or, equivalently,
//! with [`Signer::sign_with_binding`] given [`Signer::binding`] of that same request). Handlers
//! never see the signer: they return continuations, and the flow driver signs them. So every
//! state a server hands out verifies under the server's policy; a handler cannot mint under a
//! binding of its own. [`Signer::sign_with_binding`], [`Signer::verify_with_binding`] and
//! [`Signer::open_with_binding`] exist for code that owns the signer and knows the binding it
//! wants, such as the flow driver, tooling and tests.
//!
//! # Example
//!
//! ```
//! use mcp_runtime::state::{BindingContext, Signer, StateError};
//! use serde_json::json;
//!
//! let signer = Signer::new(1, &[7u8; 32])?;
//! let args = json!({ "env": "prod" });
//! let cx = BindingContext::new("tools/call", "deploy")
//!     .with_audience("ops-server")
//!     .with_subject(Some("alice"))
//!     .with_arguments(Some(&args));
//!
//! let token = signer.sign(&cx, br#"{"step":1}"#);
//! assert_eq!(signer.verify(&cx, &token)?, br#"{"step":1}"#);
//!
//! // Opening tells the state's id, for a server that accepts each state once.
//! let opened = signer.open(&cx, &token)?;
//! assert_eq!(opened.payload(), br#"{"step":1}"#);
//! assert_ne!(opened.id(), signer.open(&cx, &signer.sign(&cx, b"{}"))?.id());
//!
//! // The same state offered on behalf of someone else, or to another service, is refused.
//! let mallory = cx.with_subject(Some("mallory"));
//! assert_eq!(signer.verify(&mallory, &token), Err(StateError::BindingMismatch));
//! let billing = cx.with_audience("billing-server");
//! assert_eq!(signer.verify(&billing, &token), Err(StateError::BindingMismatch));
//!
//! // A sealed signer hides the payload, and still opens the signed token.
//! let sealed = signer.clone().sealed();
//! let secret = sealed.sign(&cx, br#"{"otp":"914302"}"#);
//! assert_eq!(sealed.verify(&cx, &secret)?, br#"{"otp":"914302"}"#);
//! assert_eq!(sealed.verify(&cx, &token)?, br#"{"step":1}"#);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod binding;
mod clock;
mod envelope;
mod id;
mod keys;
mod seal;
mod signer;
mod varint;

use std::fmt;

pub use binding::{Binding, BindingContext, BindingPolicy, default_binding};
pub use clock::{Clock, ManualClock, SystemClock};
pub use id::StateId;
pub use keys::{KeyError, KeyRing, MIN_SECRET_LEN};
pub use signer::{DEFAULT_MAX_TOKEN_LEN, DEFAULT_TTL, Opened, Signer};
pub(crate) use varint::{get_varint, put_varint};

/// The one message a client sees when its `requestState` is refused, whatever the reason.
///
/// The flow driver answers with JSON-RPC error `-32602` and this message; the
/// [`StateError`] reason goes to the server's log only.
pub const INVALID_STATE_MESSAGE: &str = "Invalid or expired \"requestState\"";

/// Why a `requestState` token was refused.
///
/// For the server's log only: its [`Display`](fmt::Display) names the reason, which a client
/// must never see. Answer clients with [`INVALID_STATE_MESSAGE`] (see
/// [`StateError::client_message`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateError {
    /// Not URL-safe base64 without padding, too short, an unknown format version, or a payload
    /// length that does not match.
    Malformed,
    /// Longer than the signer's limit; refused before any decoding.
    TooLarge,
    /// Names a key id that is not in the signer's key ring (never minted here, or its key was
    /// removed since).
    UnknownKey,
    /// The tag does not verify: the token was altered or forged.
    BadSignature,
    /// Authentic, but its expiry has passed.
    Expired,
    /// Authentic, but minted for another binding (another audience, subject, method, target
    /// or arguments).
    BindingMismatch,
    /// A sealed token whose seal does not open: altered, forged, or sealed for another
    /// binding. The seal cannot tell these apart (see the
    /// [module documentation](self#why-a-binding-check)).
    BadSeal,
}

impl StateError {
    /// The message to show the client: always [`INVALID_STATE_MESSAGE`].
    pub const fn client_message(self) -> &'static str {
        INVALID_STATE_MESSAGE
    }
}

impl fmt::Display for StateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Malformed => "malformed `requestState` token",
            Self::TooLarge => "`requestState` token exceeds the size limit",
            Self::UnknownKey => "`requestState` token names a key id not in the key ring",
            Self::BadSignature => "`requestState` token has a bad signature",
            Self::Expired => "`requestState` token has expired",
            Self::BindingMismatch => "`requestState` token was minted for another request binding",
            Self::BadSeal => {
                "sealed `requestState` token does not open: altered, forged or sealed for another request binding"
            }
        })
    }
}

impl std::error::Error for StateError {}

mod replay;

pub use replay::{
    Begin, BoxFuture, DEFAULT_ANONYMOUS_QUOTA, DEFAULT_OWNER_QUOTA, DEFAULT_REPLAY_CAPACITY,
    MemoryReplayStore, Owner, ReplayStore, StoreError,
};
#[cfg(feature = "redis")]
pub use replay::{DEFAULT_REDIS_PREFIX, DEFAULT_REDIS_TIMEOUT, RedisReplayStore};
#[cfg(feature = "redis")]
pub(crate) use replay::{answer_within, connect_redis, whole_millis};
