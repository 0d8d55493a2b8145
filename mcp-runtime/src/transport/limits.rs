//! The HTTP transport's bounds on connections and requests, set on the
//! [`ServerBuilder`](crate::server::ServerBuilder), and their defaults.

use std::time::Duration;

use tokio::sync::Semaphore;

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

/// The bounds, as the builder collects them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HttpLimits {
    pub(crate) header_read_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) keep_alive_timeout: Duration,
    pub(crate) write_timeout: Duration,
    pub(crate) max_connections: usize,
    pub(crate) max_concurrent_requests: usize,
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
        }
    }
}

/// What a built server holds for its HTTP transport: the bounds, and the slots of requests
/// in flight (shared by every listener and router of the server).
#[derive(Debug)]
pub(crate) struct HttpState {
    pub(crate) limits: HttpLimits,
    pub(crate) requests: std::sync::Arc<Semaphore>,
}

impl HttpState {
    pub(crate) fn new(limits: HttpLimits) -> Self {
        Self {
            limits,
            requests: std::sync::Arc::new(Semaphore::new(limits.max_concurrent_requests)),
        }
    }
}
