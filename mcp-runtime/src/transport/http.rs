//! Streamable HTTP: one `POST` endpoint answering `application/json`, or `text/event-stream`
//! when the handler reports progress before it finishes.
//!
//! [`Server::serve_listener`] drives hyper's HTTP/1.1 connections itself (`listener.rs`) and
//! answers every `POST` through [`respond`], without a router in between; [`Server::router`]
//! wraps the same [`respond`] in an axum route for applications that mount the endpoint
//! (`router.rs`).
//!
//! Both bound what a request may cost: its body (size and read time, collected into one
//! buffer), and the requests handled at once. [`Server::serve_listener`] also bounds its
//! connections (`listener.rs`).

use std::borrow::Cow;
use std::future::Future;
use std::net::IpAddr;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Instant;

use axum::body::Bytes;
use axum::http::{StatusCode, request::Parts};
use axum::response::{IntoResponse, Response};

use super::body::{BodyError, is_request, read_body};
use super::event_stream::{json_response, json_response_in, respond_streaming};
use super::head::{Head, Seen};
use super::header_room::{emptied, shared};
use super::limits::Refused;
use super::reply::Reply;
use super::{bearer, guard, media};
use crate::server::{Owner, RequestFacts, SUPPORTED_VERSIONS, Server, arrived_at};

/// The path [`Server::serve_http`] and [`Server::router`] serve the endpoint at.
pub const DEFAULT_PATH: &str = "/mcp";

/// Answers one `POST` to the endpoint from `peer`, where known: the guards, then the body (up
/// to the limit, within the body timeout), then a request slot, then dispatch. `arrived` is
/// when its head began to arrive, if its connection read the clock then: the request's
/// start, as the access log counts its duration.
/// An `async` block, not an `async fn` (whose future holds its arguments twice): hyper moves
/// the request's future into place, so it holds one copy of the request's head.
#[allow(clippy::manual_async_fn, reason = "its arguments held once, not twice")]
pub(super) fn respond<B>(
    server: &Server,
    mut parts: Parts,
    body: B,
    peer: Option<IpAddr>,
    arrived: Option<Instant>,
) -> impl Future<Output = Response<Reply>>
where
    B: hyper::body::Body<Data = Bytes>,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    async move {
        let inner = &server.inner;
        let limit = inner.body_limit;
        // The head is read in a block of its own: of it, the request's future holds past the
        // body's read only what dispatch reads.
        let (claims, accepts_sse, declared, later) = {
            let head = Head::read(&parts.headers);
            if let Some(rejection) = guard::check_host_and_origin(&head, &parts.uri, inner) {
                return rejection.map(Reply::from);
            }
            // Before the body is read: a request without a valid token costs no more than its
            // head.
            let claims = match bearer::authenticate(server, &parts).await {
                Ok(claims) => claims,
                Err(refused) => return refused.map(Reply::from),
            };
            if let Some(rejection) = media::check_content_type(&head) {
                return rejection.map(Reply::from);
            }
            let Some(accepts_sse) = media::check_accept(&head) else {
                return media::not_acceptable().map(Reply::from);
            };
            let declared = head
                .content_length
                .first
                .and_then(|value| value.to_str().ok()?.parse::<u64>().ok());
            if declared.is_some_and(|length| length > limit as u64) {
                return guard::too_large(limit).map(Reply::from);
            }
            (claims, accepts_sse, declared, head.later())
        };
        let limits = &inner.http.limits; // not a copy held across the awaits
        let depth = server.message_depth();
        let mut read = pin!(read_body(body, limit, declared, depth));
        // A small body usually came with its head: read at once, it needs no timer.
        let read = match std::future::poll_fn(|cx| Poll::Ready(read.as_mut().poll(cx))).await {
            Poll::Ready(read) => Ok(read),
            Poll::Pending => tokio::time::timeout(limits.body_read_timeout, read).await,
        };
        let bytes = match read {
            Ok(Ok(bytes)) => bytes,
            Ok(Err(BodyError::TooLarge)) => return guard::too_large(limit).map(Reply::from),
            // Refused as dispatch refuses it, without reading (or sending) the rest.
            Ok(Err(BodyError::TooDeep)) => return json_response(server.too_deep()),
            Ok(Err(BodyError::Unreadable(error))) => {
                tracing::debug!(%error, "cannot read a request body");
                return StatusCode::BAD_REQUEST.into_response().map(Reply::from);
            }
            Err(_) => return guard::body_timeout(limits.body_read_timeout).map(Reply::from),
        };
        // What dispatch reads of the headers, read now: the map moves on to the binding policy.
        let (version, session, standard) = (
            protocol_version(later.protocol_version),
            session_id(later.session_id),
            later.standard(),
        );
        let subject = bearer::subject(server, &mut parts, claims.as_ref());
        let slot = match inner
            .http
            .request_slot(|| Owner::of(subject.as_deref(), peer))
        {
            Ok(slot) => Some(slot),
            // Answers to the server's questions and notifications end at once, and a legacy call
            // holding a slot may be waiting for exactly that answer: past the caps they take no
            // slot. The body is probed for that only at a cap.
            Err(_) if !is_request(&bytes) => None,
            Err(Refused::Server) => {
                return guard::overloaded(limits.max_concurrent_requests).map(Reply::from);
            }
            Err(Refused::Owner) => {
                return guard::too_many(limits.max_requests_per_owner).map(Reply::from);
            }
        };
        // Shared with dispatch, and back to this future alone once the call is over: its
        // room then holds the answer's headers.
        let headers = shared(std::mem::take(&mut parts.headers));
        let facts = RequestFacts::http_request(
            version,
            subject,
            session,
            claims,
            (Arc::clone(&headers), standard),
            peer,
        );
        // `read_body` has measured the nesting against the server's limit.
        let handling = arrived_at(arrived, || server.handle_shallow(&bytes, facts));
        drop(bytes);
        match handling.messages {
            // Boxed: only streamed answers pay for the room their future takes.
            Some(messages) if accepts_sse => {
                Box::pin(respond_streaming(handling.outcome, messages, slot, headers)).await
            }
            messages => {
                // Nobody will read the messages: dropped now, a legacy call's question fails at
                // once rather than wait for an answer that cannot come.
                drop(messages);
                let outcome = handling.outcome.await;
                json_response_in(outcome, emptied(headers))
            }
        }
    }
}

