//! The payload of a flow's request state: its continuation, written as CBOR (RFC 8949).
//!
//! CBOR because every value a carried type can hold must come back as it was: non-finite
//! floats (JSON writes them as `null`), 128-bit integers, maps whose keys are not strings,
//! and, being self-describing, the serde shapes that need the data to say what it is
//! (`#[serde(skip_serializing_if)]`, `untagged`, `flatten`, `serde_json::Value`). Structs
//! keep their field names, as in JSON, but without JSON's quotes, separators and decimal
//! digits. The continuation itself is positional: the point's number, then one item per
//! carried local (see `continuation`).
//!
//! A value that cannot be written fails the stop, naming the local. In debug builds a field
//! is also read back as soon as it is written ([`write_item`]): whatever a carried type writes but
//! cannot read (a `Deserialize` that disagrees with its `Serialize`) then fails the stop too,
//! naming the local, instead of the next round being refused as an invalid state. Release
//! builds skip that second pass (about a tenth of a round's server cost); such a type shows
//! up in development, where the handler's tests run.
//!
//! Only authenticated states are read, and a state is at most the server's state size cap.
//! Before reading, no header may claim more items or bytes than the state has left (serde
//! would preallocate up to 1 MiB for what a collection claims), and arrays and maps may nest
//! at most 128 deep; text and byte strings are allocated as their bytes arrive. Fields are
//! read through one 4 KiB scratch buffer per thread, ciborium's own size, zeroed once rather
//! than for every field.

use std::cell::RefCell;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

/// The payload encoding's version, mixed into the flow shape written in the envelope: a
/// state minted by a build that wrote its payload another way (JSON, then CBOR of a
/// continuation enum, before this one) is then a state of another flow shape, never decoded
/// as this one's.
pub(crate) const FORMAT: u32 = 0x4342_5232; // "CBR2"

/// How deeply a payload's arrays and maps may nest: deeper input is refused before it can
/// exhaust the stack. (The reader itself stops at 256 levels, tags and enums counted.)
const MAX_DEPTH: usize = 128;

/// The reader's scratch buffer: text of up to this many bytes is read through it in one
/// piece, longer text in pieces. ciborium's own size, so that what reads stays the same.
const SCRATCH_LEN: usize = 4096;

thread_local! {
    /// The scratch buffer of the reads on this thread.
    static SCRATCH: RefCell<[u8; SCRATCH_LEN]> = const { RefCell::new([0; SCRATCH_LEN]) };
}

/// Why a carried value could not be written, or read back as written.
#[derive(Debug)]
pub(crate) struct WriteError {
    /// What failed: "is not written", "is written but does not read back".
    what: &'static str,
    /// Where inside the value, as serde's path (`.items[3].price`), or nothing at its top.
    inside: String,
    /// The error, in serde's or the format's words.
    detail: String,
}

impl WriteError {
    /// The error, said of the carried local `local`.
    pub(crate) fn of(&self, local: &str) -> String {
        let Self {
            what,
            inside,
            detail,
        } = self;
        if inside.is_empty() {
            format!("the carried local `{local}` {what}: {detail}")
        } else {
            format!("the carried local `{local}` {what} (at `{local}{inside}`): {detail}")
        }
    }
}

