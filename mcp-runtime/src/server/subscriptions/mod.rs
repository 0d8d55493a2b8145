//! Listen streams (`subscriptions/listen`, revision 2026-07-28) and the announcements they
//! carry, which also reach legacy sessions the older way.
//!
//! The [`Hub`] holds every open stream with the filter its client was agreed; anything that
//! has news publishes a [`Topic`] to it (list changes from the registry, resource updates
//! from handlers and the application, and kinds an extension adds under a filter field of its
//! own). [`announce`] is the one door for the standard kinds: it reaches listeners and legacy
//! sessions alike.
//!
//! For an extension (a kind of notification with a filter field of its own, like the tasks
//! extension's `notifications/tasks` under `taskIds`): register the field with
//! [`Subscriptions::accept_field`] when the server is built, so that listen requests naming it
//! get the keys the hook agrees to in their acknowledgment, then publish with
//! `Topic::Keyed { field, key, scope }` through [`Subscriptions::hub`]: a keyed notification
//! reaches only listeners whose caller the field's scope hook put in the same scope.

mod hub;
mod listen;

use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::watch;

pub(crate) use hub::{Hub, ListenLimits, Topic};
pub(crate) use listen::{KeyedField, Offer};

use super::error::RpcError;
use super::handler::BoxFuture;
use super::outbound::MessageReceiver;
use super::session::Sessions;
use super::{Outcome, Owner};
use crate::protocol::method;

/// The most listen streams one owner holds at once by default: 8. Over HTTP each also holds
/// one of the owner's requests in flight.
pub const DEFAULT_MAX_LISTENERS_PER_OWNER: usize = 8;

/// The most listen streams the server holds at once by default: 128, half the requests the
/// HTTP transport handles at once by default, so that calls keep room.
pub const DEFAULT_MAX_LISTENERS: usize = 128;

/// How many notifications may wait for one listen stream's client to read them: 256. A
/// client that falls further behind loses its stream (without the graceful response, so that
/// it reconnects and lists again).
pub const LISTEN_QUEUE: usize = 256;

/// The listen streams of one server, and the extension fields their filters may name.
pub(crate) struct Subscriptions {
    hub: Hub,
    fields: Vec<KeyedField>,
    /// The most URIs one stream subscribes to.
    max_uris: usize,
}

impl Subscriptions {
    pub(crate) fn new(limits: ListenLimits, max_uris: usize) -> Self {
        Self {
            hub: Hub::new(limits),
            fields: Vec::new(),
            max_uris,
        }
    }

    /// Accepts the filter field `field`, each key of it agreed by `agree` (given the
    /// caller's subject); at most `max` keys per stream.
    pub(crate) fn accept_field(&mut self, field: KeyedField) {
        self.fields.retain(|known| known.name != field.name);
        self.fields.push(field);
    }

    /// The hub, to publish to.
    pub(crate) fn hub(&self) -> &Hub {
        &self.hub
    }

    /// Opens a listen stream for the request `id` with `params`, as `offer` allows.
    pub(crate) fn listen(
        &self,
        id: Value,
        params: &Map<String, Value>,
        offer: &Offer<'_>,
        owner: Owner,
        closed: Option<watch::Receiver<bool>>,
    ) -> Result<(MessageReceiver, BoxFuture<'static, Outcome>), RpcError> {
        let filter = listen::agree(params, offer, self.max_uris, &self.fields)?;
        let server_info = offer.server_info.cloned();
        listen::open(&self.hub, id, filter, owner, closed, server_info)
    }
}

/// A standard announcement.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Notice<'a> {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(&'a str),
}

/// Sends `notice` to the listen streams that asked for it and to legacy sessions: every
/// session for a list change, the subscribed ones for a resource update.
pub(crate) fn announce(subscriptions: &Subscriptions, sessions: &Sessions, notice: Notice<'_>) {
    let (topic, name, params) = match notice {
        Notice::ToolsListChanged => (
            Topic::ToolsListChanged,
            method::NOTIFICATION_TOOLS_LIST_CHANGED,
            Map::new(),
        ),
        Notice::PromptsListChanged => (
            Topic::PromptsListChanged,
            method::NOTIFICATION_PROMPTS_LIST_CHANGED,
            Map::new(),
        ),
        Notice::ResourcesListChanged => (
            Topic::ResourcesListChanged,
            method::NOTIFICATION_RESOURCES_LIST_CHANGED,
            Map::new(),
        ),
        Notice::ResourceUpdated(uri) => {
            let mut params = Map::new();
            params.insert("uri".to_owned(), Value::from(uri));
            (
                Topic::ResourceUpdated(uri),
                method::NOTIFICATION_RESOURCES_UPDATED,
                params,
            )
        }
    };
    subscriptions.hub.publish(topic, name, &params);
    let mut message = json!({ "jsonrpc": "2.0", "method": name });
    if !params.is_empty() {
        message["params"] = Value::Object(params);
    }
    for session in sessions.all() {
        let wanted = match notice {
            Notice::ResourceUpdated(uri) => session.is_subscribed(uri),
            _ => true,
        };
        if wanted {
            session.notify(&message);
        }
    }
}

/// An extension's filter field: at most `max` keys per stream, each agreed by `agree`, in the
/// caller's `scope`.
pub(crate) fn keyed_field(
    name: &'static str,
    max: usize,
    agree: impl Fn(Option<&str>, &str) -> bool + Send + Sync + 'static,
    scope: impl Fn(Option<&str>) -> Option<String> + Send + Sync + 'static,
) -> KeyedField {
    KeyedField {
        name,
        max,
        agree: Arc::new(agree),
        scope: Arc::new(scope),
    }
}
