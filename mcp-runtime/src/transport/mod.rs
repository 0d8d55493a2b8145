//! Transports: Streamable HTTP and stdio.
//!
//! Both feed the same dispatch ([`Server::handle`](crate::server::Server::handle)).
//!
//! - **Streamable HTTP** ([`Server::serve_http`](crate::server::Server::serve_http),
//!   [`Server::router`](crate::server::Server::router)): one `POST` endpoint; answers are
//!   `application/json`, or `text/event-stream` when the handler sends a message before it
//!   finishes (progress, a log message, or on a legacy session a question for the client;
//!   the messages, then the response; an idle stream gets a comment every 15 seconds). On a
//!   legacy session (`Mcp-Session-Id`), `GET` opens the session's standalone event stream and
//!   `DELETE` ends it; a missing session id is `400`, an unknown or expired one `404`. Other
//!   methods, and `GET`/`DELETE` without a session, get `405`. Requests whose
//!   `Host` (or absolute-form target) or `Origin` is neither local (`localhost`, `127.0.0.1`,
//!   `[::1]`) nor allow-listed get `403` (DNS-rebinding protection); a missing, repeated or
//!   malformed `Host` (user information, a port that is not a number, anything after the
//!   host), a repeated `Origin`, or an absolute-form target naming another host than `Host`
//!   gets `400`. A body over the limit (4 MiB by default) gets `413`, one slower than the body
//!   timeout (30 s) `408`; a `Content-Type` other than `application/json` gets `415`; an
//!   `Accept` without JSON gets `406`; a request beyond the requests handled at once (256)
//!   gets `503` with `Retry-After`. JSON-RPC errors travel with the status the revision gives
//!   them: `400` for malformed messages and lifecycle errors, `404` for unknown methods, and
//!   `503` with `Retry-After` for what passes with time (a replay store that failed, a
//!   single-use round whose first use still runs).
//!   [`Server::serve_listener`](crate::server::Server::serve_listener) also caps open
//!   connections (1024; at the cap the one waiting longest for a request head closes to make
//!   room) and closes those whose request head is late (10 s), that stay idle (60 s), or whose
//!   client stops reading what is written (30 s); a live event stream is never cut otherwise.
//!   A legacy call whose `Accept` lacks `text/event-stream` fails at its first question, at
//!   once. Every bound is a
//!   [`ServerBuilder`](crate::server::ServerBuilder) setting; the defaults are below.
//! - **stdio** ([`Server::serve_stdio`](crate::server::Server::serve_stdio)): one JSON-RPC
//!   message per line on stdin, one answer per line on stdout, a request's messages before
//!   its answer. After `initialize` the connection is one legacy session: the client's
//!   responses to the server's questions are read as lines too. `notifications/cancelled`
//!   with a call's `requestId` cancels it (either era): it stops and is not answered.
//!
//! A call whose HTTP client closes the connection (while the call runs or while its event
//! stream is open) is cancelled the same way. Each connection of
//! [`Server::serve_listener`](crate::server::Server::serve_listener) and
//! [`Server::serve_lines`](crate::server::Server::serve_lines) runs in an `INFO` span
//! `connection`, the parent of its requests' spans (see [`server`](crate::server)).

mod backoff;
mod bearer;
mod body;
mod connection;
mod event_stream;
mod guard;
mod head;
mod header_room;
mod http;
mod limits;
mod listener;
mod media;
mod reply;
mod repoll;
mod roster;
mod router;
mod stdio;
mod watchdog;

pub use http::DEFAULT_PATH;
pub use limits::{
    DEFAULT_BODY_READ_TIMEOUT, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_KEEP_ALIVE_TIMEOUT,
    DEFAULT_MAX_CONCURRENT_REQUESTS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_REQUESTS_PER_OWNER,
    DEFAULT_WRITE_TIMEOUT,
};
pub(crate) use limits::{HttpLimits, HttpState};
pub(crate) use media::accepts_event_stream;
