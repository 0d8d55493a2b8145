//! The token's envelope: the header both formats share, and the signed format's layout
//! (format 2: header, payload length and payload, binding check, tag), written and checked.
//! The sealed format is `seal`'s; the module documentation of `state` draws both.

use hmac::Mac as _;

use super::StateError;
use super::binding::Binding;
use super::id::StateId;
use super::keys::PreparedMac;
use super::varint::{get_varint, put_varint};

/// Format byte of signed tokens. Format 1, signed tokens without a state id, is retired.
pub(super) const FORMAT_SIGNED: u8 = 2;
/// Format, key id, expiry and state id: the header both formats share.
pub(super) const HEADER_LEN: usize = 1 + 2 + 8 + 16;
/// Bytes of the binding check kept in the token.
pub(super) const CHECK_LEN: usize = 8;
/// Bytes of the tag.
pub(super) const TAG_LEN: usize = 32;
/// Domain byte after the payload in the binding check's MAC input.
pub(super) const CHECK_DOMAIN: u8 = 0x00;
/// Domain byte after the payload in the tag's MAC input.
pub(super) const TAG_DOMAIN: u8 = 0x01;

/// Appends the payload length, `payload`, the binding check and the tag to `raw`, which holds
/// exactly the token's header.
pub(super) fn sign_into(
    prepared: &PreparedMac,
    raw: &mut Vec<u8>,
    binding: &Binding,
    payload: &[u8],
) {
    put_varint(raw, payload.len() as u64);
    raw.extend_from_slice(payload);

    // Header and payload are absorbed once; both MACs continue from that state.
    let mut mac = prepared.clone();
    mac.update(raw);
    let mut check_mac = mac.clone();
    check_mac.update(&[CHECK_DOMAIN]);
    let check = check_mac.finalize().into_bytes();
    let check = &check[..CHECK_LEN];
    mac.update(&[TAG_DOMAIN]);
    mac.update(check);
    mac.update(binding.as_bytes());
    let tag = mac.finalize().into_bytes();

    raw.extend_from_slice(check);
    raw.extend_from_slice(&tag);
}

/// Verifies the tag of the signed token `raw` for `binding`.
pub(super) fn verify_signed(
    prepared: &PreparedMac,
    raw: &[u8],
    parts: &Parts,
    binding: &Binding,
) -> Result<(), StateError> {
    let (body, trailer) = raw.split_at(parts.body_end);
    let (check, tag) = trailer.split_at(CHECK_LEN);
    let mut mac = prepared.clone();
    mac.update(body);
    mac.update(&[TAG_DOMAIN]);
    mac.update(check);
    mac.update(binding.as_bytes());
    mac.verify_slice(tag)
        .map_err(|_| classify_failure(prepared, body, check))
}

/// The tag failed. If the binding check holds, the token is ours but minted for another
/// binding; otherwise it was altered or forged. Only reached on failure, so a successful
/// verification never pays for the check.
pub(super) fn classify_failure(prepared: &PreparedMac, body: &[u8], check: &[u8]) -> StateError {
    let mut check_mac = prepared.clone();
    check_mac.update(body);
    check_mac.update(&[CHECK_DOMAIN]);
    match check_mac.verify_truncated_left(check) {
        Ok(()) => StateError::BindingMismatch,
        Err(_) => StateError::BadSignature,
    }
}

/// The header both formats share.
pub(super) struct Header {
    pub(super) format: u8,
    pub(super) key_id: u16,
    pub(super) expires: u64,
    pub(super) id: StateId,
}

impl Header {
    /// The header at the start of `raw`, whatever the format byte says.
    pub(super) fn parse(raw: &[u8]) -> Result<Self, StateError> {
        let (header, _) = raw
            .split_first_chunk::<HEADER_LEN>()
            .ok_or(StateError::Malformed)?;
        let (&[format, k0, k1], rest) = header
            .split_first_chunk::<3>()
            .ok_or(StateError::Malformed)?;
        let (&expires, rest) = rest.split_first_chunk::<8>().ok_or(StateError::Malformed)?;
        let &id = <&[u8; 16]>::try_from(rest).map_err(|_| StateError::Malformed)?;
        Ok(Self {
            format,
            key_id: u16::from_be_bytes([k0, k1]),
            expires: u64::from_be_bytes(expires),
            id: StateId::from_bytes(id),
        })
    }
}

/// Where the payload of a signed token lies.
pub(super) struct Parts {
    pub(super) payload_start: usize,
    /// End of the payload: the binding check and the tag follow.
    pub(super) body_end: usize,
}

impl Parts {
    /// The payload of the signed token `raw`, whose header has been parsed.
    pub(super) fn parse(raw: &[u8]) -> Result<Self, StateError> {
        let rest = raw.get(HEADER_LEN..).ok_or(StateError::Malformed)?;
        let (payload_len, varint_len) = get_varint(rest).ok_or(StateError::Malformed)?;
        let payload_start = HEADER_LEN + varint_len;
        let body_end = usize::try_from(payload_len)
            .ok()
            .and_then(|len| payload_start.checked_add(len))
            .ok_or(StateError::Malformed)?;
        if body_end.checked_add(CHECK_LEN + TAG_LEN) != Some(raw.len()) {
            return Err(StateError::Malformed);
        }
        Ok(Self {
            payload_start,
            body_end,
        })
    }
}
