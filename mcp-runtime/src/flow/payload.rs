//! The payload of a flow's request state: its continuation, written as CBOR (RFC 8949).
//!
//! CBOR because every value a carried type can hold must come back as it was: non-finite
//! floats (JSON writes them as `null`), 128-bit integers, maps whose keys are not strings,
//! and, being self-describing, the serde shapes that need the data to say what it is
//! (`#[serde(skip_serializing_if)]`, `untagged`, `flatten`, `serde_json::Value`). Structs
//! keep their field names, as in JSON, but without JSON's quotes, separators and decimal
//! digits; the continuation's own variants are positional.
//!
//! A value that cannot be written fails the stop, naming the local. In debug builds a state
//! is also read back as soon as it is written ([`encode`]): whatever a carried type writes but
//! cannot read (a `Deserialize` that disagrees with its `Serialize`) then fails the stop too,
//! naming the local, instead of the next round being refused as an invalid state. Release
//! builds skip that second pass (about a tenth of a round's server cost); such a type shows
//! up in development, where the handler's tests run.
//!
//! Only authenticated states are read, and a state is at most the server's state size cap.
//! Before reading, no header may claim more items or bytes than the state has left (serde
//! would preallocate up to 1 MiB for what a collection claims); text and byte strings are
//! allocated as their bytes arrive, and nesting stops at 128 levels.

use std::cell::RefCell;
use std::fmt;

use serde::de::{DeserializeOwned, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

/// The payload encoding's version, mixed into the flow shape written in the envelope: a
/// state minted by a build that wrote its payload another way (JSON, before this one) is
/// then a state of another flow shape, never decoded as this one's.
pub(crate) const FORMAT: u32 = 0x4342_4f52; // "CBOR"

/// How deeply a payload may nest: deeper input is refused before it can exhaust the stack.
const MAX_DEPTH: usize = 128;

/// Why a continuation could not be written (or read back) at a question point.
#[derive(Debug)]
pub(crate) struct EncodeError {
    /// The carried local at fault, when the failure lies inside one.
    pub(crate) local: Option<&'static str>,
    /// Where inside the value, as serde's path (`items[3].price`), and what went wrong.
    pub(crate) detail: String,
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.local {
            Some(local) => write!(f, "the carried local `{local}` {}", self.detail),
            None => write!(f, "the state {}", self.detail),
        }
    }
}

