//! Transports: Streamable HTTP and stdio.
//!
//! Both feed the same dispatch ([`Server::handle`](crate::server::Server::handle)).
//!
//! - **Streamable HTTP** ([`Server::serve_http`](crate::server::Server::serve_http),
//!   [`Server::router`](crate::server::Server::router)): one `POST` endpoint; answers are
//!   `application/json`, or `text/event-stream` when the handler reports progress before it
//!   finishes (the notifications, then the response). Other methods get `405`. Requests whose
//!   `Host` or `Origin` is neither local (`localhost`, `127.0.0.1`, `[::1]`) nor allow-listed
//!   get `403` (DNS-rebinding protection); a body over the limit (4 MiB by default) gets `413`;
//!   a `Content-Type` other than `application/json` gets `415`; an `Accept` without JSON gets
//!   `406`. JSON-RPC errors travel with the status the revision gives them: `400` for
//!   malformed messages and lifecycle errors, `404` for unknown methods.
//! - **stdio** ([`Server::serve_stdio`](crate::server::Server::serve_stdio)): one JSON-RPC
//!   message per line on stdin, one answer per line on stdout, progress notifications before
//!   their answer.

mod guard;
mod http;
mod stdio;

pub use http::DEFAULT_PATH;
