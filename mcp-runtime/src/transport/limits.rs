//! The HTTP transport's bounds on connections and requests, set on the
//! [`ServerBuilder`](crate::server::ServerBuilder), and their defaults.

use std::time::Duration;

use std::hash::BuildHasher;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use hashbrown::HashTable;

use crate::server::Owner;

/// How long a connection may take to send a request head (request line and headers), from
/// its first byte, or from being accepted for a connection's first request: 10 seconds.
///
/// A head is a few hundred bytes that any live client sends at once; the timeout only bounds
/// how long a client that trickles one (or sends nothing) holds a connection.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a request body may take to arrive whole, from the end of its head: 30 seconds,
/// enough for a body at the default 4 MiB limit at about 1.2 Mbit/s.
pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);

/// How long a keep-alive connection may stay idle between two requests: 60 seconds, longer
/// than the idle time of most clients' connection pools, so that they usually close first.
pub const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// How long a write may wait for the client to read (a response, or an event of a stream)
/// before the connection is closed: 30 seconds. A client that stops reading its stream
/// otherwise holds its connection, and the call behind the stream, for as long as it likes.
pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// The most connections served at once by [`Server::serve_listener`](crate::server::Server::serve_listener): 1024.
///
/// Every connection holds a file descriptor; the process's limit (`ulimit -n`) should be
/// above this cap, with room for the application's own files and sockets.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;

/// The most requests handled at once across connections: 256. Beyond it a request is
/// answered `503` with `Retry-After` rather than queued.
pub const DEFAULT_MAX_CONCURRENT_REQUESTS: usize = 256;

/// The most HTTP requests one owner (the caller's subject, else its IP address; an IPv6
/// address by its /64 network) has handled at once: 64, a quarter of the requests handled at
/// once by default. Beyond it a request of that owner is answered `429` with `Retry-After`,
/// and other owners are not affected.
pub const DEFAULT_MAX_REQUESTS_PER_OWNER: usize = 64;

/// The bounds, as the builder collects them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) keep_alive_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_concurrent_requests: usize,
    pub(crate) max_requests_per_owner: usize,
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: DEFAULT_BODY_READ_TIMEOUT,
            keep_alive_timeout: DEFAULT_KEEP_ALIVE_TIMEOUT,
            write_timeout: DEFAULT_WRITE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
            max_concurrent_requests: DEFAULT_MAX_CONCURRENT_REQUESTS,
            max_requests_per_owner: DEFAULT_MAX_REQUESTS_PER_OWNER,
        }
    }
}

/// What a built server holds for its HTTP transport: the bounds, and the requests in flight
/// (shared by every listener and router of the server), in all and by owner.
#[derive(Debug)]
pub(crate) struct HttpState {
    pub(crate) limits: HttpLimits,
    owners: Arc<Owners>,
}

/// How many requests are in flight, and how many places each owner holds among them. Owners
/// are hashed with SipHash under a per-server key (clients choose them, by address or
/// subject), once a request: its [`RequestSlot`] keeps the hash to count down with.
///
/// The count in all is a counter, not a semaphore: a request past the cap is refused, never
/// queued, so nothing waits for a place, and giving one back takes no lock.
#[derive(Debug, Default)]
struct Owners {
    in_flight: AtomicUsize,
    /// `foldhash` (seeded per process), not SipHash: an owner is hashed on every request, and
    /// SipHash's guard against a flooded table buys little here, where the table holds only
    /// owners with a request in flight, at most `max_concurrent_requests` of them.
    hasher: foldhash::quality::RandomState,
    held: Mutex<HashTable<(Owner, usize)>>,
}

/// Why a request gets no place among those in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The server handles its most at once.
    Server,
    /// The request's owner holds its most.
    Owner,
}

impl HttpState {
    pub(crate) fn new(limits: HttpLimits) -> Self {
        Self {
            limits,
            owners: Arc::default(),
        }
    }