/// Appends `value` to `out` as one CBOR item; in debug builds, reads it back too.
pub(crate) fn write_item<T: Serialize + DeserializeOwned>(
    value: &T,
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    let start = out.len();
    let tracked = Tracked {
        value,
        path: RefCell::new(None),
    };
    if let Err(error) = ciborium::into_writer(&tracked, &mut *out) {
        out.truncate(start);
        let path = tracked.path.into_inner();
        return Err(WriteError {
            what: "is not written",
            inside: inside(path.as_ref()),
            detail: write_error(error),
        });
    }
    if !cfg!(debug_assertions) {
        return Ok(());
    }
    READ_FAILED_AT.with(|at| at.borrow_mut().take());
    let mut rest = &out[start..];
    // As the next round reads it: its nesting checked, then read.
    if let Err(detail) = claims_fit(rest) {
        return Err(WriteError {
            what: "is written but does not read back",
            inside: String::new(),
            detail,
        });
    }
    let read: Result<TrackedOwned<T>, _> = read(&mut rest);
    match read {
        Ok(_) if rest.is_empty() => Ok(()),
        Ok(_) => Err(WriteError {
            what: "is written but does not read back",
            inside: String::new(),
            detail: format!("{} bytes are left over", rest.len()),
        }),
        Err(error) => {
            let path = READ_FAILED_AT.with(|at| at.borrow_mut().take());
            Err(WriteError {
                what: "is written but does not read back",
                inside: inside(path.as_ref()),
                detail: read_error(error),
            })
        }
    }
}

/// Reads one CBOR item from the front of `rest`. A payload [`open`] accepts nests its arrays
/// and maps at most [`MAX_DEPTH`] deep; the reader stops any item at 256 levels.
pub(crate) fn read_item<T: DeserializeOwned>(rest: &mut &[u8]) -> Result<T, String> {
    read(rest).map_err(read_error)
}

/// Reads one CBOR item from the front of `rest` through this thread's scratch buffer.
fn read<T: DeserializeOwned>(rest: &mut &[u8]) -> Result<T, ciborium::de::Error<std::io::Error>> {
    SCRATCH.with(|scratch| match scratch.try_borrow_mut() {
        Ok(mut scratch) => ciborium::de::from_reader_with_buffer(rest, &mut scratch[..]),
        // A read within a read (a carried type whose `Deserialize` reads a state itself).
        Err(_) => ciborium::de::from_reader_with_buffer(rest, &mut [0; SCRATCH_LEN]),
    })
}

