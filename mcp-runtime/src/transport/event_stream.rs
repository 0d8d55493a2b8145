//! Answers as they go out: JSON, or an event stream (`text/event-stream`) carrying a
//! request's messages and then its response, or a legacy session's standalone messages.
//!
//! A request's stream holds the call's future: when the client closes the connection,
//! hyper drops the stream and with it the call, whose handler stops at its current await.
//!
//! hyper polls a response's body whenever it polls the connection: when a request arrives on
//! it, when the connection polls itself again (`repoll.rs`), for whatever woke its task. A
//! stream asks its call, its messages and its keep-alive timer only when one of them woke it
//! (its [`Gate`]): a legacy call waiting for its client's answer is not polled, its timers
//! and channels not looked at, each time its connection wakes for something else.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;

use super::reply::Reply;
use super::watchdog::Gate;

use crate::server::{BoxFuture, Message, MessageReceiver, Outcome};

/// The header naming a legacy session.
pub(super) static SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

/// A legacy session's standalone stream (`GET`): messages that belong to no request, until
/// the client goes away or the session ends.
pub(super) fn standalone_stream(
    guard: crate::server::StreamGuard,
    receiver: MessageReceiver,
) -> Response {
    let mut stream = EventStream::new(None, Some(receiver), None, spare_gate());
    stream._guard = Some(guard);
    event_stream_response(stream)
}

/// Answers JSON if the handler finishes first, or an event stream if it sends a message
/// (progress, a log message, a question for the client) first; the request's `slot` is held
/// until the stream ends. `headers` are the request's, shared with its call: a JSON answer's
/// are set in their room, and an event stream keeps them until the call is over, then their
/// room for the thread's next stream.
///
/// The call and its messages are polled with the gate of the stream from the start, so that
/// the stream asks neither again before one of them wakes it: a legacy call that has sent its
/// question is polled next when the answer comes.
pub(super) async fn respond_streaming(
    mut outcome: BoxFuture<'static, Outcome>,
    messages: MessageReceiver,
    slot: Option<super::limits::RequestSlot>,
    headers: Arc<HeaderMap>,
) -> Response<Reply> {
    let mut gate = spare_gate();
    let mut messages = Some(messages);
    let first = std::future::poll_fn(|cx| {
        let Some(waker) = gate.open(cx) else {
            return Poll::Pending;
        };
        let cx = &mut Context::from_waker(waker);
        if let Poll::Ready(finished) = outcome.as_mut().poll(cx) {
            return Poll::Ready(Err(finished));
        }
        // Once every sender is gone, the call ends with its answer alone.
        match messages.as_mut().map(|messages| messages.poll_message(cx)) {
            Some(Poll::Ready(Some(message))) => return Poll::Ready(Ok(message)),
            Some(Poll::Ready(None)) => messages = None,
            Some(Poll::Pending) | None => {}
        }
        Poll::Pending
    })
    .await;
    let first = match first {
        Ok(message) => message_event(message),
        Err(finished) => {
            drop((outcome, messages));
            keep_gate(gate);
            return json_response_in(finished, super::header_room::emptied(headers));
        }
    };
    // The messages sent with the first are taken, and the receiver left waiting with the
    // gate's waker: the stream need not ask it, nor the call, until one of them wakes.
    let mut ready = VecDeque::new();
    if let Some(receiver) = &mut messages {
        loop {
            match receiver.poll_message(&mut Context::from_waker(gate.waker())) {
                Poll::Ready(Some(message)) => ready.push_back(message_event(message)),
                Poll::Ready(None) => {
                    messages = None;
                    break;
                }
                Poll::Pending => break,
            }
        }
    }
    let mut stream = EventStream::new(Some(first), messages, Some(outcome), gate);
    stream.ready = ready;
    stream._slot = slot;
    stream.headers = Some(headers);
    event_stream_response(stream).map(Reply::from)
}

/// A gate for a stream: one this thread kept, if it did.
fn spare_gate() -> Gate {
    SPARE_GATES
        .try_with(|spare| spare.borrow_mut().pop())
        .ok()
        .flatten()
        .unwrap_or_else(Gate::new)
}

/// Keeps `gate` for the thread's next stream, if nothing else holds its waker (its stream's
/// call and messages are gone) and the thread keeps fewer than [`SPARE_GATES_KEPT`].
fn keep_gate(mut gate: Gate) {
    if !gate.renew() {
        return;
    }
    let _ = SPARE_GATES.try_with(|spare| {
        let mut spare = spare.borrow_mut();
        if spare.len() < SPARE_GATES_KEPT {
            spare.push(gate);
        }
    });
}