    /// A place among the requests in flight, the server's and one of its owner's, unless the
    /// server or the owner (asked only when the server has room) holds its most.
    pub(crate) fn request_slot(
        &self,
        owner: impl FnOnce() -> Owner,
    ) -> Result<RequestSlot, Refused> {
        let owners = &*self.owners;
        let max = self.limits.max_concurrent_requests;
        owners
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |count| {
                (count < max).then_some(count + 1)
            })
            .map_err(|_| Refused::Server)?;
        let owner = owner();
        let hash = owners.hasher.hash_one(&owner);
        let max = self.limits.max_requests_per_owner;
        let mut held = lock(&owners.held);
        let taken = match held.find_mut(hash, |(held, _)| *held == owner) {
            Some((_, count)) if *count >= max => false,
            Some((_, count)) => {
                *count += 1;
                true
            }
            None if max == 0 => false,
            None => {
                let rehash = |(held, _): &(Owner, usize)| owners.hasher.hash_one(held);
                held.insert_unique(hash, (owner.clone(), 1), rehash);
                true
            }
        };
        drop(held);
        if !taken {
            owners.in_flight.fetch_sub(1, Ordering::AcqRel);
            return Err(Refused::Owner);
        }
        Ok(RequestSlot {
            owners: Arc::clone(&self.owners),
            owner,
            hash,
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // One map operation per critical section: the data stays consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A request's places among those in flight, the server's and its owner's, held until its
/// answer (or event stream) ends; given back when dropped. Owners holding no place are not
/// kept.
#[derive(Debug)]
pub(crate) struct RequestSlot {
    owners: Arc<Owners>,
    owner: Owner,
    /// The owner's hash, as [`HttpState::request_slot`] found it: not computed again.
    hash: u64,
}

impl Drop for RequestSlot {
    fn drop(&mut self) {
        let mut held = lock(&self.owners.held);
        if let Ok(mut entry) = held.find_entry(self.hash, |(held, _)| *held == self.owner) {
            let (_, count) = entry.get_mut();
            *count -= 1;
            if *count == 0 {
                entry.remove();
            }
        }
        drop(held);
        self.owners.in_flight.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use std::net::{IpAddr, Ipv4Addr};

    use super::*;

    /// Each owner gets its most and no more, whatever the others hold; a place given back can
    /// be taken again, and an owner holding none is forgotten.
    #[test]
    fn owners_are_capped_apart_and_forgotten_once_they_hold_nothing() {
        let state = HttpState::new(HttpLimits {
            max_requests_per_owner: 2,
            ..HttpLimits::default()
        });
        let peer = |last| Owner::Peer(IpAddr::V4(Ipv4Addr::new(10, 0, 0, last)));
        let alice = || Owner::Subject(Arc::from("alice"));
        let mut held: Vec<_> = [peer(1), peer(1), alice(), peer(2), alice()]
            .into_iter()
            .map(|owner| state.request_slot(|| owner).expect("a place"))
            .collect();
        assert_eq!(state.request_slot(|| peer(1)).unwrap_err(), Refused::Owner);
        assert_eq!(state.request_slot(alice).unwrap_err(), Refused::Owner);
        let held_by = |owner: Owner| {
            let owners = lock(&state.owners.held);
            let hash = state.owners.hasher.hash_one(&owner);
            owners
                .find(hash, |(held, _)| *held == owner)
                .map(|&(_, count)| count)
        };
        assert_eq!(held_by(peer(2)), Some(1));
        held.remove(0);
        assert_eq!(held_by(peer(1)), Some(1));
        held.push(state.request_slot(|| peer(1)).expect("a place given back"));
        assert!(state.request_slot(|| peer(1)).is_err());
        // Five places held, and the refusals gave theirs back.
        assert_eq!(state.owners.in_flight.load(Ordering::Acquire), 5);
        held.clear();
        assert!(lock(&state.owners.held).is_empty());
        assert_eq!(state.owners.in_flight.load(Ordering::Acquire), 0);
        let none = HttpState::new(HttpLimits {
            max_requests_per_owner: 0,
            ..HttpLimits::default()
        });
        assert_eq!(none.request_slot(|| peer(1)).unwrap_err(), Refused::Owner);
        assert!(lock(&none.owners.held).is_empty());
        assert_eq!(none.owners.in_flight.load(Ordering::Acquire), 0);
    }

    /// The server's cap counts every owner's requests; at it, the owner is not asked, and a
    /// place given back can be taken again.
    #[test]
    fn the_server_caps_requests_in_all_before_asking_the_owner() {
        let state = HttpState::new(HttpLimits {
            max_concurrent_requests: 3,
            max_requests_per_owner: 2,
            ..HttpLimits::default()
        });
        let peer = |last| Owner::Peer(IpAddr::V4(Ipv4Addr::new(10, 0, 0, last)));
        let mut held: Vec<_> = [1, 1, 2]
            .into_iter()
            .map(|last| state.request_slot(|| peer(last)).expect("a place"))
            .collect();
        let asked = std::cell::Cell::new(false);
        let refused = state.request_slot(|| {
            asked.set(true);
            peer(3)
        });
        assert_eq!(refused.unwrap_err(), Refused::Server);
        assert!(
            !asked.get(),
            "the owner is asked only when the server has room"
        );
        held.pop();
        let again = state.request_slot(|| peer(3)).expect("a place given back");
        assert_eq!(state.request_slot(|| peer(3)).unwrap_err(), Refused::Server);
        drop((held, again));
        assert_eq!(state.owners.in_flight.load(Ordering::Acquire), 0);
        let none = HttpState::new(HttpLimits {
            max_concurrent_requests: 0,
            ..HttpLimits::default()
        });
        assert_eq!(none.request_slot(|| peer(1)).unwrap_err(), Refused::Server);
    }
}
