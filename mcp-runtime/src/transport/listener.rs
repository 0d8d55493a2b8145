//! The listener: hyper's HTTP/1.1 connections driven by the server itself, each request
//! handed to [`route`] without a router in between (`http.rs` answers a `POST`, `router.rs` the
//! rest). It bounds its connections: how many (making room by closing the idlest,
//! `roster.rs`), how long a request head may take, how long one may stay idle, how long a
//! write may wait (`connection.rs`).

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::pin;
use std::sync::Arc;

use axum::extract::ConnectInfo;
use axum::http::Method;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, watch};
use tokio::task::JoinSet;

use super::backoff::AcceptBackoff;
use super::connection::{Activity, Expiry, Timeouts, Watched};
use super::http::{DEFAULT_PATH, respond};
use super::reply::{Reply, Tracked};
use super::repoll::Repolled;
use super::roster::{Entered, Roster};
use super::router::route;
use super::watchdog::Gated;
use crate::server::Server;

impl Server {
    /// Serves the endpoint at `/mcp` on `addr` until Ctrl-C, then finishes the requests in
    /// flight and returns.
    pub async fn serve_http(&self, addr: SocketAddr) -> std::io::Result<()> {
        let listener = TcpListener::bind(addr).await?;
        tracing::info!(address = %listener.local_addr()?, path = DEFAULT_PATH, "serving MCP over HTTP");
        self.serve_listener(listener, async {
            // If the signal cannot be installed, serve until the process is killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            tracing::info!("shutting down");
        })
        .await
    }

    /// Serves the endpoint at `/mcp` on `listener` until `shutdown` resolves, then stops
    /// accepting, finishes the requests in flight, closes idle connections and returns.
    ///
    /// Connections speak HTTP/1.1 with keep-alive; other paths get `404`, other methods `405`.
    /// At most [`max_connections`](crate::server::ServerBuilder::max_connections) are served
    /// at once: a connection accepted at the cap makes room by closing the connection that
    /// has waited longest for a request head (a silent one, one trickling its head, or one
    /// idle between requests); while every connection is busy it waits, unserved, until one
    /// closes or goes idle, and further connections wait in the listener's backlog (their
    /// timeouts start once served). A connection is closed when a request head takes longer than the
    /// [`header_read_timeout`](crate::server::ServerBuilder::header_read_timeout) (the first
    /// one counted from acceptance, so a silent connection goes too), when it stays idle
    /// between requests longer than the
    /// [`keep_alive_timeout`](crate::server::ServerBuilder::keep_alive_timeout), or when a
    /// write waits for the client to read longer than the
    /// [`write_timeout`](crate::server::ServerBuilder::write_timeout); a connection busy with
    /// a request or streaming an answer its client reads is never cut. When accepting fails
    /// (out of file descriptors, say), the server closes the connection that has waited
    /// longest for a request head, if one has; else it waits, longer while failures go on (10
    /// ms doubling up to 1 s), and logs one line per 10 seconds at most, with the count of
    /// failures it did not log.
    ///
    /// A client that closes its connection while a call runs, or while its event stream is
    /// open, cancels the call: its future is dropped, so the handler stops at its current
    /// await, and nothing is answered. Each connection runs in an `INFO` span `connection`
    /// (`transport = "http"`, `peer`), the parent of its requests' spans.
    pub async fn serve_listener(
        &self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        let (stop, stopped) = watch::channel(());
        let mut shutdown = pin!(shutdown);
        let mut connections = JoinSet::new();
        let slots = Arc::new(Semaphore::new(self.inner.http.limits.max_connections));
        let roster = Arc::new(Roster::default());
        let mut backoff = AcceptBackoff::default();
        loop {
            let accepted = tokio::select! {
                accepted = listener.accept() => accepted,
                () = &mut shutdown => break,
            };
            match accepted {
                Ok((stream, peer)) => {
                    backoff.succeeded();
                    let slot = tokio::select! {
                        slot = room(&slots, &roster) => slot,
                        () = &mut shutdown => break,
                    };
                    let span = tracing::info_span!("connection", transport = "http", %peer);
                    let serving = serve_connection(
                        self.clone(),
                        Accepted {
                            stream,
                            peer,
                            slot,
                            roster: Arc::clone(&roster),
                        },
                        stopped.clone(),
                    );
                    connections.spawn(Server::in_connection(span, serving));
                }
                // The peer gave up before the connection was accepted: nothing to do.
                Err(error) if is_connection_error(&error) => {}
                // Out of file descriptors, say: close the connection that has waited longest
                // for a request head, if one does, and wait for it to go; else wait rather
                // than spin. Logged at a bounded rate.
                Err(error) => {
                    let left = roster.left();
                    let mut left = pin!(left);
                    left.as_mut().enable();
                    if roster.close_idlest() {
                        tokio::select! {
                            () = left => {}
                            () = tokio::time::sleep(LONGEST_EVICTION) => {}
                            () = &mut shutdown => break,
                        }
                        continue;
                    }
                    let failed = backoff.failed(tokio::time::Instant::now());
                    if let Some(unlogged) = failed.log {
                        tracing::error!(
                            %error,
                            unlogged_failures = unlogged,
                            "cannot accept connections; retrying in {} ms",
                            failed.pause.as_millis()
                        );
                    }
                    tokio::select! {
                        () = tokio::time::sleep(failed.pause) => {}
                        () = &mut shutdown => break,
                    }
                }
            }
            while connections.try_join_next().is_some() {}
        }
        drop(listener);
        drop(stopped);
        let _ = stop.send(());
        // Listen streams would hold their connections open for ever: they end now, each
        // with its graceful response.
        self.inner.subscriptions.hub().close_all();
        while connections.join_next().await.is_some() {}
        Ok(())
    }
}