thread_local! {
    /// The room of a streamed request's headers, emptied once its call was over, for the next
    /// event stream's answer on this thread: hyper reads the connection's next request head
    /// into an answer's map, so a new map for each stream was one more map (two allocations)
    /// made and, with the request's, freed.
    static SPARE_MAP: Cell<Option<HeaderMap>> = const { Cell::new(None) };

    /// The gates of request streams whose calls were over, their wakers held by nothing else,
    /// for the next event streams on this thread: one allocation (and its freeing) fewer a
    /// stream.
    static SPARE_GATES: RefCell<Vec<Gate>> = const { RefCell::new(Vec::new()) };
}

/// How many emptied gates a thread keeps: as many as streams it may have open at once, for
/// a few.
const SPARE_GATES_KEPT: usize = 4;

fn event_stream_response(stream: EventStream) -> Response {
    let mut response = Response::new(Body::from_stream(stream));
    let headers = response.headers_mut();
    if let Some(spare) = SPARE_MAP.try_with(Cell::take).ok().flatten() {
        *headers = spare;
    }
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    response
}

/// `outcome` as a JSON answer, or a bodiless one.
pub(super) fn json_response(outcome: Outcome) -> Response<Reply> {
    json_response_in(outcome, HeaderMap::new())
}

/// [`json_response`], its headers set in `headers`, an empty map: given the room of the
/// request's own, the answer allocates no map, and hyper, which keeps an answer's map to read
/// the connection's next request head into, needs none for that head either.
pub(super) fn json_response_in(outcome: Outcome, mut headers: HeaderMap) -> Response<Reply> {
    let status = StatusCode::from_u16(outcome.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    if outcome.body.is_some() {
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    if let Some(session) = outcome.session_id
        && let Ok(value) = HeaderValue::from_str(&session)
    {
        headers.insert(&SESSION_ID, value);
    }
    if let Some(challenge) = outcome.challenge
        && let Ok(value) = HeaderValue::from_str(&challenge)
    {
        headers.insert(header::WWW_AUTHENTICATE, value);
    }
    // Dispatch answers `503` only for what passes with time (see `RpcError::overloaded`), and
    // `429` for a client at its own caps, so every one says when to try again, as the
    // concurrency cap's does.
    if status == StatusCode::SERVICE_UNAVAILABLE || status == StatusCode::TOO_MANY_REQUESTS {
        headers.insert(
            header::RETRY_AFTER,
            HeaderValue::from(super::guard::RETRY_AFTER_SECONDS),
        );
    }
    let mut response = Response::new(outcome.body.map_or(Reply::Whole(None), Reply::whole));
    *response.status_mut() = status;
    *response.headers_mut() = headers;
    response
}

/// How often an idle event stream sends a comment, so that proxies and clients with read
/// timeouts keep it open while the user thinks.
const KEEPALIVE: Duration = Duration::from_secs(15);

pin_project_lite::pin_project! {
    /// The comment of an idle stream: [`KEEPALIVE`] after the stream last sent something and
    /// had nothing more to send.
    ///
    /// Armed only when the stream goes idle, and pushed back only when it goes idle again after
    /// sending: a stream whose events follow one another (a question, then the answer) sets no
    /// timer per event, and one that ends without idling sets none at all. The timer lives in
    /// the stream, which the answer's body holds pinned: no allocation of its own.
    #[derive(Default)]
    struct Keepalive {
        #[pin]
        timer: Option<tokio::time::Sleep>,
        // Whether the stream sent something since the timer was last set.
        sent: bool,
    }
}

impl Keepalive {
    fn sent(self: Pin<&mut Self>) {
        *self.project().sent = true;
    }

    /// Whether the comment is due a period after the stream last sent something: set since.
    fn is_armed(&self) -> bool {
        self.timer.is_some() && !self.sent
    }

    /// Stops the comments: the stream has nothing left to wait for.
    fn stop(self: Pin<&mut Self>) {
        self.project().timer.set(None);
    }

    /// Polled when the stream has nothing to send: ready when it is time for a comment.
    fn poll_idle(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut this = self.project();
        match this.timer.as_mut().as_pin_mut() {
            None => this.timer.set(Some(tokio::time::sleep(KEEPALIVE))),
            Some(timer) if *this.sent => timer.reset(tokio::time::Instant::now() + KEEPALIVE),
            Some(_) => {}
        }
        *this.sent = false;
        if let Some(timer) = this.timer.as_pin_mut() {
            std::task::ready!(timer.poll(cx));
        }
        // The comment is sent: the next one is due a whole period after it.
        *this.sent = true;
        Poll::Ready(())
    }
}

pin_project_lite::pin_project! {
    /// The events of one stream: messages (progress, log messages, questions for the client),
    /// then the response (for a request's stream), then the end; a comment while idle.
    struct EventStream {
        // The next event to send: nearly always the only one ready.
        next: Option<Bytes>,
        // Events ready after `next`: messages a call left behind at its end, then its answer;
        // allocated only then.
        ready: VecDeque<Bytes>,
        messages: Option<MessageReceiver>,
        outcome: Option<BoxFuture<'static, Outcome>>,
        #[pin]
        keepalive: Keepalive,
        // Whether the messages, the outcome or the keep-alive woke the stream since it last
        // asked them; given back once a request's call is over (see `SPARE_GATES`).
        gate: Option<Gate>,
        // A standalone stream's registration with its session, dropped with the stream.
        _guard: Option<crate::server::StreamGuard>,
        // A request stream's slot among the requests handled at once, freed with the stream.
        _slot: Option<super::limits::RequestSlot>,
        // A request stream's request headers, shared with its call: once the call is over,
        // their room is kept for the thread's next stream (see `SPARE_MAP`).
        headers: Option<Arc<HeaderMap>>,
    }
}

/// An event carrying `data`, in a buffer of exactly its length: `Bytes` takes such a buffer
/// as it is, where a larger one costs it an allocation of its own.
fn event(data: &[u8]) -> Bytes {
    const HEAD: &[u8] = b"event: message\ndata: ";
    const TAIL: &[u8] = b"\n\n";
    let mut event = Vec::with_capacity(HEAD.len() + data.len() + TAIL.len());
    event.extend_from_slice(HEAD);
    event.extend_from_slice(data);
    event.extend_from_slice(TAIL);
    Bytes::from(event)
}

fn message_event(message: Message) -> Bytes {
    event(&message.into_text())
}

impl EventStream {
    /// A stream whose first event is `next`, if it has one, of `messages` and then, if there
    /// is one, `outcome`'s answer.
    fn new(
        next: Option<Bytes>,
        messages: Option<MessageReceiver>,
        outcome: Option<BoxFuture<'static, Outcome>>,
        gate: Gate,
    ) -> Self {
        Self {
            next,
            ready: VecDeque::new(),
            messages,
            outcome,
            keepalive: Keepalive::default(),
            gate: Some(gate),
            _guard: None,
            _slot: None,
            headers: None,
        }
    }
}

impl futures_core::Stream for EventStream {
    type Item = Result<Bytes, Infallible>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        loop {
            if let Some(ready) = this.next.take().or_else(|| this.ready.pop_front()) {
                this.keepalive.as_mut().sent();
                return Poll::Ready(Some(Ok(ready)));
            }
            let sources = this.outcome.is_some() || this.messages.is_some();
            // A request's stream ends after its call's answer (and has given its gate back
            // then), a standalone stream when its session stops sending.
            let Some(gate) = this.gate.as_mut().filter(|_| sources) else {
                return Poll::Ready(None);
            };
            // Nothing to send: the sources are asked only if one of them woke the stream
            // since they were last asked.
            if let Some(waker) = gate.open(cx) {
                let cx = &mut Context::from_waker(waker);
                if let Some(messages) = this.messages {
                    match messages.poll_message(cx) {
                        Poll::Ready(Some(message)) => {
                            // Nothing else is ready when messages are polled. More may be: the
                            // sources are asked again at the next poll, as no wake will say so.
                            *this.next = Some(message_event(message));
                            gate.reopen();
                            continue;
                        }
                        Poll::Ready(None) => *this.messages = None,
                        Poll::Pending => {}
                    }
                }
                if let Some(outcome) = this.outcome
                    && let Poll::Ready(finished) = outcome.as_mut().poll(cx)
                {
                    *this.outcome = None;
                    if let Some(headers) = this.headers.take()
                        && let Some(map) = super::header_room::take_emptied(headers)
                    {
                        let _ = SPARE_MAP.try_with(|spare| spare.set(Some(map)));
                    }
                    // Messages sent before the result go out before it.
                    if let Some(mut messages) = this.messages.take() {
                        while let Some(message) = messages.try_message() {
                            this.ready.push_back(message_event(message));
                        }
                    }
                    // A cancelled call has no answer: its stream just ends.
                    if let Some(body) = finished.body {
                        if this.ready.is_empty() {
                            *this.next = Some(event(&body));
                        } else {
                            this.ready.push_back(event(&body));
                        }
                    }
                    // Nothing is left to wait for: the keep-alive timer goes, and the gate, once
                    // nothing else holds its waker, is kept for the thread's next stream.
                    this.keepalive.as_mut().stop();
                    if let Some(gate) = this.gate.take() {
                        keep_gate(gate);
                    }
                    continue;
                }
                if this.messages.is_none() && this.outcome.is_none() {
                    continue;
                }
            } else if this.keepalive.is_armed() {
                return Poll::Pending;
            }
            // Idle: the keep-alive is armed, if the stream sent something since it was.
            let cx = &mut Context::from_waker(gate.waker());
            std::task::ready!(this.keepalive.as_mut().poll_idle(cx));
            return Poll::Ready(Some(Ok(Bytes::from_static(b": keep-alive\n\n"))));
        }
    }
}

#[cfg(test)]
mod tests;
