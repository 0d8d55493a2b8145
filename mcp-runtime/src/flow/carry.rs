//! Serialisation of carried locals, with an error that speaks of flows.

use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize, Serializer};

/// A type that can travel in a flow's request state: a local used after a question.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across a question",
    label = "this local is used after a question, so it travels in the request state",
    note = "a carried local must implement `serde::Serialize` and `serde::de::DeserializeOwned`; \
            derive them, or convert the value to a type that does before the question"
)]
pub trait Carry: Serialize + DeserializeOwned {}

impl<T: Serialize + DeserializeOwned> Carry for T {}

/// `#[serde(serialize_with)]` for a carried local.
pub fn serialize<T: Carry, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    value.serialize(serializer)
}

/// `#[serde(deserialize_with)]` for a carried local.
pub fn deserialize<'de, T: Carry, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
    T::deserialize(deserializer)
}

/// A collection a `for` loop that asks questions can iterate over.
///
/// Such a loop iterates over a copy, so the flow can resume it on a later round by copying the
/// collection again and skipping the items it already took; the position travels in the
/// request state.
#[diagnostic::on_unimplemented(
    message = "a `for` loop that asks questions cannot iterate over `{Self}`",
    label = "the flow resumes this loop from a fresh copy of this collection",
    note = "iterate over an owned collection or a range that implements `Clone` and \
            `IntoIterator`, such as `Vec<T>` or `0..n`"
)]
pub trait Rewind {
    /// The iterator positioned after `taken` items.
    type Iter: Iterator;
    /// A fresh iterator over a copy, with the first `taken` items skipped.
    fn rewind(&self, taken: usize) -> Self::Iter;
}

impl<T: Clone + IntoIterator> Rewind for T {
    type Iter = std::iter::Skip<T::IntoIter>;
    fn rewind(&self, taken: usize) -> Self::Iter {
        self.clone().into_iter().skip(taken)
    }
}