/// The longest wait for an evicted connection to close before accepting again.
const LONGEST_EVICTION: std::time::Duration = std::time::Duration::from_millis(100);

/// How often a connection waiting for room looks again for one to close while every
/// connection is busy.
const LOOK_AGAIN: std::time::Duration = std::time::Duration::from_millis(100);

/// A slot for a connection just accepted: at once when one is free; at the cap, after closing
/// the connection that has waited longest for a request head. While every connection is busy
/// it looks again every [`LOOK_AGAIN`], until one closes or waits for a request head.
async fn room(slots: &Arc<Semaphore>, roster: &Roster) -> OwnedSemaphorePermit {
    loop {
        if let Ok(slot) = Arc::clone(slots).try_acquire_owned() {
            return slot;
        }
        roster.close_idlest();
        tokio::select! {
            slot = Arc::clone(slots).acquire_owned() => return slot.expect("the semaphore stays open"),
            () = tokio::time::sleep(LOOK_AGAIN) => {}
        }
    }
}

/// A connection as the listener hands it over: its socket and peer, its `slot` among the
/// connections served at once, and the roster it enters.
struct Accepted {
    stream: TcpStream,
    peer: SocketAddr,
    slot: OwnedSemaphorePermit,
    roster: Arc<Roster>,
}

fn is_connection_error(error: &std::io::Error) -> bool {
    use std::io::ErrorKind;
    matches!(
        error.kind(),
        ErrorKind::ConnectionRefused | ErrorKind::ConnectionAborted | ErrorKind::ConnectionReset
    )
}