/// Writes `value`, one of `literals`, as its index among them.
pub(crate) fn write_literal(
    value: &&'static str,
    literals: &[&'static str],
    out: &mut Vec<u8>,
) -> Result<(), WriteError> {
    let Some(index) = literals.iter().position(|literal| literal == value) else {
        return Err(WriteError {
            what: "is not written",
            inside: String::new(),
            detail: format!(
                "{value:?} is none of the string literals the handler assigns it ({literals:?})"
            ),
        });
    };
    write_item(&index, out)
}

/// Reads a literal [`write_literal`] wrote.
pub(crate) fn read_literal(
    rest: &mut &[u8],
    literals: &[&'static str],
) -> Result<&'static str, String> {
    let index: usize = read_item(rest)?;
    literals
        .get(index)
        .copied()
        .ok_or_else(|| format!("literal {index} of {}", literals.len()))
}

/// Opens a payload written as a point's number then its fields, for a flow whose point `n`
/// carries `fields[n]` fields: no header claiming more than is left, the point one of the
/// flow's. Returns the point and a cursor over its fields, which are parsed once, as they
/// are read ([`Fields::next`]), and must be exactly that many.
pub(crate) fn open(payload: &[u8], fields: &[usize]) -> Result<(u32, Fields), String> {
    claims_fit(payload)?;
    let mut rest = payload;
    let point = read_point(&mut rest)?;
    let Some(&count) = usize::try_from(point).ok().and_then(|n| fields.get(n)) else {
        return Err(format!("point {point} is none of the flow's"));
    };
    let fields = Fields {
        at: payload.len() - rest.len(),
        left: count,
    };
    fields.check_end(payload)?;
    Ok((point, fields))
}

/// Reads a payload's point number. A plain unsigned integer is read from its header, without
/// serde. Anything else is left to [`read_item`], which reads it or says why it cannot.
fn read_point(rest: &mut &[u8]) -> Result<u32, String> {
    let mut decoder = ciborium_ll::Decoder::from(*rest);
    if let Ok(ciborium_ll::Header::Positive(point)) = decoder.pull()
        && let Ok(point) = u32::try_from(point)
    {
        *rest = &rest[decoder.offset()..];
        return Ok(point);
    }
    read_item(rest)
}

/// Where the next field of an opened payload starts, and how many are left to read.
#[derive(Debug, Default)]
pub(crate) struct Fields {
    at: usize,
    left: usize,
}

impl Fields {
    /// Reads the next field of `payload` with `read`.
    pub(crate) fn next<T>(
        &mut self,
        payload: &[u8],
        read: impl FnOnce(&mut &[u8]) -> Result<T, String>,
    ) -> Result<T, String> {
        let mut rest = payload.get(self.at..).unwrap_or_default();
        if self.left == 0 {
            return Err("a field is read past the point's last".to_owned());
        }
        if rest.is_empty() {
            return Err("the state ends before its last field".to_owned());
        }
        let value = read(&mut rest)?;
        self.at = payload.len() - rest.len();
        self.left -= 1;
        self.check_end(payload)?;
        Ok(value)
    }

    /// Refuses bytes after the last field, once it is read.
    fn check_end(&self, payload: &[u8]) -> Result<(), String> {
        match payload.len().saturating_sub(self.at) {
            extra if self.left == 0 && extra > 0 => Err(format!("{extra} bytes after the state")),
            _ => Ok(()),
        }
    }
}

/// Refuses a payload whose headers claim more items or bytes than it has left, or whose
/// arrays and maps nest more than [`MAX_DEPTH`] deep. Serde preallocates up to 1 MiB for a
/// collection's claimed length, which a few bytes could otherwise claim; every item takes at
/// least one byte, every map entry two. Tags belong to the item after them and do not nest.
fn claims_fit(bytes: &[u8]) -> Result<(), String> {
    use ciborium_ll::{Decoder, Header};

    /// The items left of an array or map of indefinite length: all of them until its break.
    const UNTIL_BREAK: u32 = u32::MAX;
    // The items each open array or map has left, innermost last.
    let mut open = [0_u32; MAX_DEPTH];
    let mut depth = 0_usize;
    // Inside a text or byte string of indefinite length: its chunks come, until a break.
    let mut chunked = false;
    let mut at = 0;
    loop {
        // The end: known without a decoder's error made and dropped.
        if at >= bytes.len() {
            return Ok(());
        }
        let mut decoder = Decoder::from(&bytes[at..]);
        // Malformed input: left to the reader, which says where it breaks.
        let Ok(header) = decoder.pull() else {
            return Ok(());
        };
        at += decoder.offset();
        let left = bytes.len() - at;
        let claimed = match header {
            Header::Array(Some(items)) => items,
            Header::Map(Some(entries)) => entries.saturating_mul(2),
            Header::Bytes(Some(len)) | Header::Text(Some(len)) => len,
            _ => 0,
        };
        if claimed > left {
            return Err(format!(
                "a header claims {claimed} items or bytes with {left} bytes left"
            ));
        }
        match header {
            Header::Bytes(Some(_)) | Header::Text(Some(_)) if chunked => {
                at += claimed;
                continue;
            }
            Header::Break if chunked => chunked = false,
            _ if chunked => return Ok(()),
            Header::Tag(_) => continue,
            Header::Break => match depth.checked_sub(1) {
                Some(inner) if open[inner] == UNTIL_BREAK => depth = inner,
                _ => return Ok(()),
            },
            header => {
                // One more item of the innermost array or map.
                if let Some(inner) = depth.checked_sub(1)
                    && open[inner] != UNTIL_BREAK
                {
                    open[inner] -= 1;
                }
                match header {
                    Header::Array(len) | Header::Map(len) => {
                        let Some(slot) = open.get_mut(depth) else {
                            return Err(format!("nested more than {MAX_DEPTH} deep"));
                        };
                        *slot = match len {
                            // At most the bytes left, which a state of 4 GiB would take.
                            Some(_) => u32::try_from(claimed)
                                .ok()
                                .filter(|&items| items != UNTIL_BREAK)
                                .ok_or_else(|| format!("a header claims {claimed} items"))?,
                            None => UNTIL_BREAK,
                        };
                        depth += 1;
                    }
                    Header::Bytes(None) | Header::Text(None) => chunked = true,
                    _ => at += claimed,
                }
            }
        }
        // The arrays and maps whose last item has ended are closed.
        while let Some(inner) = depth.checked_sub(1)
            && open[inner] == 0
        {
            depth = inner;
        }
    }
}

/// Where inside a value a failure lies, as serde's path (`.items[3].price`), or nothing at
/// its top.
fn inside(path: Option<&serde_path_to_error::Path>) -> String {
    let mut inside = String::new();
    for segment in path
        .map(serde_path_to_error::Path::iter)
        .into_iter()
        .flatten()
    {
        if !matches!(segment, serde_path_to_error::Segment::Seq { .. }) {
            inside.push('.');
        }
        inside.push_str(&segment.to_string());
    }
    inside
}

/// What went wrong writing, in serde's words.
fn write_error(error: ciborium::ser::Error<std::io::Error>) -> String {
    match error {
        ciborium::ser::Error::Value(message) => message,
        ciborium::ser::Error::Io(error) => error.to_string(),
    }
}

/// What went wrong reading, in serde's words or the format's.
fn read_error(error: ciborium::de::Error<std::io::Error>) -> String {
    match error {
        ciborium::de::Error::Semantic(_, message) => message,
        ciborium::de::Error::Syntax(offset) => format!("malformed CBOR at byte {offset}"),
        ciborium::de::Error::RecursionLimitExceeded => "nested too deeply".to_owned(),
        ciborium::de::Error::Io(_) => "the input ends early".to_owned(),
    }
}

/// A value serialised through serde's path tracker, remembering where it failed.
struct Tracked<'a, T> {
    value: &'a T,
    path: RefCell<Option<serde_path_to_error::Path>>,
}

