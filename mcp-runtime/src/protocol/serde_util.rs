//! Small serde helpers shared by the wire types.

use serde::{Deserialize, Deserializer};

/// For `Option` fields whose member, when present, must hold a real value: a missing member
/// is `None` (with `#[serde(default)]`), but an explicit `null` is an error instead of `None`.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}
