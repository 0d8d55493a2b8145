//! The [`ServerBuilder`] settings that bound what clients may hold: legacy sessions and what
//! runs on them, HTTP connections and requests. Every one has a documented default; see the
//! README's "On a network" for the table.

use std::time::Duration;

use super::ServerBuilder;

/// Legacy sessions.
impl ServerBuilder {
    /// How long a legacy session may stay idle (no call running, no stream open) before it
    /// expires and its id answers `404` (default
    /// [`DEFAULT_SESSION_IDLE_TIMEOUT`](super::DEFAULT_SESSION_IDLE_TIMEOUT), 30 minutes). A
    /// sweeper closes expired sessions every quarter of this timeout (at least every minute).
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.sessions.idle_timeout = timeout;
        self
    }

    /// The most legacy sessions kept at once (default
    /// [`DEFAULT_MAX_SESSIONS`](super::DEFAULT_MAX_SESSIONS), 10,000). At the maximum, an
    /// `initialize` closes the opener's own least recently active idle session, else the
    /// sessions already expired; when neither frees a place it is refused with HTTP `503`.
    /// One client never closes another's live session.
    pub fn max_sessions(mut self, max: usize) -> Self {
        self.sessions.max_sessions = max.max(1);
        self
    }

    /// The most legacy HTTP sessions one owner keeps at once (default
    /// [`DEFAULT_MAX_SESSIONS_PER_OWNER`](super::DEFAULT_MAX_SESSIONS_PER_OWNER), 100). The
    /// owner is the caller's subject (with [`oauth`](ServerBuilder::oauth) or a
    /// [`subject`](ServerBuilder::subject) hook), else its IP address (an IPv6 address by its
    /// /64 network). At the cap an `initialize` closes the owner's least recently active idle
    /// session; when all are busy it is refused with HTTP `429`.
    pub fn max_sessions_per_owner(mut self, max: usize) -> Self {
        self.sessions.max_sessions_per_owner = max.max(1);
        self
    }

    /// How long a flow on a legacy session waits for the client to answer a round of
    /// questions before the call fails (default
    /// [`DEFAULT_INPUT_TIMEOUT`](super::DEFAULT_INPUT_TIMEOUT), 10 minutes).
    pub fn input_timeout(mut self, timeout: Duration) -> Self {
        self.sessions.input_timeout = timeout;
        self
    }

    /// The most calls running at once on one legacy HTTP session (default
    /// [`DEFAULT_MAX_CALLS_PER_SESSION`](super::DEFAULT_MAX_CALLS_PER_SESSION), 32), and
    /// across one owner's sessions (default
    /// [`DEFAULT_MAX_CALLS_PER_OWNER`](super::DEFAULT_MAX_CALLS_PER_OWNER), 64). A call
    /// beyond either is refused at once with HTTP `429`, so that calls waiting for answers
    /// that never come cannot hold every request slot.
    pub fn max_calls(mut self, per_session: usize, per_owner: usize) -> Self {
        self.sessions.max_calls_per_session = per_session.max(1);
        self.sessions.max_calls_per_owner = per_owner.max(1);
        self
    }

    /// The most standalone (`GET`) streams open at once across one owner's legacy sessions
    /// (default [`DEFAULT_MAX_STREAMS_PER_OWNER`](super::DEFAULT_MAX_STREAMS_PER_OWNER), 64),
    /// and on the whole server (default [`DEFAULT_MAX_STREAMS`](super::DEFAULT_MAX_STREAMS),
    /// 512). A session has one such stream: a new `GET` replaces the open one, which ends.
    /// A first stream beyond the owner's cap is refused with HTTP `429`, beyond the server's
    /// with `503`.
    pub fn max_streams(mut self, per_owner: usize, total: usize) -> Self {
        self.sessions.max_streams_per_owner = per_owner.max(1);
        self.sessions.max_streams = total.max(1);
        self
    }

    /// The most resources one legacy session subscribes to, and the most URIs one
    /// `subscriptions/listen` stream names in `resourceSubscriptions` (default
    /// [`DEFAULT_MAX_SUBSCRIPTIONS`](super::DEFAULT_MAX_SUBSCRIPTIONS), 100); one more is
    /// refused with `-32602`. Only URIs the server serves (a listed resource, or one a
    /// template matches) of at most 4 KiB may be subscribed to; a listen stream's
    /// acknowledgment leaves out the URIs the server does not serve.
    pub fn max_subscriptions(mut self, max: usize) -> Self {
        self.sessions.max_subscriptions = max;
        self
    }
}

/// HTTP connections and requests.
impl ServerBuilder {
    /// How long an HTTP connection may take to send a request head (default
    /// [`DEFAULT_HEADER_READ_TIMEOUT`](crate::transport::DEFAULT_HEADER_READ_TIMEOUT), 10
    /// seconds), counted from the head's first byte, or from the connection's acceptance for
    /// its first request; then the connection is closed. Applies to
    /// [`Server::serve_listener`](super::Server::serve_listener) and
    /// [`Server::serve_http`](super::Server::serve_http).
    pub fn header_read_timeout(mut self, timeout: Duration) -> Self {
        self.http.header_read_timeout = timeout;
        self
    }

