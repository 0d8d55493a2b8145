//! Unsigned LEB128 varints, as the state's envelope and its round prefix write lengths and
//! numbers: the shortest form only, so that one value has one encoding.

/// The longest LEB128 encoding of a `u64`.
pub(super) const MAX_VARINT_LEN: usize = 10;

/// Appends `value` as an unsigned LEB128 varint.
pub(crate) fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads a canonical (shortest-form) unsigned LEB128 varint from the start of `bytes`;
/// returns the value and its length in bytes.
pub(crate) fn get_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value: u64 = 0;
    for (index, &byte) in bytes.iter().enumerate().take(MAX_VARINT_LEN) {
        let low = u64::from(byte & 0x7f);
        let shift = 7 * index as u32;
        let shifted = low.checked_shl(shift).filter(|s| s >> shift == low)?;
        value |= shifted;
        if byte & 0x80 == 0 {
            // A zero final byte after the first is an overlong encoding.
            if byte == 0 && index > 0 {
                return None;
            }
            return Some((value, index + 1));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_round_trip_and_refuse_overlong_forms() {
        for value in [0, 1, 127, 128, 300, 16_384, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, value);
            out.push(0xff);
            assert_eq!(get_varint(&out), Some((value, out.len() - 1)));
        }
        assert_eq!(get_varint(&[0x80, 0x00]), None);
        assert_eq!(get_varint(&[0x80]), None);
        assert_eq!(get_varint(&[]), None);
        // Eleven bytes, and a tenth byte carrying bits beyond 64.
        assert_eq!(get_varint(&[0xff; 11]), None);
        assert_eq!(
            get_varint(&[0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02]),
            None
        );
    }
}
