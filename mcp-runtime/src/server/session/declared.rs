//! What a client declared at `initialize`, its capabilities and `clientInfo`, kept once for
//! all the sessions that declared the same.
//!
//! The clients of one SDK declare the same capabilities and `clientInfo`, so a server with
//! thousands of sessions holds a few distinct declarations. The session table owns a
//! [`Declarations`] that hands out one shared, immutable copy per distinct declaration. It
//! keeps at most [`MAX_DECLARATIONS`] of them, each only as long as a session holds it (the
//! table remembers a weak reference). Dropped ones are forgotten when the table's sweeper runs,
//! or when a new declaration finds the table full. Past the cap a session keeps its own copy:
//! nothing is refused, and a client that declares many different things only loses the
//! sharing, for its sessions and for later ones.

use std::collections::HashMap;
use std::collections::hash_map::{Entry, RandomState};
use std::hash::{BuildHasher, Hasher};
use std::sync::{Arc, Mutex, Weak};

use serde::Serialize;

use super::lock;
use crate::protocol::{ClientCapabilities, Implementation};

/// The most distinct declarations shared at once: 256.
pub(crate) const MAX_DECLARATIONS: usize = 256;

/// What a session's client declared at `initialize`, bounded (see `capabilities`).
#[derive(Debug, Default, PartialEq, Serialize)]
pub(crate) struct Declared {
    pub(crate) capabilities: ClientCapabilities,
    pub(crate) client_info: Option<Implementation>,
}

/// The declarations the sessions of one table share, by a keyed hash of their JSON.
#[derive(Debug)]
pub(crate) struct Declarations {
    hasher: RandomState,
    max: usize,
    shared: Mutex<HashMap<u64, Weak<Declared>>>,
}

impl Default for Declarations {
    fn default() -> Self {
        Self::new(MAX_DECLARATIONS)
    }
}

impl Declarations {
    /// A table sharing at most `max` declarations.
    pub(crate) fn new(max: usize) -> Self {
        Self {
            hasher: RandomState::new(),
            max,
            shared: Mutex::default(),
        }
    }

    /// The shared copy of `declared`: the one sessions already hold when they declared the
    /// same, else a new one, shared from now on when there is room.
    pub(crate) fn share(&self, declared: Declared) -> Arc<Declared> {
        let hash = self.hash(&declared);
        let mut shared = lock(&self.shared);
        if shared.len() >= self.max && !shared.contains_key(&hash) {
            shared.retain(|_, held| held.strong_count() > 0);
        }
        let room = shared.len() < self.max;
        match shared.entry(hash) {
            Entry::Occupied(mut entry) => match entry.get().upgrade() {
                Some(held) if *held == declared => held,
                // Another declaration with the same hash keeps its place while it is held.
                Some(_) => Arc::new(declared),
                None => {
                    let fresh = Arc::new(declared);
                    entry.insert(Arc::downgrade(&fresh));
                    fresh
                }
            },
            Entry::Vacant(entry) => {
                let fresh = Arc::new(declared);
                if room {
                    entry.insert(Arc::downgrade(&fresh));
                }
                fresh
            }
        }
    }

    /// Forgets the declarations no session holds any more.
    pub(crate) fn sweep(&self) {
        lock(&self.shared).retain(|_, held| held.strong_count() > 0);
    }

    /// How many declarations are remembered, held or not.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.shared).len()
    }

    /// The keyed hash of `declared`'s JSON: equal declarations write equal JSON (their maps
    /// are sorted by key).
    fn hash(&self, declared: &Declared) -> u64 {
        struct Feed<H>(H);
        impl<H: Hasher> std::io::Write for Feed<H> {
            fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
                self.0.write(bytes);
                Ok(bytes.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut feed = Feed(self.hasher.build_hasher());
        // Writing to a hasher cannot fail, and these types always serialise.
        let _ = serde_json::to_writer(&mut feed, declared);
        feed.0.finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn declared(capabilities: serde_json::Value, client: &str) -> Declared {
        Declared {
            capabilities: serde_json::from_value(capabilities).unwrap(),
            client_info: Some(Implementation::new(client, "1.0.0")),
        }
    }

    #[test]
    fn equal_declarations_share_one_copy_and_different_ones_do_not() {
        let table = Declarations::default();
        let form = || json!({"elicitation": {"form": {}}});
        let first = table.share(declared(form(), "ts"));
        let second = table.share(declared(form(), "ts"));
        assert!(Arc::ptr_eq(&first, &second));
        let url = table.share(declared(json!({"elicitation": {"url": {}}}), "ts"));
        let other_client = table.share(declared(form(), "py"));
        assert!(!Arc::ptr_eq(&first, &url));
        assert!(!Arc::ptr_eq(&first, &other_client));
        assert_eq!(*url, declared(json!({"elicitation": {"url": {}}}), "ts"));
        assert_eq!(*other_client, declared(form(), "py"));
        assert_eq!(table.len(), 3);
    }

    #[test]
    fn declarations_nobody_holds_are_forgotten_and_past_the_cap_nothing_is_shared() {
        let table = Declarations::new(2);
        let a = table.share(declared(json!({}), "a"));
        let b = table.share(declared(json!({}), "b"));
        // Full: a third declaration is handed out but not shared.
        let c = table.share(declared(json!({}), "c"));
        let c_again = table.share(declared(json!({}), "c"));
        assert!(!Arc::ptr_eq(&c, &c_again));
        assert_eq!(table.len(), 2);
        // Once `b` is dropped, its place goes to the next new declaration.
        drop(b);
        let c_shared = table.share(declared(json!({}), "c"));
        assert!(Arc::ptr_eq(
            &c_shared,
            &table.share(declared(json!({}), "c"))
        ));
        assert_eq!(table.len(), 2);
        assert!(Arc::ptr_eq(&a, &table.share(declared(json!({}), "a"))));
        // The sweeper forgets what nobody holds.
        drop((a, c, c_again, c_shared));
        table.sweep();
        assert_eq!(table.len(), 0);
    }
}