    /// How long an HTTP request body may take to arrive whole, counted from the end of its
    /// head (default [`DEFAULT_BODY_READ_TIMEOUT`](crate::transport::DEFAULT_BODY_READ_TIMEOUT),
    /// 30 seconds); a slower one is answered `408` and its connection closed.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.http.body_read_timeout = timeout;
        self
    }

    /// How long a keep-alive HTTP connection may stay idle between a response and the next
    /// request before it is closed (default
    /// [`DEFAULT_KEEP_ALIVE_TIMEOUT`](crate::transport::DEFAULT_KEEP_ALIVE_TIMEOUT), 60
    /// seconds). A connection streaming a response is not idle, however long its stream
    /// stays silent. Applies to [`Server::serve_listener`](super::Server::serve_listener) and
    /// [`Server::serve_http`](super::Server::serve_http).
    pub fn keep_alive_timeout(mut self, timeout: Duration) -> Self {
        self.http.keep_alive_timeout = timeout;
        self
    }

    /// How long a write may wait for the client to read before the connection is closed
    /// (default [`DEFAULT_WRITE_TIMEOUT`](crate::transport::DEFAULT_WRITE_TIMEOUT), 30
    /// seconds): a client that stops reading its answer or event stream, and whose
    /// connection's buffers are full, loses the connection and the call behind it. A silent
    /// stream is not stalled: only bytes the client does not take count. Applies to
    /// [`Server::serve_listener`](super::Server::serve_listener) and
    /// [`Server::serve_http`](super::Server::serve_http).
    pub fn write_timeout(mut self, timeout: Duration) -> Self {
        self.http.write_timeout = timeout;
        self
    }

    /// The most HTTP connections served at once (default
    /// [`DEFAULT_MAX_CONNECTIONS`](crate::transport::DEFAULT_MAX_CONNECTIONS), 1024). At the
    /// cap, or when accepting fails for want of file descriptors, the connection that has
    /// waited longest for a request head (silent, trickling one, or idle between requests) is
    /// closed to make room; while every connection is busy, the next one waits unserved until
    /// one closes or goes idle, and the others in the listener's backlog. Applies to
    /// [`Server::serve_listener`](super::Server::serve_listener) and
    /// [`Server::serve_http`](super::Server::serve_http).
    pub fn max_connections(mut self, max: usize) -> Self {
        self.http.max_connections = max.max(1);
        self
    }

    /// The most HTTP requests handled at once, across connections (default
    /// [`DEFAULT_MAX_CONCURRENT_REQUESTS`](crate::transport::DEFAULT_MAX_CONCURRENT_REQUESTS),
    /// 256). Beyond it a request is answered `503` with `Retry-After` and a JSON-RPC error,
    /// not queued. A request counts from the end of its body until its answer (or event
    /// stream) ends, so a legacy call waiting for the client's answer counts all along; the
    /// client's answers themselves, and notifications, are let through at the cap.
    pub fn max_concurrent_requests(mut self, max: usize) -> Self {
        self.http.max_concurrent_requests = max.max(1);
        self
    }

    /// The most HTTP requests one owner has handled at once (default
    /// [`DEFAULT_MAX_REQUESTS_PER_OWNER`](crate::transport::DEFAULT_MAX_REQUESTS_PER_OWNER),
    /// 64): the owner is the caller's subject, else its IP address (an IPv6 address by its /64
    /// network). Beyond it the owner's next request is answered `429` with `Retry-After`, so
    /// that one client cannot hold every one of the
    /// [`max_concurrent_requests`](ServerBuilder::max_concurrent_requests). Requests count
    /// as for that cap; answers and notifications are let through.
    pub fn max_requests_per_owner(mut self, max: usize) -> Self {
        self.http.max_requests_per_owner = max.max(1);
        self
    }
}

/// Listen streams and list pages.
impl ServerBuilder {
    /// The most `subscriptions/listen` streams open at once for one owner (default
    /// [`DEFAULT_MAX_LISTENERS_PER_OWNER`](super::DEFAULT_MAX_LISTENERS_PER_OWNER), 8) and on
    /// the whole server (default [`DEFAULT_MAX_LISTENERS`](super::DEFAULT_MAX_LISTENERS),
    /// 128). The owner is the caller's subject, else its IP address (over stdio, every
    /// connection of the process counts as one owner). A stream beyond the owner's cap is
    /// refused with `-32600` and HTTP `429`, beyond the server's with `-32603` and `503`.
    /// Over HTTP each open stream also holds one of the requests in flight
    /// ([`max_concurrent_requests`](ServerBuilder::max_concurrent_requests),
    /// [`max_requests_per_owner`](ServerBuilder::max_requests_per_owner)). One stream
    /// subscribes to at most [`max_subscriptions`](ServerBuilder::max_subscriptions) URIs.
    pub fn max_listeners(mut self, per_owner: usize, total: usize) -> Self {
        self.listen.per_owner = per_owner.max(1);
        self.listen.total = total.max(1);
        self
    }

    /// The most items on one page of `tools/list`, `prompts/list`, `resources/list` and
    /// `resources/templates/list` (default: no limit, every list in one page). Longer lists
    /// are cut into pages chained by opaque `nextCursor`s; a cursor that does not decode, or
    /// names a page of a list that has changed since, is refused with `-32602`.
    pub fn page_size(mut self, size: usize) -> Self {
        self.page_size = Some(size.max(1));
        self
    }
}