/// Serves one connection until the peer closes it, a request head is overdue, it stays idle
/// too long, a write waits too long for the client to read, or the listener evicts it to
/// make room; or until `stop` changes, then in-flight requests finish and the connection
/// closes. Holds one of the listener's connection slots and its place in the roster all
/// along.
async fn serve_connection(server: Server, accepted: Accepted, mut stop: watch::Receiver<()>) {
    let Accepted {
        stream,
        peer,
        slot: _slot,
        roster,
    } = accepted;
    // Answers are written whole; Nagle's algorithm would only delay progress events.
    let _ = stream.set_nodelay(true);
    let limits = server.inner.http.limits;
    let activity = Arc::new(Activity::new(Timeouts {
        header: limits.header_read_timeout,
        idle: limits.keep_alive_timeout,
        write: limits.write_timeout,
    }));
    let _entered: Entered = roster.enter(Arc::clone(&activity));
    let io = TokioIo::new(Watched::new(stream, Arc::clone(&activity)));
    let busy_with = Arc::clone(&activity);
    let service = service_fn(move |mut request: hyper::Request<hyper::body::Incoming>| {
        let server = server.clone();
        let (busy, head_started) = busy_with.begin();
        let post = request.method() == Method::POST && request.uri().path() == DEFAULT_PATH;
        // The peer is among the request's extensions, as under axum's router, where something
        // may read it there: a subject hook, or the routing. A POST is also handed it.
        if !post || server.inner.subject.is_some() {
            request.extensions_mut().insert(ConnectInfo(peer));
        }
        async move {
            // A POST to the endpoint, nearly every request, is answered without the routing's
            // futures around it, and the rest in a box: hyper moves this future, so it holds
            // room for one request's answer and no more.
            let response = if post {
                let (parts, body) = request.into_parts();
                let arrived = head_started.map(tokio::time::Instant::into_std);
                respond(&server, parts, body, Some(peer.ip()), arrived).await
            } else {
                Box::pin(route(&server, request)).await.map(Reply::from)
            };
            Ok::<_, Infallible>(response.map(|body| Tracked::new(body, busy)))
        }
    });
    // A client that closes its side of the connection has gone away (the 2026-07-28
    // revision makes a disconnect the cancellation of its request): hyper then ends the
    // connection, dropping the call's future, whose handler stops at its current await.
    let connection = http1::Builder::new()
        .half_close(false)
        .serve_connection(io, service);
    // Polled again at once when it wakes itself, as it does once per request (`repoll.rs`).
    let mut connection = Repolled::new(connection);
    let mut stopping = false;
    // The server's stop and the watchdog are polled only when they were woken, not each time
    // the connection's bytes wake its task.
    let mut stopped = Gated::new(stop.changed());
    let mut watchdog = Gated::new(activity.expired());
    let result = loop {
        tokio::select! {
            biased;
            result = &mut connection => break result,
            _ = &mut stopped, if !stopping => {
                stopping = true;
                connection.inner().graceful_shutdown();
            }
            expiry = &mut watchdog => {
                match expiry {
                    Expiry::Late => tracing::debug!("closed a connection whose request head is overdue or that stayed idle"),
                    Expiry::Stalled => tracing::debug!("closed a connection whose client stopped reading"),
                    Expiry::Evicted => tracing::debug!("closed an idle connection to make room for a new one"),
                }
                return;
            }
        }
    };
    if let Err(error) = result {
        tracing::debug!(%error, "connection ended with an error");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use axum::Router;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    use super::*;

    /// Sends one HTTP/1.1 request with `server/discover`'s headers and returns the raw answer.
    async fn exchange(addr: SocketAddr, method: &str, path: &str, body: &str) -> String {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: server/discover\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).await.unwrap();
        answer
    }

    const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}"#;

    #[tokio::test]
    async fn the_router_mounts_into_an_axum_application() {
        let server = Server::builder().name("mounted").build();
        let app = Router::new()
            .route("/health", axum::routing::get(|| async { "fine" }))
            .merge(server.router());
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        let answer = exchange(addr, "POST", "/mcp", DISCOVER).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.contains(r#""name":"mounted""#), "{answer}");
        let health = exchange(addr, "GET", "/health", "").await;
        assert!(health.ends_with("fine"), "{health}");
        let get = exchange(addr, "GET", "/mcp", "").await;
        assert!(get.starts_with("HTTP/1.1 405"), "{get}");
    }

    /// Reads one answer with a `content-length` from `stream`: its head and its body.
    async fn read_answer(stream: &mut TcpStream) -> (String, String) {
        let mut read = Vec::new();
        let mut buffer = [0u8; 4096];
        loop {
            let got = stream.read(&mut buffer).await.unwrap();
            assert!(got > 0, "closed early: {}", String::from_utf8_lossy(&read));
            read.extend_from_slice(&buffer[..got]);
            let text = String::from_utf8_lossy(&read).into_owned();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length: "))
                    .map_or(0, |length| length.parse().unwrap());
                if body.len() >= length {
                    return (head.to_owned(), body.to_owned());
                }
            }
        }
    }

    #[tokio::test]
    async fn answers_on_a_kept_alive_connection_carry_none_of_the_request_headers() {
        let server = Server::builder().name("kept").build();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move {
            server
                .serve_listener(listener, std::future::pending())
                .await
        });
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let mut heads = Vec::new();
        // Many headers, then few, then many again: each answer's map is the last request's.
        for extra in [30, 0, 30, 2] {
            let extra: String = (0..extra).map(|n| format!("X-Leak-{n}: {n}\r\n")).collect();
            let request = format!(
                "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
                 Accept: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\n\
                 Mcp-Method: server/discover\r\n{extra}Content-Length: {}\r\n\r\n{DISCOVER}",
                DISCOVER.len()
            );
            stream.write_all(request.as_bytes()).await.unwrap();
            let (head, body) = read_answer(&mut stream).await;
            assert!(body.contains(r#""name":"kept""#), "{body}");
            let names: Vec<&str> = head
                .lines()
                .skip(1)
                .map(|line| line.split_once(':').unwrap().0)
                .collect();
            assert_eq!(names, ["content-type", "content-length", "date"], "{head}");
            heads.push(head.lines().next().unwrap().to_owned());
        }
        assert!(
            heads.iter().all(|status| status == "HTTP/1.1 200 OK"),
            "{heads:?}"
        );
    }

    #[tokio::test]
    async fn serve_listener_answers_only_post_at_the_endpoint_and_stops_on_shutdown() {
        let server = Server::builder().name("served").build();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn(async move {
            let shutdown = async move {
                let _ = stopped.await;
            };
            server.serve_listener(listener, shutdown).await
        });
        let answer = exchange(addr, "POST", "/mcp", DISCOVER).await;
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(
            answer.contains("content-type: application/json"),
            "{answer}"
        );
        assert!(answer.contains(r#""name":"served""#), "{answer}");
        let get = exchange(addr, "GET", "/mcp", "").await;
        assert!(get.starts_with("HTTP/1.1 405"), "{get}");
        assert!(get.contains("allow: POST"), "{get}");
        let elsewhere = exchange(addr, "POST", "/other", DISCOVER).await;
        assert!(elsewhere.starts_with("HTTP/1.1 404"), "{elsewhere}");
        // An idle keep-alive connection does not hold the shutdown up.
        let _idle = TcpStream::connect(addr).await.unwrap();
        stop.send(()).unwrap();
        tokio::time::timeout(Duration::from_secs(5), serving)
            .await
            .expect("the server stops")
            .unwrap()
            .unwrap();
    }
}
