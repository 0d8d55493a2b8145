//! The endpoint as an axum router, for applications that mount it, and the requests other
//! than a `POST` to it, which the listener hands over here too.

use std::net::SocketAddr;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderValue, Method, StatusCode, header, request::Parts};
use axum::response::{IntoResponse, Response};
use axum::routing::post;

use super::event_stream::{SESSION_ID, json_response, standalone_stream};
use super::head::Head;
use super::http::{DEFAULT_PATH, protocol_version, respond, session_id};
use super::reply::Reply;
use super::{bearer, guard};
use crate::server::Server;

impl Server {
    /// The Streamable HTTP endpoint at [`DEFAULT_PATH`] (`/mcp`), as a router to serve or to
    /// merge into an existing axum application.
    pub fn router(&self) -> Router {
        self.router_at(DEFAULT_PATH)
    }

    /// The Streamable HTTP endpoint at `path`: `POST` for messages, and on legacy sessions
    /// `GET` (a standalone event stream) and `DELETE` (ending the session); other methods get
    /// `405`. With [`oauth`](crate::server::ServerBuilder::oauth), the protected-resource
    /// metadata's well-known paths too.
    ///
    /// Serve it with connection information
    /// (`app.into_make_service_with_connect_info::<SocketAddr>()`) so that callers without a
    /// subject are told apart by address for the per-owner caps; without it they count as one
    /// caller.
    pub fn router_at(&self, path: &str) -> Router {
        let mut router = Router::new().route(path, post(endpoint).get(endpoint).delete(endpoint));
        for served in self.inner.auth.iter().flat_map(|auth| &auth.metadata.paths) {
            router = router.route(served, axum::routing::any(metadata_endpoint));
        }
        router.with_state(self.clone())
    }
}

/// The endpoint at [`DEFAULT_PATH`], as [`Server::serve_listener`] serves it.
pub(super) async fn route(
    server: &Server,
    request: hyper::Request<hyper::body::Incoming>,
) -> Response {
    if request.uri().path() != DEFAULT_PATH {
        if bearer::serves_metadata(server, request.uri().path()) {
            return bearer::metadata(server, request.method());
        }
        return StatusCode::NOT_FOUND.into_response();
    }
    let (parts, body) = request.into_parts();
    by_method(server, parts, body).await
}

async fn metadata_endpoint(State(server): State<Server>, method: Method) -> Response {
    bearer::metadata(&server, &method)
}

async fn endpoint(State(server): State<Server>, request: axum::extract::Request) -> Response {
    let (parts, body) = request.into_parts();
    by_method(&server, parts, body).await
}

/// `POST` carries messages; `GET` and `DELETE` exist for legacy sessions only.
async fn by_method<B>(server: &Server, mut parts: Parts, body: B) -> Response
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    match parts.method {
        Method::POST => {
            let peer = parts
                .extensions
                .get::<ConnectInfo<SocketAddr>>()
                .map(|ConnectInfo(peer)| peer.ip());
            respond(server, parts, body, peer, None)
                .await
                .map(Reply::into_body)
        }
        Method::GET | Method::DELETE if parts.headers.contains_key(&SESSION_ID) => {
            let head = Head::read(&parts.headers);
            let session = session_id(head.session_id);
            if let Some(rejection) = guard::check_host_and_origin(&head, &parts.uri, &server.inner)
            {
                return rejection;
            }
            let version = protocol_version(head.protocol_version);
            let claims = match bearer::authenticate(server, &parts).await {
                Ok(claims) => claims,
                Err(refused) => return refused,
            };
            let subject = bearer::subject(server, &mut parts, claims.as_ref());
            let id = session.unwrap_or_default();
            let (subject, version) = (subject.as_deref(), version.as_deref());
            if parts.method == Method::DELETE {
                return match server.end_session(&id, subject, version) {
                    Ok(()) => StatusCode::NO_CONTENT.into_response(),
                    Err(refused) => json_response(refused).map(Reply::into_body),
                };
            }
            match server.open_standalone_stream(&id, subject, version) {
                Ok((guard, messages)) => standalone_stream(guard, messages),
                Err(refused) => json_response(refused).map(Reply::into_body),
            }
        }
        // Without a session, only `POST` is served (2026-07-28 has no other method).
        _ => {
            let mut response = StatusCode::METHOD_NOT_ALLOWED.into_response();
            response
                .headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("POST"));
            response
        }
    }
}
