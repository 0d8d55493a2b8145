//! The request-state codec: signed, bound, expiring continuation tokens.
//!
//! Between two rounds of a multi-round request the server keeps nothing. The flow driver
//! serialises where the handler stopped (its continuation) into a payload, and a [`Signer`]
//! turns that payload into the opaque `requestState` string the client sends back on its next
//! try. On that next try the same (or any other) server instance verifies the string before any
//! user code runs, and refuses any state it did not mint for this very request.
//!
//! # Threat model
//!
//! - **Signed, not encrypted.** The payload travels in the clear: any client can base64-decode
//!   the token and read it. Never put a secret in a continuation. What the client cannot do is
//!   change a single bit of it, or forge one, without the server's secret.
//! - **Bound to the request.** A state minted for one request is refused on another: the MAC
//!   covers a [`Binding`] the verifier recomputes from the request it is answering (by default
//!   the authenticated subject, the method, the target and a digest of the arguments; see
//!   [`default_binding`]). The binding itself is not carried in the token.
//! - **Expiring.** Every token carries its expiry (ten minutes after minting by default, see
//!   [`Signer::with_ttl`]); the server refuses it afterwards.
//! - **Not single-use.** Nothing is stored, so a client may replay a state it legitimately
//!   holds, with the same subject and arguments, until it expires. Handlers whose steps have
//!   side effects must be idempotent under such a replay, or record completion themselves.
//! - **The secret never leaves the server.** Only the prepared HMAC state derived from each key
//!   is kept; keys are at least 32 bytes long; tag comparison is constant-time.
//! - **Quiet failures.** Every refusal has a [`StateError`] reason for the server's log, but a
//!   client only ever sees [`INVALID_STATE_MESSAGE`]: it cannot learn whether its token was
//!   expired, forged or bound elsewhere.
//! - **Bounded work.** A token longer than the signer's limit (16 KiB by default) is refused
//!   before any decoding, and no input makes the codec panic.
//!
//! # Token layout
//!
//! The token is URL-safe base64 without padding (`A-Z a-z 0-9 - _`) of these bytes, fixed-size
//! integers big-endian:
//!
//! | bytes | field |
//! |---|---|
//! | 1 | format version, `1` |
//! | 2 | key id (`u16`) of the key that minted it |
//! | 8 | expiry, unix seconds (`u64`); the token is refused from this second on |
//! | 1–10 | payload length `n`, unsigned LEB128 in its shortest form |
//! | `n` | payload, opaque bytes |
//! | 8 | binding check: the first 8 bytes of HMAC-SHA256(key, *body* ‖ `0x00`) |
//! | 32 | tag: HMAC-SHA256(key, *body* ‖ `0x01` ‖ *check* ‖ *binding*) |
//!
//! where *body* is everything before the binding check and *binding* the 32-byte [`Binding`].
//! The envelope adds 52 bytes plus the length's (2 for payloads of 128 bytes to 16 KiB), so a
//! 256-byte payload makes a 412-character token. The key id is read from the token and looked
//! up directly in the signer's [`KeyRing`], so rotating keys needs no trial verification.
//!
//! The encoded payload length makes every MAC input prefix-free, and the domain byte after the
//! body separates the two MACs, so no tag the server publishes can stand in for another.
//!
//! ## Why a binding check
//!
//! The binding is mixed into the tag, so a state replayed on another request fails exactly like
//! a forged one. The 8-byte check, an HMAC over everything except the binding, lets the log tell
//! them apart: when the tag fails but the check holds, the token was minted by this server for
//! another binding ([`StateError::BindingMismatch`]); when both fail it was altered or forged
//! ([`StateError::BadSignature`]). A token whose tag alone was altered reads as a binding
//! mismatch too: the check vouches only that this server minted the body. The check does not
//! involve the binding, so the token carries nothing derived from the binding but the tag.
//! Minting shares the HMAC state of the body between the two MACs, and a successful
//! verification never computes the check, so it costs two compression rounds when signing and
//! nothing when verifying.
//!
//! # Who may mint
//!
//! A server holds one [`Signer`] and only ever mints with [`Signer::sign`], which applies the
//! signer's own policy (or fixed binding) to the request being answered (or, equivalently,
//! with [`Signer::sign_with_binding`] given [`Signer::binding`] of that same request). Handlers never see the
//! signer: they return continuations, and the flow driver signs them. So every state a server
//! hands out verifies under the server's policy; a handler cannot mint under a binding of its
//! own. [`Signer::sign_with_binding`] and [`Signer::verify_with_binding`] exist for code that
//! owns the signer and knows the binding it wants, such as tooling and tests.
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
//!     .with_subject(Some("alice"))
//!     .with_arguments(Some(&args));
//!
//! let token = signer.sign(&cx, br#"{"step":1}"#);
//! assert_eq!(signer.verify(&cx, &token)?, br#"{"step":1}"#);
//!
//! // The same state offered on behalf of someone else is refused.
//! let mallory = cx.with_subject(Some("mallory"));
//! assert_eq!(signer.verify(&mallory, &token), Err(StateError::BindingMismatch));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod binding;
mod clock;
mod keys;
mod signer;

use std::fmt;

pub use binding::{Binding, BindingContext, BindingPolicy, default_binding};
pub use clock::{Clock, ManualClock, SystemClock};
pub use keys::{KeyError, KeyRing, MIN_SECRET_LEN};
pub use signer::{DEFAULT_MAX_TOKEN_LEN, DEFAULT_TTL, Signer};
pub(crate) use signer::{get_varint, put_varint};

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
    /// Authentic, but minted for another binding (another subject, method, target or
    /// arguments).
    BindingMismatch,
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
        })
    }
}

impl std::error::Error for StateError {}
