//! `subscriptions/listen`: the filter a client asks for, the part of it the server agrees
//! to, and the long-lived answer that carries the stream.

use std::collections::BTreeSet;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tokio::sync::watch;

use super::hub::{End, Filter, Hub, META_SUBSCRIPTION_ID, Refused};
use crate::server::error::RpcError;
use crate::server::handler::BoxFuture;
use crate::server::outbound::MessageReceiver;
use crate::server::{Outcome, Owner};

/// The longest resource URI a listener may subscribe to, in bytes: 4 KiB.
pub(crate) const MAX_LISTENED_URI: usize = 4 * 1024;

/// Whether the caller (by subject) may follow a key of an extension's filter field.
pub(crate) type AgreeHook = dyn Fn(Option<&str>, &str) -> bool + Send + Sync;

/// The scope a caller's keys are agreed in (by subject): its notifications reach it only.
pub(crate) type ScopeHook = dyn Fn(Option<&str>) -> Option<String> + Send + Sync;

/// A filter field an extension adds to `subscriptions/listen` (the tasks extension's
/// `taskIds`): an array of keys, at most `max` of them, each agreed by `agree` (given the
/// caller's subject) or left out of the acknowledgment.
#[derive(Clone)]
pub(crate) struct KeyedField {
    pub(crate) name: &'static str,
    pub(crate) max: usize,
    pub(crate) agree: Arc<AgreeHook>,
    pub(crate) scope: Arc<ScopeHook>,
}

/// What the server can honour at the time of a listen request.
pub(crate) struct Offer<'a> {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
    /// Whether an enabled resource or template serves a URI.
    pub(crate) serves: &'a dyn Fn(&str) -> bool,
    /// The caller's subject, for extension fields' hooks.
    pub(crate) subject: Option<&'a str>,
    /// The server's identity, for the `_meta` of the stream's last response.
    pub(crate) server_info: Option<&'a crate::protocol::Implementation>,
}

/// The filter the server agrees to: each type asked for that the server offers, and the
/// subscribed URIs it serves, and the keys of each extension field in `fields` its hook agrees
/// to. Asking for more than `max_uris` URIs (or a field's cap of keys), or a URI over
/// [`MAX_LISTENED_URI`], is `-32602`; a URI no resource serves is left out.
pub(crate) fn agree(
    params: &Map<String, Value>,
    offer: &Offer<'_>,
    max_uris: usize,
    fields: &[KeyedField],
) -> Result<Filter, RpcError> {
    let Some(Value::Object(asked)) = params.get("notifications") else {
        return Err(RpcError::invalid_params(
            "`subscriptions/listen` needs a `notifications` object naming what to receive",
        ));
    };
    let flag = |name: &str| -> Result<bool, RpcError> {
        match asked.get(name) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(on)) => Ok(*on),
            Some(_) => Err(RpcError::invalid_params(format!(
                "`notifications.{name}` must be a boolean"
            ))),
        }
    };
    let mut filter = Filter {
        tools_list_changed: flag("toolsListChanged")? && offer.tools,
        prompts_list_changed: flag("promptsListChanged")? && offer.prompts,
        resources_list_changed: flag("resourcesListChanged")? && offer.resources,
        ..Filter::default()
    };
    let uris = strings(asked, "resourceSubscriptions", max_uris)?;
    if let Some(long) = uris.iter().find(|uri| uri.len() > MAX_LISTENED_URI) {
        return Err(RpcError::invalid_params(format!(
            "a subscribed URI takes at most {MAX_LISTENED_URI} bytes; `{}…` is longer",
            long.chars().take(40).collect::<String>()
        )));
    }
    filter.resource_uris = uris
        .into_iter()
        .filter(|uri| offer.resources && (offer.serves)(uri))
        .collect();
    for field in fields {
        let keys: BTreeSet<String> = strings(asked, field.name, field.max)?
            .into_iter()
            .filter(|key| (field.agree)(offer.subject, key))
            .collect();
        if !keys.is_empty() {
            filter.keyed.insert(field.name, keys);
            filter
                .scopes
                .insert(field.name, (field.scope)(offer.subject));
        }
    }
    Ok(filter)
}

/// The strings of the array `name` of `asked`, at most `max` of them.
fn strings(asked: &Map<String, Value>, name: &str, max: usize) -> Result<Vec<String>, RpcError> {
    let items = match asked.get(name) {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(items)) => items,
        Some(_) => {
            return Err(RpcError::invalid_params(format!(
                "`notifications.{name}` must be an array of strings"
            )));
        }
    };
    if items.len() > max {
        return Err(RpcError::invalid_params(format!(
            "`notifications.{name}` names at most {max} items on one stream; it has {}",
            items.len()
        )));
    }
    items
        .iter()
        .map(|item| match item {
            Value::String(text) => Ok(text.clone()),
            _ => Err(RpcError::invalid_params(format!(
                "`notifications.{name}` must be an array of strings"
            ))),
        })
        .collect()
}

