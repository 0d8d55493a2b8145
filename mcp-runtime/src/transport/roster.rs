//! The connections a listener serves, so that at its cap (or out of file descriptors) it can
//! close the one that has waited longest for a request head, rather than leave every new
//! client in the backlog until a silent connection times out.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::Notify;

use super::connection::Activity;

/// The connections of one listener.
#[derive(Debug, Default)]
pub(super) struct Roster {
    connections: Mutex<Connections>,
    /// Notified whenever a connection leaves the roster.
    left: Notify,
}

#[derive(Debug, Default)]
struct Connections {
    by_id: HashMap<u64, Arc<Activity>>,
    next_id: u64,
}

impl Roster {
    fn connections(&self) -> std::sync::MutexGuard<'_, Connections> {
        self.connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Enters a connection; it leaves when the returned guard drops.
    pub(super) fn enter(self: &Arc<Self>, activity: Arc<Activity>) -> Entered {
        let mut connections = self.connections();
        let id = connections.next_id;
        connections.next_id += 1;
        connections.by_id.insert(id, activity);
        Entered {
            roster: Arc::clone(self),
            id,
        }
    }

    /// Asks the connection that has waited longest for a request head (its first, or the
    /// next on a kept-alive connection) to close; whether there was one. Busy connections,
    /// event streams among them, are never chosen.
    pub(super) fn close_idlest(&self) -> bool {
        let connections = self.connections();
        let mut idle: Vec<_> = connections
            .by_id
            .values()
            .filter_map(|activity| Some((activity.idle_since()?, Arc::clone(activity))))
            .collect();
        drop(connections);
        idle.sort_unstable_by_key(|(since, _)| *since);
        // One that turned busy since it was looked at is skipped.
        idle.into_iter().any(|(_, activity)| activity.evict())
    }

    /// Resolves once a connection leaves after this is called (to be polled once enabled).
    pub(super) fn left(&self) -> tokio::sync::futures::Notified<'_> {
        self.left.notified()
    }
}

/// A connection's place in the roster.
#[derive(Debug)]
pub(super) struct Entered {
    roster: Arc<Roster>,
    id: u64,
}

impl Drop for Entered {
    fn drop(&mut self) {
        self.roster.connections().by_id.remove(&self.id);
        self.roster.left.notify_waiters();
    }
}
