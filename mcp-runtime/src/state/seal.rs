//! Sealed tokens: the payload encrypted and authenticated with AES-256-GCM-SIV.
//!
//! The layout and the reasons for it are in the [module documentation](super#sealed-format-3).

use std::ops::Range;

use aes_gcm_siv::aead::AeadInPlace as _;
use aes_gcm_siv::{Nonce, Tag};

use super::StateError;
use super::binding::Binding;
use super::envelope::HEADER_LEN;
use super::keys::SealCipher;

/// Format byte of sealed tokens.
pub(super) const FORMAT_SEALED: u8 = 3;
/// Bytes of the GCM-SIV tag.
const TAG_LEN: usize = 16;
/// Where the nonce lies in the header: the first 12 bytes of the state id.
const NONCE: Range<usize> = 11..23;
/// Bytes of the associated data: the header, then the binding.
const AD_LEN: usize = HEADER_LEN + 32;

/// The header, then the binding: what the seal authenticates without encrypting.
fn associated_data(header: &[u8], binding: &Binding) -> [u8; AD_LEN] {
    let mut ad = [0u8; AD_LEN];
    ad[..HEADER_LEN].copy_from_slice(header);
    ad[HEADER_LEN..].copy_from_slice(binding.as_bytes());
    ad
}

/// Appends `payload`, sealed under `cipher` for `binding`, and its tag to `raw`, which holds
/// exactly the token's header.
pub(super) fn seal(cipher: &SealCipher, raw: &mut Vec<u8>, binding: &Binding, payload: &[u8]) {
    debug_assert_eq!(raw.len(), HEADER_LEN);
    raw.extend_from_slice(payload);
    let (header, body) = raw.split_at_mut(HEADER_LEN);
    let ad = associated_data(header, binding);
    let nonce = Nonce::from_slice(&header[NONCE]);
    let tag = cipher
        .encrypt_in_place_detached(nonce, &ad, body)
        // GCM-SIV refuses only plaintexts over 2^36 bytes, which no token comes near.
        .expect("AES-256-GCM-SIV seals payloads up to 64 GiB");
    raw.extend_from_slice(&tag);
}

/// The length of the sealed payload in a token of `raw_len` bytes, if it can hold one.
pub(super) fn sealed_len(raw_len: usize) -> Option<usize> {
    raw_len.checked_sub(HEADER_LEN + TAG_LEN)
}

/// Opens the sealed token `raw` for `binding`, decrypting its payload in place; returns where
/// the payload lies.
///
/// # Errors
///
/// [`StateError::BadSeal`] if the tag does not verify: the token was altered or forged, or
/// was sealed for another binding (the seal cannot tell which).
pub(super) fn open(
    cipher: &SealCipher,
    raw: &mut [u8],
    binding: &Binding,
) -> Result<Range<usize>, StateError> {
    let body_len = sealed_len(raw.len()).ok_or(StateError::Malformed)?;
    let (header, rest) = raw.split_at_mut(HEADER_LEN);
    let (body, tag) = rest.split_at_mut(body_len);
    let ad = associated_data(header, binding);
    let nonce = Nonce::from_slice(&header[NONCE]);
    let tag = Tag::from_slice(tag);
    cipher
        .decrypt_in_place_detached(nonce, &ad, body, tag)
        .map_err(|_| StateError::BadSeal)?;
    Ok(HEADER_LEN..HEADER_LEN + body_len)
}