/// Writes `state`, whose carried fields are the locals `carried` in order, and in debug
/// builds reads it back.
pub(crate) fn encode<S: Serialize + DeserializeOwned>(
    state: &S,
    carried: &[&'static str],
) -> Result<Vec<u8>, EncodeError> {
    let tracked = Tracked {
        value: state,
        path: RefCell::new(None),
    };
    let mut bytes = Vec::new();
    if let Err(error) = ciborium::into_writer(&tracked, &mut bytes) {
        let path = tracked.path.into_inner();
        return Err(fault(
            carried,
            path.as_ref(),
            "is not written",
            write_error(error),
        ));
    }
    if !cfg!(debug_assertions) {
        return Ok(bytes);
    }
    let back = "is written but does not read back";
    READ_FAILED_AT.with(|at| at.borrow_mut().take());
    let mut rest = &bytes[..];
    let read: Result<TrackedOwned<S>, _> =
        ciborium::de::from_reader_with_recursion_limit(&mut rest, MAX_DEPTH);
    match read {
        Ok(_) if rest.is_empty() => Ok(bytes),
        Ok(_) => Err(fault(
            carried,
            None,
            back,
            format_args!("{} bytes are left over", rest.len()),
        )),
        Err(error) => {
            let path = READ_FAILED_AT.with(|at| at.borrow_mut().take());
            Err(fault(carried, path.as_ref(), back, read_error(error)))
        }
    }
}

/// Reads a continuation written by [`encode`]: the whole input, nested at most 128 deep.
pub(crate) fn decode<S: DeserializeOwned>(bytes: &[u8]) -> Result<S, String> {
    claims_fit(bytes)?;
    let mut rest = bytes;
    let state: S =
        ciborium::de::from_reader_with_recursion_limit(&mut rest, MAX_DEPTH).map_err(read_error)?;
    if rest.is_empty() {
        Ok(state)
    } else {
        Err(format!("{} bytes after the state", rest.len()))
    }
}

/// Refuses a payload whose headers claim more items or bytes than it has left: serde
/// preallocates up to 1 MiB for a collection's claimed length, which a few bytes could
/// otherwise claim. Every item takes at least one byte, every map entry two.
fn claims_fit(bytes: &[u8]) -> Result<(), String> {
    use ciborium_io::Read as _;
    use ciborium_ll::{Decoder, Header};

    let mut decoder = Decoder::from(bytes);
    let mut scratch = [0_u8; 512];
    // Malformed input is left to the reader, which says where it breaks.
    while let Ok(header) = decoder.pull() {
        let left = bytes.len() - decoder.offset();
        let (claimed, payload) = match header {
            Header::Array(Some(items)) => (items, false),
            Header::Map(Some(entries)) => (entries.saturating_mul(2), false),
            Header::Bytes(Some(len)) | Header::Text(Some(len)) => (len, true),
            _ => continue,
        };
        if claimed > left {
            return Err(format!(
                "a header claims {claimed} items or bytes with {left} bytes left"
            ));
        }
        let mut skip = if payload { claimed } else { 0 };
        while skip > 0 {
            let step = skip.min(scratch.len());
            if decoder.read_exact(&mut scratch[..step]).is_err() {
                return Ok(());
            }
            skip -= step;
        }
    }
    Ok(())
}

/// The error for a failure at `path`: its first position in a sequence is the variant's
/// field, so the local; the segments after it say where inside the local's value.
fn fault(
    carried: &[&'static str],
    path: Option<&serde_path_to_error::Path>,
    what: &str,
    error: impl fmt::Display,
) -> EncodeError {
    let segments: Vec<&serde_path_to_error::Segment> =
        path.map(|path| path.iter().collect()).unwrap_or_default();
    let field = segments
        .iter()
        .position(|segment| matches!(segment, serde_path_to_error::Segment::Seq { .. }));
    let local = field.and_then(|at| match segments[at] {
        serde_path_to_error::Segment::Seq { index } => carried.get(*index).copied(),
        _ => None,
    });
    let mut inside = String::new();
    for segment in field.map_or(&[][..], |at| &segments[at + 1..]) {
        if !matches!(segment, serde_path_to_error::Segment::Seq { .. }) {
            inside.push('.');
        }
        inside.push_str(&segment.to_string());
    }
    let at = if local.is_some() && !inside.is_empty() {
        format!(" (at `{}{inside}`)", local.unwrap_or_default())
    } else {
        String::new()
    };
    EncodeError {
        local,
        detail: format!("{what}{at}: {error}"),
    }
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
        ciborium::de::Error::RecursionLimitExceeded => {
            format!("nested more than {MAX_DEPTH} deep")
        }
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

    use super::{decode, encode};

    #[test]
    fn strings_longer_than_the_readers_scratch_buffer_come_back() {
        // The reader copies text through a 4 KiB buffer; longer text is read in pieces.
        let long = ("é".repeat(3000), "x".repeat(70_000));
        let bytes = encode(&long, &["long"]).expect("long text is written");
        assert_eq!(decode::<(String, String)>(&bytes), Ok(long));
    }

    #[test]
    fn input_nested_too_deeply_is_refused_when_read() {
        // 200 one-element arrays in a row, then 0: past the depth limit.
        let mut bytes = vec![0x81; 200];
        bytes.push(0x00);
        let error = decode::<serde_json::Value>(&bytes).expect_err("too deep");
        assert!(error.contains("nested more than"), "{error}");
    }

    #[test]
    #[cfg(debug_assertions)] // release builds skip the read-back
    fn a_value_nested_too_deeply_fails_when_written() {
        let mut value = serde_json::json!(0);
        for _ in 0..200 {
            value = serde_json::json!([value]);
        }
        let error = encode(&(value,), &["deep"]).expect_err("too deep to read back");
        assert!(error.to_string().contains("does not read back"), "{error}");
    }

    #[test]
    fn a_collection_claiming_more_items_than_bytes_left_is_refused_before_reading() {
        // The fuzzer's find: an array claiming 2^64-ish items in a 34-byte state had serde
        // preallocate 1 MiB.
        let mut bytes = vec![0x9b];
        bytes.extend_from_slice(&u64::MAX.to_be_bytes());
        bytes.push(0x00);
        let error = decode::<Vec<u8>>(&bytes).expect_err("claims too much");
        assert!(error.contains("claims"), "{error}");
        // A map claiming 3 entries (6 items) with 4 bytes left; a text claiming 9 bytes with 2.
        assert!(decode::<BTreeMap<u8, u8>>(&[0xa3, 1, 2, 3, 4]).is_err());
        assert!(decode::<String>(&[0x69, b'a', b'b']).is_err());
        // Lengths that fit are read as before, nested ones and byte strings included.
        let value = (
            vec![vec![1_u8, 2], vec![]],
            "text".to_owned(),
            BTreeMap::from([(1_u8, 2_u8)]),
        );
        let bytes = encode(&value, &["v"]).expect("written");
        assert_eq!(
            decode::<(Vec<Vec<u8>>, String, BTreeMap<u8, u8>)>(&bytes),
            Ok(value)
        );
    }

    #[test]
    fn trailing_bytes_and_truncation_are_refused() {
        let map = BTreeMap::from([(1_u8, -1.5_f32), (2, f32::INFINITY)]);
        let bytes = encode(&map, &[]).expect("written");
        assert_eq!(decode::<BTreeMap<u8, f32>>(&bytes), Ok(map));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(decode::<BTreeMap<u8, f32>>(&longer).is_err());
        assert!(decode::<BTreeMap<u8, f32>>(&bytes[..bytes.len() - 1]).is_err());
    }
}
