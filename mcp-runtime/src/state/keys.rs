//! Signing keys: one mints, every key in the ring verifies.

use std::fmt;

use aes_gcm_siv::Aes256GcmSiv;
use aes_gcm_siv::aead::KeyInit as _;
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit};
use sha2::Sha256;

/// The shortest secret a signer accepts, in bytes: the output size of SHA-256.
pub const MIN_SECRET_LEN: usize = 32;

/// The HMAC state of a key, prepared once (the key already absorbed into the inner and outer
/// hash states) and cloned for each token.
pub(super) type PreparedMac = Hmac<Sha256>;

/// The sealing cipher of a key: AES-256-GCM-SIV under a key derived from the secret.
pub(super) type SealCipher = Aes256GcmSiv;

/// HKDF-SHA256 salt of the sealing key.
const SEAL_SALT: &[u8] = b"mcp-runtime/state/seal";
/// HKDF-SHA256 info of the sealing key, followed by the key id (`u16`, big-endian). A new
/// sealed format that needs another key takes another info.
const SEAL_INFO: &[u8] = b"mcp-runtime/state/seal/aes-256-gcm-siv/v1";

/// One key of the ring: the prepared HMAC of signed tokens and the cipher of sealed ones,
/// both from one secret, which is not kept.
#[derive(Clone)]
pub(super) struct Key {
    id: u16,
    mac: PreparedMac,
    seal: SealCipher,
}

impl Key {
    fn new(id: u16, secret: &[u8]) -> Result<Self, KeyError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(KeyError::SecretTooShort { len: secret.len() });
        }
        // HMAC takes keys of any length; the error branch cannot be reached.
        let mac = PreparedMac::new_from_slice(secret)
            .map_err(|_| KeyError::SecretTooShort { len: secret.len() })?;
        let mut seal_key = seal_key(id, secret);
        let seal = SealCipher::new(&seal_key.into());
        seal_key.fill(0);
        Ok(Self { id, mac, seal })
    }

    /// The key id tokens name.
    pub(super) fn id(&self) -> u16 {
        self.id
    }

    /// The prepared HMAC of signed tokens, keyed with the secret itself.
    pub(super) fn mac(&self) -> &PreparedMac {
        &self.mac
    }

    /// The cipher of sealed tokens, keyed with [`seal_key`].
    pub(super) fn seal(&self) -> &SealCipher {
        &self.seal
    }
}

/// The sealing key of `secret` under `key_id`: HKDF-SHA256 (RFC 5869) with salt
/// [`SEAL_SALT`] and info [`SEAL_INFO`] ‖ `key_id`, 32 bytes. Never the HMAC key itself, and
/// distinct per key id even for one secret.
fn seal_key(key_id: u16, secret: &[u8]) -> [u8; 32] {
    let mut key = [0u8; 32];
    Hkdf::<Sha256>::new(Some(SEAL_SALT), secret)
        .expand_multi_info(&[SEAL_INFO, &key_id.to_be_bytes()], &mut key)
        // 32 bytes is far below HKDF-SHA256's limit of 255 * 32 bytes.
        .expect("HKDF-SHA256 expands to 32 bytes");
    key
}

/// The keys of a [`Signer`](super::Signer): one minting key, and any number of keys that only
/// verify.
///
/// Every token names the id of the key that minted it, and the ring looks that id up directly,
/// so rotation needs no trial verification. To rotate without breaking any state in flight:
///
/// 1. [`rotate`](KeyRing::rotate) to a new key on every instance: it mints from then on, and
///    the old key stays in the ring to verify what it minted.
/// 2. Once the time-to-live has passed, [`remove_key`](KeyRing::remove_key) the old one.
///
/// Behind a load balancer every instance must hold the same keys under the same ids, and must
/// have the new key in its ring before any instance starts minting with it: first
/// [`add_verifying_key`](KeyRing::add_verifying_key) everywhere, then rotate.
///
/// Of each key, only what signing and sealing use is kept: the prepared HMAC state (the secret
/// absorbed into the hash states) and the sealing cipher, under a key derived from the secret
/// with HKDF. The secret itself is not kept, and [`Debug`](fmt::Debug) shows key ids only.
#[derive(Clone)]
pub struct KeyRing {
    minting: Key,
    verifying: Vec<Key>,
}

impl KeyRing {
    /// A ring whose only key, `secret` under id `key_id`, mints and verifies.
    ///
    /// # Errors
    ///
    /// [`KeyError::SecretTooShort`] if `secret` is shorter than [`MIN_SECRET_LEN`] bytes.
    pub fn new(key_id: u16, secret: &[u8]) -> Result<Self, KeyError> {
        Ok(Self {
            minting: Key::new(key_id, secret)?,
            verifying: Vec::new(),
        })
    }

    /// A ring with one fresh random 32-byte key under id `0`, drawn from the operating
    /// system's random source.
    ///
    /// Only for a single process: the key lives in this process alone, so states it minted
    /// are refused by every other instance, and by this one after a restart. Behind a load
    /// balancer, where the next round of a request may reach another instance, every instance
    /// must share one secret: use [`KeyRing::new`] with a key from configuration.
    ///
    /// # Errors
    ///
    /// [`KeyError::Random`] if the operating system's random source fails.
    pub fn random() -> Result<Self, KeyError> {
        let mut secret = [0u8; MIN_SECRET_LEN];
        getrandom::fill(&mut secret).map_err(|error| KeyError::Random {
            reason: error.to_string(),
        })?;
        let ring = Self::new(0, &secret);
        secret.fill(0);
        ring
    }