pub(super) fn session_id(sent: Seen<'_>) -> Option<String> {
    let value = sent.first?;
    Some(String::from_utf8_lossy(value.as_bytes()).into_owned())
}

/// The request's `MCP-Protocol-Version`, as sent: a static text when it names a supported
/// revision, as nearly every request's does, so that it is not copied.
pub(super) fn protocol_version(sent: Seen<'_>) -> Option<Cow<'static, str>> {
    let value = sent.first?.as_bytes();
    Some(
        match SUPPORTED_VERSIONS
            .iter()
            .find(|version| version.as_bytes() == value)
        {
            Some(version) => Cow::Borrowed(*version),
            None => Cow::Owned(String::from_utf8_lossy(value).into_owned()),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_known_protocol_version_is_not_copied_and_another_is_kept_as_sent() {
        let parts = |version: &'static str| {
            let request = hyper::Request::post("/mcp").header("mcp-protocol-version", version);
            request.body(()).unwrap().into_parts().0
        };
        let version = |parts: &Parts| protocol_version(Head::read(&parts.headers).protocol_version);
        let known = version(&parts("2026-07-28"));
        assert!(matches!(known, Some(Cow::Borrowed("2026-07-28"))));
        let other = version(&parts("2026-07-29"));
        assert!(matches!(other, Some(Cow::Owned(version)) if version == "2026-07-29"));
        assert_eq!(version(&hyper::Request::new(()).into_parts().0), None);
    }
}
