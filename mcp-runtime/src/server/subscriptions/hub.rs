//! The hub every listen stream registers with, and that every kind of notification is
//! published to: list changes, resource updates, and kinds an extension adds (keyed by a
//! filter field of its own, like the tasks extension's `taskIds`).
//!
//! Each listener has an owner, counted against a cap per owner and one in total; a bounded
//! queue (a listener whose client reads too slowly to keep up is closed, and its client
//! reconnects); and a guard that unregisters it when its stream ends, whichever way.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use serde_json::{Map, Value, json};
use tokio::sync::{mpsc, oneshot};

use crate::server::Owner;
use crate::server::outbound::MessageReceiver;

/// The `_meta` key tagging every message of a listen stream.
pub(crate) const META_SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

/// The bounds of listen streams, as the builder collects them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ListenLimits {
    pub(crate) per_owner: usize,
    pub(crate) total: usize,
    pub(crate) queue: usize,
}

/// What one listener asked for and was agreed. Extension fields are keyed by their filter
/// field's name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Filter {
    pub(crate) tools_list_changed: bool,
    pub(crate) prompts_list_changed: bool,
    pub(crate) resources_list_changed: bool,
    pub(crate) resource_uris: BTreeSet<String>,
    pub(crate) keyed: BTreeMap<&'static str, BTreeSet<String>>,
    /// Per extension field, the scope of the caller it was agreed for (the tasks extension's:
    /// a digest of the subject): a keyed notification reaches only listeners of its scope.
    pub(crate) scopes: BTreeMap<&'static str, Option<String>>,
}

impl Filter {
    fn wants(&self, topic: &Topic<'_>) -> bool {
        match topic {
            Topic::ToolsListChanged => self.tools_list_changed,
            Topic::PromptsListChanged => self.prompts_list_changed,
            Topic::ResourcesListChanged => self.resources_list_changed,
            Topic::ResourceUpdated(uri) => self.resource_uris.contains(*uri),
            Topic::Keyed { field, key, scope } => {
                self.keyed
                    .get(field)
                    .is_some_and(|keys| keys.contains(*key))
                    && self
                        .scopes
                        .get(field)
                        .is_some_and(|agreed| agreed.as_deref() == *scope)
            }
        }
    }

    /// The filter as the acknowledgment states it: only what was agreed.
    pub(crate) fn to_json(&self) -> Value {
        let mut object = Map::new();
        for (name, on) in [
            ("toolsListChanged", self.tools_list_changed),
            ("promptsListChanged", self.prompts_list_changed),
            ("resourcesListChanged", self.resources_list_changed),
        ] {
            if on {
                object.insert(name.to_owned(), Value::Bool(true));
            }
        }
        if !self.resource_uris.is_empty() {
            object.insert(
                "resourceSubscriptions".to_owned(),
                json!(self.resource_uris),
            );
        }
        for (field, keys) in &self.keyed {
            object.insert((*field).to_owned(), json!(keys));
        }
        Value::Object(object)
    }
}

/// What a notification is about, which decides the listeners it goes to.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Topic<'a> {
    ToolsListChanged,
    PromptsListChanged,
    ResourcesListChanged,
    ResourceUpdated(&'a str),
    /// A kind an extension adds: listeners whose filter field `field` holds `key`, agreed for
    /// callers of `scope`.
    Keyed {
        field: &'static str,
        key: &'a str,
        scope: Option<&'a str>,
    },
}

/// Why a listener ended, other than its client going away.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    /// The server closed it (shutting down): it gets its graceful response.
    Closed,
    /// Its client did not read fast enough: its stream ends without a response, as a
    /// transport drop would, so that the client reconnects.
    Lagged,
}

/// A listen stream refused at a cap.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refused {
    Owner(usize),
    Total(usize),
}

#[derive(Default)]
struct Listeners {
    next: u64,
    by_key: HashMap<u64, Listener>,
    owners: HashMap<Owner, usize>,
}

impl Listeners {
    /// Takes listener `key` out, giving its owner's place back.
    fn remove(&mut self, key: u64) -> Option<Listener> {
        let listener = self.by_key.remove(&key)?;
        if let Some(held) = self.owners.get_mut(&listener.owner) {
            *held -= 1;
            if *held == 0 {
                self.owners.remove(&listener.owner);
            }
        }
        Some(listener)
    }
}

struct Listener {
    owner: Owner,
    id: Value,
    filter: Filter,
    sender: mpsc::Sender<Value>,
    end: oneshot::Sender<End>,
}

/// The listen streams of one server.
pub(crate) struct Hub {
    limits: ListenLimits,
    listeners: Arc<Mutex<Listeners>>,
}