    /// The id of the key that mints.
    pub fn minting_key_id(&self) -> u16 {
        self.minting.id
    }

    /// The ids of every key in the ring, the minting key first.
    pub fn key_ids(&self) -> impl Iterator<Item = u16> + '_ {
        std::iter::once(&self.minting)
            .chain(&self.verifying)
            .map(|key| key.id)
    }

    /// Whether a key with id `key_id` is in the ring.
    pub fn contains(&self, key_id: u16) -> bool {
        self.key_ids().any(|id| id == key_id)
    }

    /// Adds `secret` under id `key_id` as a key that verifies but does not mint.
    ///
    /// # Errors
    ///
    /// [`KeyError::SecretTooShort`] for a short secret, [`KeyError::DuplicateKeyId`] if the
    /// ring already holds a key with that id.
    pub fn add_verifying_key(&mut self, key_id: u16, secret: &[u8]) -> Result<(), KeyError> {
        if self.contains(key_id) {
            return Err(KeyError::DuplicateKeyId { key_id });
        }
        self.verifying.push(Key::new(key_id, secret)?);
        Ok(())
    }

    /// Makes `secret` under the new id `key_id` the minting key; the previous minting key
    /// stays in the ring and keeps verifying.
    ///
    /// # Errors
    ///
    /// [`KeyError::SecretTooShort`] for a short secret, [`KeyError::DuplicateKeyId`] if the
    /// ring already holds a key with that id (to promote a verifying key, use
    /// [`promote`](KeyRing::promote)).
    pub fn rotate(&mut self, key_id: u16, secret: &[u8]) -> Result<(), KeyError> {
        if self.contains(key_id) {
            return Err(KeyError::DuplicateKeyId { key_id });
        }
        let new = Key::new(key_id, secret)?;
        let old = std::mem::replace(&mut self.minting, new);
        self.verifying.push(old);
        Ok(())
    }

    /// Makes the verifying key `key_id` the minting key; the previous minting key stays in
    /// the ring and keeps verifying.
    ///
    /// # Errors
    ///
    /// [`KeyError::UnknownKeyId`] if no verifying key has that id. Promoting the key that
    /// already mints does nothing.
    pub fn promote(&mut self, key_id: u16) -> Result<(), KeyError> {
        if self.minting.id == key_id {
            return Ok(());
        }
        let index = self
            .verifying
            .iter()
            .position(|key| key.id == key_id)
            .ok_or(KeyError::UnknownKeyId { key_id })?;
        std::mem::swap(&mut self.minting, &mut self.verifying[index]);
        Ok(())
    }

    /// Removes the verifying key `key_id`: states it minted are refused from then on.
    ///
    /// # Errors
    ///
    /// [`KeyError::RemovingMintingKey`] for the minting key (rotate first),
    /// [`KeyError::UnknownKeyId`] if the ring holds no key with that id.
    pub fn remove_key(&mut self, key_id: u16) -> Result<(), KeyError> {
        if self.minting.id == key_id {
            return Err(KeyError::RemovingMintingKey { key_id });
        }
        let index = self
            .verifying
            .iter()
            .position(|key| key.id == key_id)
            .ok_or(KeyError::UnknownKeyId { key_id })?;
        self.verifying.remove(index);
        Ok(())
    }

    /// The minting key.
    pub(super) fn minting(&self) -> &Key {
        &self.minting
    }

    /// Key `key_id`, if it is in the ring.
    pub(super) fn find(&self, key_id: u16) -> Option<&Key> {
        if self.minting.id == key_id {
            return Some(&self.minting);
        }
        self.verifying.iter().find(|key| key.id == key_id)
    }
}

impl fmt::Debug for KeyRing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyRing")
            .field("minting_key_id", &self.minting.id)
            .field(
                "verifying_key_ids",
                &self.verifying.iter().map(|key| key.id).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// Why a key or a key-ring change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum KeyError {
    /// The secret is shorter than [`MIN_SECRET_LEN`] bytes.
    SecretTooShort {
        /// The secret's length in bytes.
        len: usize,
    },
    /// The ring already holds a key with this id.
    DuplicateKeyId {
        /// The id.
        key_id: u16,
    },
    /// The ring holds no key with this id.
    UnknownKeyId {
        /// The id.
        key_id: u16,
    },
    /// The minting key cannot be removed; rotate to another key first.
    RemovingMintingKey {
        /// The minting key's id.
        key_id: u16,
    },
    /// The operating system's random source failed.
    Random {
        /// What the random source reported.
        reason: String,
    },
}

impl fmt::Display for KeyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::SecretTooShort { len } => write!(
                f,
                "signing secret is {len} bytes long; it must be at least {MIN_SECRET_LEN} bytes"
            ),
            Self::DuplicateKeyId { key_id } => {
                write!(f, "key id `{key_id}` is already in the key ring")
            }
            Self::UnknownKeyId { key_id } => write!(f, "key id `{key_id}` is not in the key ring"),
            Self::RemovingMintingKey { key_id } => write!(
                f,
                "key `{key_id}` mints new states and cannot be removed; rotate to another key first"
            ),
            Self::Random { reason } => {
                write!(f, "cannot draw a random signing key: {reason}")
            }
        }
    }
}

impl std::error::Error for KeyError {}
