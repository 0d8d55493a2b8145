//! The random id every state carries, so that a server can record that it was used.

use std::fmt;

use rand::Rng as _;

/// The random 16-byte id inside every `requestState` token, covered by its tag (or seal).
///
/// Drawn afresh for every token from a per-thread ChaCha generator that is seeded, and
/// reseeded every 64 KiB of output, from the operating system's random source; two tokens
/// share an id with probability about `n² / 2¹²⁹` after `n` tokens, so a server may record
/// the id of a state it accepted and refuse the same id later (see
/// [`Opened::id`](super::Opened::id)). The generator is not reseeded when the process forks:
/// a server that forks after minting must not mint from both processes.
///
/// [`Debug`](fmt::Debug) and [`Display`](fmt::Display) show it in lowercase hex.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateId([u8; 16]);

impl StateId {
    /// The id with these exact bytes.
    pub const fn from_bytes(bytes: [u8; 16]) -> Self {
        Self(bytes)
    }

    /// The id's bytes.
    pub const fn as_bytes(&self) -> &[u8; 16] {
        &self.0
    }

    /// A fresh random id.
    ///
    /// # Panics
    ///
    /// If the operating system's random source fails when this thread first draws, or
    /// reseeds.
    pub(super) fn random() -> Self {
        let mut bytes = [0u8; 16];
        rand::rng().fill_bytes(&mut bytes);
        Self(bytes)
    }
}

impl fmt::Display for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for byte in &self.0 {
            write!(f, "{byte:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for StateId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateId({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_fresh_and_print_as_hex() {
        assert_ne!(StateId::random(), StateId::random());
        let id = StateId::from_bytes([0xab; 16]);
        assert_eq!(id.to_string(), "ab".repeat(16));
        assert_eq!(format!("{id:?}"), format!("StateId({})", "ab".repeat(16)));
        assert_eq!(id.as_bytes(), &[0xab; 16]);
    }
}