/// A listener just registered: its messages (the acknowledgment first), how it ends, and its
/// registration, which unregisters it when dropped.
pub(crate) struct Listening {
    pub(crate) messages: MessageReceiver,
    pub(crate) ended: oneshot::Receiver<End>,
    pub(crate) guard: ListenGuard,
}

/// A listener's registration; dropping it (the stream ended) unregisters the listener.
pub(crate) struct ListenGuard {
    listeners: Arc<Mutex<Listeners>>,
    key: u64,
}

impl Drop for ListenGuard {
    fn drop(&mut self) {
        lock(&self.listeners).remove(self.key);
    }
}

fn lock(listeners: &Mutex<Listeners>) -> std::sync::MutexGuard<'_, Listeners> {
    // Each critical section leaves the maps consistent.
    listeners.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    pub(crate) fn new(limits: ListenLimits) -> Self {
        Self {
            limits,
            listeners: Arc::default(),
        }
    }

    /// Registers a listener of `owner` for the subscription `id` with the agreed `filter`,
    /// unless a cap is reached. Its acknowledgment is its first message: queued before the
    /// listener can receive anything else.
    pub(crate) fn open(
        &self,
        owner: Owner,
        id: Value,
        filter: Filter,
    ) -> Result<Listening, Refused> {
        let mut listeners = lock(&self.listeners);
        if listeners.by_key.len() >= self.limits.total {
            return Err(Refused::Total(self.limits.total));
        }
        let held = listeners.owners.get(&owner).copied().unwrap_or(0);
        if held >= self.limits.per_owner {
            return Err(Refused::Owner(self.limits.per_owner));
        }
        let (sender, receiver) = mpsc::channel(self.limits.queue.max(1));
        let mut params = Map::new();
        params.insert("notifications".to_owned(), filter.to_json());
        let ack = tagged(
            &id,
            crate::protocol::method::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            params,
        );
        sender.try_send(ack).expect("a new queue has room");
        let (end, ended) = oneshot::channel();
        let key = listeners.next;
        listeners.next += 1;
        *listeners.owners.entry(owner.clone()).or_insert(0) += 1;
        listeners.by_key.insert(
            key,
            Listener {
                owner,
                id,
                filter,
                sender,
                end,
            },
        );
        drop(listeners);
        Ok(Listening {
            messages: MessageReceiver::bounded(receiver),
            ended,
            guard: ListenGuard {
                listeners: Arc::clone(&self.listeners),
                key,
            },
        })
    }

    /// Sends the notification `method` with `params` to every listener whose filter wants
    /// `topic`, tagged with its subscription id; how many got it. A listener whose queue is
    /// full is closed ([`End::Lagged`]).
    pub(crate) fn publish(
        &self,
        topic: Topic<'_>,
        method: &str,
        params: &Map<String, Value>,
    ) -> usize {
        let mut listeners = lock(&self.listeners);
        let mut lagged = Vec::new();
        let mut sent = 0;
        for (key, listener) in &listeners.by_key {
            if !listener.filter.wants(&topic) {
                continue;
            }
            match listener
                .sender
                .try_send(tagged(&listener.id, method, params.clone()))
            {
                Ok(()) => sent += 1,
                Err(mpsc::error::TrySendError::Full(_)) => lagged.push(*key),
                // The stream is ending; its guard unregisters it.
                Err(mpsc::error::TrySendError::Closed(_)) => {}
            }
        }
        for key in lagged {
            if let Some(listener) = listeners.remove(key) {
                tracing::debug!("a listen stream fell behind and was closed");
                let _ = listener.end.send(End::Lagged);
            }
        }
        sent
    }

    /// Ends every listener gracefully (the server is shutting down): each gets the response
    /// to its `subscriptions/listen` after the messages already queued.
    pub(crate) fn close_all(&self) {
        let mut listeners = lock(&self.listeners);
        let keys: Vec<u64> = listeners.by_key.keys().copied().collect();
        for key in keys {
            if let Some(listener) = listeners.remove(key) {
                let _ = listener.end.send(End::Closed);
            }
        }
    }

    /// How many listeners are registered.
    pub(crate) fn len(&self) -> usize {
        lock(&self.listeners).by_key.len()
    }
}

