//! The HTTP transport's bounds on connections and requests, set on the
//! [`ServerBuilder`](crate::server::ServerBuilder), and their defaults.

use std::time::Duration;

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

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

/// What a built server holds for its HTTP transport: the bounds, the slots of requests in
/// flight (shared by every listener and router of the server), and how many each owner holds.
#[derive(Debug)]
pub(crate) struct HttpState {
    pub(crate) limits: HttpLimits,
    pub(crate) requests: Arc<Semaphore>,
    owners: Arc<Mutex<HashMap<Owner, usize>>>,
}

impl HttpState {
    pub(crate) fn new(limits: HttpLimits) -> Self {
        Self {
            limits,
            requests: Arc::new(Semaphore::new(limits.max_concurrent_requests)),
            owners: Arc::default(),
        }
    }

    /// One of `owner`'s places among the requests in flight, unless it holds its most.
    pub(crate) fn owner_slot(&self, owner: Owner) -> Option<OwnerSlot> {
        let mut owners = lock(&self.owners);
        let held = owners.entry(owner.clone()).or_insert(0);
        if *held >= self.limits.max_requests_per_owner {
            return None;
        }
        *held += 1;
        Some(OwnerSlot {
            owners: Arc::clone(&self.owners),
            owner,
        })
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // One map operation per critical section: the data stays consistent.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// An owner's place among the requests in flight; given back when dropped. Owners holding no
/// place are not kept.
#[derive(Debug)]
pub(crate) struct OwnerSlot {
    owners: Arc<Mutex<HashMap<Owner, usize>>>,
    owner: Owner,
}

impl Drop for OwnerSlot {
    fn drop(&mut self) {
        // The owner is not read again: taken, and hashed once to count down and remove.
        let owner = std::mem::replace(&mut self.owner, Owner::Unknown);
        let mut owners = lock(&self.owners);
        if let Entry::Occupied(mut held) = owners.entry(owner) {
            *held.get_mut() -= 1;
            if *held.get() == 0 {
                held.remove();
            }
        }
    }
}

/// A request's places among those in flight: the server's and its owner's, held until its
/// answer (or event stream) ends.
#[derive(Debug)]
pub(crate) struct RequestSlot {
    _server: OwnedSemaphorePermit,
    _owner: OwnerSlot,
}

impl RequestSlot {
    pub(crate) fn new(server: OwnedSemaphorePermit, owner: OwnerSlot) -> Self {
        Self {
            _server: server,
            _owner: owner,
        }
    }
}