/// Opens the listen stream `id` of `owner` with the agreed `filter`: its messages, and its
/// answer, which comes only when the server closes the stream (the graceful response), and
/// never when the client goes away, the stream falls behind, or `closed` (a stdio
/// connection's end) turns true.
pub(crate) fn open(
    hub: &Hub,
    id: Value,
    filter: Filter,
    owner: Owner,
    closed: Option<watch::Receiver<bool>>,
    server_info: Option<crate::protocol::Implementation>,
) -> Result<(MessageReceiver, BoxFuture<'static, Outcome>), RpcError> {
    let listening = hub
        .open(owner, id.clone(), filter)
        .map_err(|refused| match refused {
            Refused::Owner(max) => RpcError::too_many(format!(
                "this client holds {max} listen streams, its most at once; close one first"
            )),
            Refused::Total(max) => RpcError::overloaded(format!(
                "the server holds {max} listen streams, its most at once; retry later"
            )),
        })?;
    let guard = listening.guard;
    let ended = listening.ended;
    let outcome = async move {
        let _guard = guard;
        let transport_closed = async move {
            match closed {
                Some(mut closed) => {
                    let _ = closed.wait_for(|closed| *closed).await;
                }
                None => std::future::pending().await,
            }
        };
        let end = tokio::select! {
            end = ended => end.unwrap_or(End::Lagged),
            () = transport_closed => End::Lagged,
        };
        match end {
            End::Closed => graceful(&id, server_info.as_ref()),
            End::Lagged => Outcome::cancelled(),
        }
    };
    Ok((listening.messages, Box::pin(outcome)))
}

/// The response that ends a listen stream the server closes.
fn graceful(id: &Value, server_info: Option<&crate::protocol::Implementation>) -> Outcome {
    let mut result = json!({
        "resultType": "complete",
        "_meta": { META_SUBSCRIPTION_ID: id },
    });
    if let Some(info) = server_info {
        crate::server::context::stamp_value(&mut result, info);
    }
    let response = json!({ "jsonrpc": "2.0", "id": id, "result": result });
    Outcome::answer(
        200,
        serde_json::to_vec(&response).expect("a JSON value serialises"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(serves: &dyn Fn(&str) -> bool) -> Offer<'_> {
        Offer {
            tools: true,
            prompts: false,
            resources: true,
            serves,
            subject: Some("alice"),
            server_info: None,
        }
    }

    fn params(notifications: Value) -> Map<String, Value> {
        json!({ "notifications": notifications })
            .as_object()
            .cloned()
            .unwrap()
    }

    #[test]
    fn the_agreed_filter_drops_what_the_server_does_not_offer() {
        let serves = |uri: &str| uri.starts_with("a://");
        let asked = params(json!({
            "toolsListChanged": true,
            "promptsListChanged": true,
            "resourcesListChanged": false,
            "resourceSubscriptions": ["a://1", "b://2"],
            "unknownField": true,
        }));
        let filter = agree(&asked, &offer(&serves), 2, &[]).unwrap();
        assert_eq!(
            filter.to_json(),
            json!({ "toolsListChanged": true, "resourceSubscriptions": ["a://1"] })
        );
    }

    #[test]
    fn malformed_or_oversized_filters_are_invalid_params() {
        let serves = |_: &str| true;
        let offer = offer(&serves);
        for bad in [
            json!({ "toolsListChanged": 1 }),
            json!({ "resourceSubscriptions": "a://1" }),
            json!({ "resourceSubscriptions": [1] }),
            json!({ "resourceSubscriptions": ["a", "b", "c"] }),
            json!({ "resourceSubscriptions": ["x".repeat(MAX_LISTENED_URI + 1)] }),
        ] {
            let error = agree(&params(bad.clone()), &offer, 2, &[]).unwrap_err();
            assert_eq!(error.code(), -32602, "{bad}");
        }
        let error = agree(&Map::new(), &offer, 2, &[]).unwrap_err();
        assert!(error.error.message.contains("`notifications`"));
    }

    #[test]
    fn extension_fields_keep_the_keys_their_hook_agrees_to() {
        let serves = |_: &str| true;
        let fields = [KeyedField {
            name: "taskIds",
            max: 4,
            agree: Arc::new(|subject, key| subject == Some("alice") && key.starts_with("mine")),
            scope: Arc::new(|subject| subject.map(str::to_uppercase)),
        }];
        let asked = params(json!({ "taskIds": ["mine-1", "theirs-2"] }));
        let filter = agree(&asked, &offer(&serves), 2, &fields).unwrap();
        assert_eq!(filter.to_json(), json!({ "taskIds": ["mine-1"] }));
        assert_eq!(filter.scopes["taskIds"].as_deref(), Some("ALICE"));
    }
}