/// A notification of the subscription `id`: `params` with the id in `_meta`.
fn tagged(id: &Value, method: &str, mut params: Map<String, Value>) -> Value {
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert(META_SUBSCRIPTION_ID.to_owned(), id.clone());
    }
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hub(per_owner: usize, total: usize, queue: usize) -> Hub {
        Hub::new(ListenLimits {
            per_owner,
            total,
            queue,
        })
    }

    fn tools_only() -> Filter {
        Filter {
            tools_list_changed: true,
            ..Filter::default()
        }
    }

    #[test]
    fn the_acknowledgment_comes_first_and_only_wanted_topics_follow() {
        let hub = hub(4, 4, 8);
        let mut uris = Filter::default();
        uris.resource_uris.insert("a://1".to_owned());
        let mut first = hub.open(Owner::Unknown, json!(1), tools_only()).unwrap();
        let mut second = hub.open(Owner::Unknown, json!("two"), uris).unwrap();
        let ack = first.messages.try_recv().unwrap();
        assert_eq!(ack["method"], "notifications/subscriptions/acknowledged");
        assert_eq!(ack["params"]["_meta"][META_SUBSCRIPTION_ID], 1);
        assert_eq!(
            ack["params"]["notifications"],
            json!({ "toolsListChanged": true })
        );
        let ack = second.messages.try_recv().unwrap();
        assert_eq!(
            ack["params"]["notifications"],
            json!({ "resourceSubscriptions": ["a://1"] })
        );
        let none = Map::new();
        assert_eq!(hub.publish(Topic::ToolsListChanged, "t", &none), 1);
        assert_eq!(hub.publish(Topic::PromptsListChanged, "p", &none), 0);
        let mut uri = Map::new();
        uri.insert("uri".to_owned(), json!("a://1"));
        assert_eq!(hub.publish(Topic::ResourceUpdated("a://1"), "u", &uri), 1);
        assert_eq!(hub.publish(Topic::ResourceUpdated("a://2"), "u", &uri), 0);
        assert_eq!(first.messages.try_recv().unwrap()["method"], "t");
        assert!(first.messages.try_recv().is_none());
        let updated = second.messages.try_recv().unwrap();
        assert_eq!(updated["params"]["uri"], "a://1");
        assert_eq!(updated["params"]["_meta"][META_SUBSCRIPTION_ID], "two");
    }

    #[test]
    fn caps_per_owner_and_in_total_refuse_and_a_dropped_guard_frees_its_place() {
        let hub = hub(1, 2, 8);
        let alice = Owner::Subject(Arc::from("alice"));
        let bob = Owner::Subject(Arc::from("bob"));
        let held = hub.open(alice.clone(), json!(1), tools_only()).unwrap();
        assert_eq!(
            hub.open(alice.clone(), json!(2), tools_only()).err(),
            Some(Refused::Owner(1))
        );
        let _bob = hub.open(bob, json!(1), tools_only()).unwrap();
        assert_eq!(
            hub.open(Owner::Unknown, json!(1), tools_only()).err(),
            Some(Refused::Total(2))
        );
        drop(held);
        assert_eq!(hub.len(), 1);
        assert!(hub.open(alice, json!(3), tools_only()).is_ok());
    }

    #[test]
    fn a_listener_that_falls_behind_is_closed_and_close_all_ends_the_rest_gracefully() {
        let hub = hub(4, 4, 2);
        let mut slow = hub.open(Owner::Unknown, json!(1), tools_only()).unwrap();
        let mut other = hub
            .open(Owner::Unknown, json!(2), Filter::default())
            .unwrap();
        let none = Map::new();
        // The acknowledgment fills one place of two.
        assert_eq!(hub.publish(Topic::ToolsListChanged, "t", &none), 1);
        assert_eq!(hub.publish(Topic::ToolsListChanged, "t", &none), 0);
        assert_eq!(slow.ended.try_recv(), Ok(End::Lagged));
        assert_eq!(hub.len(), 1);
        hub.close_all();
        assert_eq!(other.ended.try_recv(), Ok(End::Closed));
        assert_eq!(hub.len(), 0);
        drop(other.guard);
        drop(slow.guard);
        assert_eq!(hub.len(), 0);
    }

    #[test]
    fn keyed_topics_reach_listeners_holding_the_key() {
        let hub = hub(4, 4, 8);
        let mut filter = Filter::default();
        filter
            .keyed
            .insert("taskIds", BTreeSet::from(["t-1".to_owned()]));
        filter.scopes.insert("taskIds", Some("alice".to_owned()));
        let mut listening = hub.open(Owner::Unknown, json!(7), filter).unwrap();
        let ack = listening.messages.try_recv().unwrap();
        assert_eq!(
            ack["params"]["notifications"],
            json!({ "taskIds": ["t-1"] })
        );
        let none = Map::new();
        let topic = |key, scope| Topic::Keyed {
            field: "taskIds",
            key,
            scope,
        };
        let publish = |key, scope| hub.publish(topic(key, scope), "notifications/tasks", &none);
        assert_eq!(publish("t-2", Some("alice")), 0);
        // Another caller's task of the same id reaches no listener of alice's.
        assert_eq!(publish("t-1", Some("bob")), 0);
        assert_eq!(publish("t-1", None), 0);
        assert_eq!(publish("t-1", Some("alice")), 1);
    }
}
