//! The slot of one carried local: how a value of the type the compiler inferred for it is
//! written into a state and read back (see `continuation`, whose reader and writer use it,
//! and `carry`, whose [`Carry::slot`](super::carry::Carry::slot) declares it).

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::payload;

/// How a slot writes a local's value, given the slot's literals.
type WriteSlot<T> =
    fn(&T, &'static [&'static str], &mut Vec<u8>) -> Result<(), payload::WriteError>;

/// How a slot reads a local's value back, given the slot's literals.
type ReadSlot<T> = fn(&mut &[u8], &'static [&'static str]) -> Result<T, String>;

/// The slot of one carried local: the type the compiler inferred for it, and how a value of
/// that type is written and read.
///
/// Declared with [`Carry::slot`](super::carry::Carry::slot), whose `Self` is the one place a carried local's type is
/// checked, or with [`Slot::literals`] for a local that only ever holds string literals.
#[doc(hidden)]
pub struct Slot<T> {
    pub(super) write: WriteSlot<T>,
    pub(super) read: ReadSlot<T>,
    name: fn() -> &'static str,
    /// The string literals a local of a literal slot may hold.
    pub(super) literals: &'static [&'static str],
}

impl<T> Slot<T> {
    /// The slot of a local of type `T`: what [`Carry::slot`](super::carry::Carry::slot) returns.
    pub(crate) fn of() -> Self
    where
        T: Serialize + DeserializeOwned,
    {
        Self {
            write: |value, _, out| payload::write_item::<T>(value, out),
            read: |rest, _| payload::read_item::<T>(rest),
            name: std::any::type_name::<T>,
            literals: &[],
        }
    }

    /// The name of the local's type, as the compiler writes it.
    pub fn name(&self) -> &'static str {
        (self.name)()
    }
}

impl Slot<&'static str> {
    /// The slot of a local that the handler assigns only the string `literals` (`let kind =
    /// if big { "large" } else { "small" };`). No `&str` can be read back from a state, so
    /// the local travels as the index of its literal, which the shape of the flow covers.
    pub fn literals(literals: &'static [&'static str]) -> Self {
        Self {
            write: payload::write_literal,
            read: payload::read_literal,
            name: || "literal &str",
            literals,
        }
    }
}