impl<T: Serialize> Serialize for Tracked<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_path_to_error::serialize(self.value, serializer).map_err(|error| {
            *self.path.borrow_mut() = Some(error.path().clone());
            error.into_inner()
        })
    }
}

thread_local! {
    /// Where the last read through [`TrackedOwned`] on this thread failed: a deserializer's
    /// error cannot carry it out, and reading is synchronous.
    static READ_FAILED_AT: RefCell<Option<serde_path_to_error::Path>> =
        const { RefCell::new(None) };
}

/// A value deserialised through serde's path tracker, leaving where it failed in
/// `READ_FAILED_AT`.
struct TrackedOwned<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for TrackedOwned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        serde_path_to_error::deserialize(deserializer)
            .map(TrackedOwned)
            .map_err(|error| {
                READ_FAILED_AT.with(|at| *at.borrow_mut() = Some(error.path().clone()));
                error.into_inner()
            })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde::de::DeserializeOwned;

    use super::{open, read_item, read_literal, write_item, write_literal};

    #[test]
    fn a_point_is_read_from_its_header_or_refused_as_the_reader_refuses_it() {
        fn written<T: serde::Serialize + DeserializeOwned>(value: &T) -> Vec<u8> {
            let mut payload = Vec::new();
            write_item(value, &mut payload).unwrap();
            payload
        }
        let (point, _) = open(&written(&1_u32), &[0, 0]).unwrap();
        assert_eq!(point, 1);
        for payload in [
            written(&u64::MAX),
            written(&-1_i64),
            written(&"1".to_owned()),
            vec![0xff],
        ] {
            let refused = read_item::<u32>(&mut payload.as_slice()).unwrap_err();
            assert_eq!(open(&payload, &[0]).unwrap_err(), refused);
        }
    }

    /// `value` written as the only field of point 0, then opened and read back whole.
    fn round_trip<T: serde::Serialize + DeserializeOwned>(value: &T) -> Result<T, String> {
        let mut bytes = Vec::new();
        write_item(&0_u32, &mut bytes).map_err(|error| error.of("point"))?;
        write_item(value, &mut bytes).map_err(|error| error.of("value"))?;
        let (point, mut fields) = open(&bytes, &[1])?;
        assert_eq!(point, 0);
        fields.next(&bytes, read_item)
    }

    /// Opens `bytes` for a flow whose points carry `counts` fields, and reads every field of
    /// its point.
    fn read_all(bytes: &[u8], counts: &[usize]) -> Result<(), String> {
        let (point, mut fields) = open(bytes, counts)?;
        let count = counts[usize::try_from(point).expect("a small point")];
        for _ in 0..count {
            fields.next(bytes, read_item::<serde::de::IgnoredAny>)?;
        }
        Ok(())
    }

    #[test]
    fn strings_longer_than_the_readers_scratch_buffer_come_back() {
        // The reader copies text through a 4 KiB buffer; longer text is read in pieces.
        let long = ("é".repeat(3000), "x".repeat(70_000));
        assert_eq!(round_trip(&long), Ok(long));
    }

    /// A state of point 0 whose one field is `levels` arrays, each holding the next, around 0:
    /// one-element arrays (`0x81`), or arrays of indefinite length (`0x9f`, ended by `0xff`).
    fn nested(levels: usize, array: u8) -> Vec<u8> {
        let mut state = vec![0x00];
        state.extend(std::iter::repeat_n(array, levels));
        state.push(0x00);
        if array == 0x9f {
            state.extend(std::iter::repeat_n(0xff, levels));
        }
        state
    }

    #[test]
    fn arrays_and_maps_nesting_past_128_are_refused_when_opened() {
        for array in [0x81, 0x9f] {
            read_all(&nested(128, array), &[1]).expect("128 deep is read");
            let error = open(&nested(129, array), &[1]).expect_err("too deep");
            assert_eq!(error, "nested more than 128 deep");
        }
        // A map nests as an array does: {0: {0: ... 0}}.
        let mut maps = vec![0x00];
        maps.extend([0xa1, 0x00].repeat(129));
        maps.push(0x00);
        assert_eq!(open(&maps, &[1]).unwrap_err(), "nested more than 128 deep");
        // Arrays side by side do not nest: 200 empty ones in one array.
        let mut side_by_side = vec![0x00, 0x98, 200];
        side_by_side.extend([0x80; 200]);
        read_all(&side_by_side, &[1]).expect("one level deep");
    }

    #[test]
    fn tags_and_chunked_strings_are_items_of_the_array_they_stand_in() {
        // An array of two: a tagged 0, or a text of indefinite length in two chunks ("a" "b"),
        // then 128 levels more. Counted as more than one item, either would close the outer
        // array early and leave the levels after it a level too shallow.
        for first in [&[0xc1, 0x00][..], &[0x7f, 0x61, b'a', 0x61, b'b', 0xff]] {
            let mut state = vec![0x00, 0x82];
            state.extend_from_slice(first);
            state.extend_from_slice(&nested(128, 0x81)[1..]);
            assert_eq!(open(&state, &[1]).unwrap_err(), "nested more than 128 deep");
            let mut shallower = vec![0x00, 0x82];
            shallower.extend_from_slice(first);
            shallower.extend_from_slice(&nested(127, 0x81)[1..]);
            read_all(&shallower, &[1]).expect("128 deep is read");
        }
    }

    #[test]
    fn the_reader_stops_at_256_levels_of_anything() {
        // Tags do not count towards the 128 levels of arrays and maps, but the reader stops
        // them: 300 tags around 0.
        let mut bytes = vec![0xc1; 300];
        bytes.push(0x00);
        let error = read_item::<serde::de::IgnoredAny>(&mut &bytes[..]).expect_err("too deep");
        assert_eq!(error, "nested too deeply");
    }

    #[test]
    #[cfg(debug_assertions)] // release builds skip the read-back
    fn a_value_nested_too_deeply_fails_when_written() {
        let mut value = serde_json::json!(0);
        for _ in 0..200 {
            value = serde_json::json!([value]);
        }
        let mut bytes = Vec::new();
        let error = write_item(&value, &mut bytes).expect_err("too deep to read back");
        assert!(error.of("deep").contains("does not read back"), "{error:?}");
    }

    #[test]
    fn a_collection_claiming_more_items_than_bytes_left_is_refused_before_reading() {
        // The fuzzer's find: an array claiming 2^64-ish items in a 34-byte state had serde
        // preallocate 1 MiB.
        let mut bytes = vec![0x00, 0x9b];
        bytes.extend_from_slice(&u64::MAX.to_be_bytes());
        bytes.push(0x00);
        let error = open(&bytes, &[1]).expect_err("claims too much");
        assert!(error.contains("claims"), "{error}");
        // A map claiming 3 entries (6 items) with 4 bytes left; a text claiming 9 bytes with 2.
        assert!(read_all(&[0x00, 0xa3, 1, 2, 3, 4], &[1]).is_err());
        assert!(read_all(&[0x00, 0x69, b'a', b'b'], &[1]).is_err());
        // Lengths that fit are read as before, nested ones and byte strings included.
        let value = (
            vec![vec![1_u8, 2], vec![]],
            "text".to_owned(),
            BTreeMap::from([(1_u8, 2_u8)]),
        );
        assert_eq!(round_trip(&value), Ok(value));
    }

    #[test]
    fn a_state_holds_exactly_its_points_fields() {
        let map = BTreeMap::from([(1_u8, -1.5_f32), (2, f32::INFINITY)]);
        let mut bytes = Vec::new();
        write_item(&1_u32, &mut bytes).expect("written");
        write_item(&map, &mut bytes).expect("written");
        write_item(&u128::MAX, &mut bytes).expect("written");
        // Point 1 carries two fields: the state opens, and each field reads back as written.
        let (point, mut fields) = open(&bytes, &[0, 2]).expect("opens");
        assert_eq!(point, 1);
        assert_eq!(fields.next(&bytes, read_item::<BTreeMap<u8, f32>>), Ok(map));
        assert_eq!(fields.next(&bytes, read_item::<u128>), Ok(u128::MAX));
        assert!(
            fields.next(&bytes, read_item::<u8>).is_err(),
            "no third field"
        );
        // One byte more, one byte less, a field more or less, or a point the flow lacks.
        let mut longer = bytes.clone();
        longer.push(0);
        let error = read_all(&longer, &[0, 2]).expect_err("a byte more");
        assert_eq!(error, "1 bytes after the state");
        let error = read_all(&bytes[..bytes.len() - 1], &[0, 2]).expect_err("a byte less");
        assert!(!error.is_empty());
        let error = read_all(&bytes, &[0, 3]).expect_err("a field more");
        assert_eq!(error, "the state ends before its last field");
        let error = read_all(&bytes, &[0, 1]).expect_err("a field less");
        assert!(error.ends_with("bytes after the state"), "{error}");
        let error = open(&bytes, &[0, 0]).expect_err("no field at all");
        assert!(error.ends_with("bytes after the state"), "{error}");
        let error = open(&bytes, &[2]).expect_err("no such point");
        assert_eq!(error, "point 1 is none of the flow's");
    }

    #[test]
    fn a_literal_travels_as_its_index_and_only_a_listed_one() {
        const LITERALS: &[&str] = &["large", "small"];
        let mut bytes = Vec::new();
        write_literal(&"small", LITERALS, &mut bytes).expect("a listed literal");
        assert_eq!(bytes, [0x01], "the index, not the text");
        assert_eq!(read_literal(&mut &bytes[..], LITERALS), Ok("small"));
        let error = write_literal(&"huge", LITERALS, &mut Vec::new()).expect_err("unlisted");
        assert!(error.of("kind").contains("`kind`"), "{}", error.of("kind"));
        let error = read_literal(&mut &[0x02][..], LITERALS).expect_err("past the list");
        assert_eq!(error, "literal 2 of 2");
    }
}
