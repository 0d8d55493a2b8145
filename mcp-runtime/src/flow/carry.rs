//! Serialisation of carried locals, with an error that speaks of flows.

use serde::de::DeserializeOwned;
use serde::{Deserializer, Serialize, Serializer};

/// A type that can be written into a flow's request state: a local used after a question.
///
/// Writing and reading are two traits so that a type lacking both gets one error for each,
/// not one for each half of each.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across a question",
    label = "this local is used after a question, so it travels in the request state",
    note = "a carried local must implement `serde::Serialize` and `serde::Deserialize`; derive \
            them, or convert the value to a type that does before the question"
)]
pub trait CarryOut: Serialize {}

impl<T: Serialize> CarryOut for T {}

/// A type that can be read back from a flow's request state.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be carried across a question",
    label = "this local is used after a question, so it travels in the request state",
    note = "a carried local must implement `serde::Serialize` and `serde::Deserialize`; derive \
            them, or convert the value to a type that does before the question"
)]
pub trait CarryIn: DeserializeOwned {}

impl<T: DeserializeOwned> CarryIn for T {}

/// `#[serde(serialize_with)]` for a carried local.
pub fn serialize<T: CarryOut, S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
    value.serialize(serializer)
}

/// `#[serde(deserialize_with)]` for a carried local.
pub fn deserialize<'de, T: CarryIn, D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
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
