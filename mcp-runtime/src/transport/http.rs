//! Streamable HTTP: one `POST` endpoint answering `application/json`, or `text/event-stream`
//! when the handler reports progress before it finishes.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use tokio::net::TcpListener;

use super::guard;
use crate::server::{BoxFuture, Outcome, ProgressReceiver, RequestFacts, Server};

/// The path [`Server::serve_http`] and [`Server::router`] serve the endpoint at.
pub const DEFAULT_PATH: &str = "/mcp";

impl Server {
    /// The Streamable HTTP endpoint at [`DEFAULT_PATH`] (`/mcp`), as a router to serve or to
    /// merge into an existing axum application.
    pub fn router(&self) -> Router {
        self.router_at(DEFAULT_PATH)
    }

    /// The Streamable HTTP endpoint at `path`. Only `POST` is served; other methods get `405`.
    pub fn router_at(&self, path: &str) -> Router {
        Router::new()
            .route(path, post(endpoint))
            .with_state(self.clone())
    }

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

    /// Serves the endpoint at `/mcp` on `listener` until `shutdown` resolves, then finishes the
    /// requests in flight and returns.
    pub async fn serve_listener(
        &self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> std::io::Result<()> {
        axum::serve(listener, self.router())
            .with_graceful_shutdown(shutdown)
            .await
    }
}

async fn endpoint(State(server): State<Server>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    let inner = &server.inner;
    if let Some(rejection) = guard::check_host_and_origin(&parts.headers, &parts.uri, inner) {
        return rejection;
    }
    if let Some(rejection) = guard::check_content_type(&parts.headers) {
        return rejection;
    }
    if let Some(rejection) = guard::check_accept(&parts.headers) {
        return rejection;
    }
    let limit = inner.body_limit;
    let declared = parts
        .headers
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
    if declared.is_some_and(|length| length > limit as u64) {
        return guard::too_large(limit);
    }
    let bytes = match axum::body::to_bytes(body, limit).await {
        Ok(bytes) => bytes,
        Err(_) => return guard::too_large(limit),
    };
    let facts = RequestFacts::http(protocol_version(&parts), subject(&server, &parts));
    let accepts_sse = guard::accepts_event_stream(&parts.headers);
    let handling = server.handle(&bytes, facts);
    match handling.progress {
        Some(progress) if accepts_sse => respond_streaming(handling.outcome, progress).await,
        _ => json_response(handling.outcome.await),
    }
}

fn protocol_version(parts: &Parts) -> Option<String> {
    let value = parts.headers.get("mcp-protocol-version")?;
    Some(String::from_utf8_lossy(value.as_bytes()).into_owned())
}

fn subject(server: &Server, parts: &Parts) -> Option<String> {
    let hook = server.inner.subject.as_ref()?;
    hook(parts)
}

/// Answers JSON if the handler finishes first, or an event stream if it reports progress
/// first.
async fn respond_streaming(
    mut outcome: BoxFuture<'static, Outcome>,
    mut progress: ProgressReceiver,
) -> Response {
    let first = tokio::select! {
        biased;
        finished = &mut outcome => return json_response(finished),
        Some(notification) = progress.recv() => notification,
    };
    let stream = EventStream {
        ready: VecDeque::from([notification_event(&first)]),
        progress: Some(progress),
        outcome: Some(outcome),
    };
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

fn json_response(outcome: Outcome) -> Response {
    let status = StatusCode::from_u16(outcome.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    match outcome.body {
        Some(body) => {
            let mut headers = HeaderMap::new();
            headers.insert(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            );
            (status, headers, body).into_response()
        }
        None => status.into_response(),
    }
}

/// The events of one streamed answer: progress notifications, then the response, then the end.
struct EventStream {
    ready: VecDeque<Bytes>,
    progress: Option<ProgressReceiver>,
    outcome: Option<BoxFuture<'static, Outcome>>,
}

fn event(data: &[u8]) -> Bytes {
    let mut event = Vec::with_capacity(data.len() + 24);
    event.extend_from_slice(b"event: message\ndata: ");
    event.extend_from_slice(data);
    event.extend_from_slice(b"\n\n");
    Bytes::from(event)
}

fn notification_event(notification: &serde_json::Value) -> Bytes {
    event(&serde_json::to_vec(notification).expect("a JSON value serialises"))
}

impl futures_core::Stream for EventStream {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            if let Some(ready) = this.ready.pop_front() {
                return Poll::Ready(Some(Ok(ready)));
            }
            let Some(outcome) = &mut this.outcome else {
                return Poll::Ready(None);
            };
            if let Some(progress) = &mut this.progress {
                match progress.poll_recv(cx) {
                    Poll::Ready(Some(notification)) => {
                        this.ready.push_back(notification_event(&notification));
                        continue;
                    }
                    Poll::Ready(None) => this.progress = None,
                    Poll::Pending => {}
                }
            }
            let finished = std::task::ready!(outcome.as_mut().poll(cx));
            this.outcome = None;
            // Notifications sent before the result go out before it.
            if let Some(mut progress) = this.progress.take() {
                while let Some(notification) = progress.try_recv() {
                    this.ready.push_back(notification_event(&notification));
                }
            }
            this.ready
                .push_back(event(&finished.body.unwrap_or_default()));
        }
    }
}
