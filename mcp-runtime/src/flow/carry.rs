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
