//! `subscriptions/listen` as dispatch routes it: what the registry offers now, who the
//! caller is, and the stream the [`subscriptions`](super::subscriptions) hub opens for it.

use serde_json::{Map, Value};

use super::error::RpcError;
use super::registry::Snapshot;
use super::subscriptions::Offer;
use super::{Handling, Owner, RequestFacts, Server};

/// A stream of the announcements the client asks for, which the server agrees to as it is
/// now. Over HTTP the client must accept an event stream (`406` otherwise).
pub(super) fn listen(
    server: &Server,
    id: &Value,
    params: &Map<String, Value>,
    facts: &RequestFacts,
    snapshot: &Snapshot,
) -> Result<Handling, RpcError> {
    if let Some(headers) = facts.headers.as_deref().filter(|_| facts.http)
        && !crate::transport::accepts_event_stream(headers)
    {
        return Err(RpcError::not_acceptable(
            "`subscriptions/listen` answers with an event stream: `Accept` must include \
             `text/event-stream`",
        ));
    }
    if server.inner.tasks.is_some() {
        super::tasks::check_listen(params)?;
    }
    let offered = snapshot.offered;
    let serves = |uri: &str| snapshot.serves(uri);
    let offer = Offer {
        tools: offered.tools,
        prompts: offered.prompts,
        resources: offered.resources,
        serves: &serves,
        subject: facts.subject.as_deref(),
        server_info: server.inner.context.server_info(),
    };
    let owner = Owner::of(facts.subject.as_deref(), facts.peer);
    let closed = facts.connection.as_ref().map(|c| c.closed());
    let (messages, outcome) =
        server
            .inner
            .subscriptions
            .listen(id.clone(), params, &offer, owner, closed)?;
    Ok(Handling {
        messages: Some(messages),
        outcome,
    })
}
