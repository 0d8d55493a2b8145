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
//!   `Host` or `Origin` is neither local (`localhost`, `127.0.0.1`, `[::1]`) nor allow-listed
//!   get `403` (DNS-rebinding protection); a body over the limit (4 MiB by default) gets `413`;
//!   a `Content-Type` other than `application/json` gets `415`; an `Accept` without JSON gets
//!   `406`. JSON-RPC errors travel with the status the revision gives them: `400` for
//!   malformed messages and lifecycle errors, `404` for unknown methods.
//! - **stdio** ([`Server::serve_stdio`](crate::server::Server::serve_stdio)): one JSON-RPC
//!   message per line on stdin, one answer per line on stdout, a request's messages before
//!   its answer. After `initialize` the connection is one legacy session: the client's
//!   responses to the server's questions are read as lines too.

mod guard;
mod http;
mod stdio;

pub use http::DEFAULT_PATH;
