//! A legacy round's question as it goes out on the call's stream: the server-to-client request
//! with its `jsonrpc` and `id`.
//!
//! Every member is written in sorted order, at every level, as it was when the request was
//! built as a `serde_json::Value` (whose maps sort their keys) and then written. A form
//! question whose schema lives for the whole program (a form type's) is written straight as
//! text: its schema's text is made once and kept; other questions are still built as a value,
//! and so is every question in a build whose maps keep their keys in insertion order
//! (`serde_json`'s `preserve_order`), whose text the value's order decides.

use std::borrow::Cow;
use std::sync::{PoisonError, RwLock};

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestedSchema, FormModeTag, InputRequest,
    method,
};
use crate::server::outbound::Message;
use crate::server::outcome::maps_sort_keys;

/// The most schemas whose text is kept: more than a server has form types. Past it, the
/// schemas not yet kept are written each time they are asked.
const MAX_KEPT_SCHEMAS: usize = 64;

/// The text of schemas that live for the whole program, by address: such a schema never
/// changes and no other value ever takes its place.
static SCHEMAS: RwLock<Vec<(usize, Box<RawValue>)>> = RwLock::new(Vec::new());

/// `request` as the JSON-RPC request `id` of a legacy session.
pub(super) fn message(id: u64, request: &InputRequest) -> serde_json::Result<Message> {
    if let InputRequest::Elicit(ElicitRequestParams::Form(params)) = request
        && let Cow::Borrowed(schema) = params.requested_schema
        && maps_sort_keys()
    {
        return with_schema_text(schema, |schema| form_text(id, params, schema)).map(Message::Text);
    }
    let mut message = serde_json::to_value(request)?;
    message["jsonrpc"] = Value::from("2.0");
    message["id"] = Value::from(id);
    Ok(Message::Value(message))
}

/// A form question whose schema's text is `schema`.
fn form_text(id: u64, params: &ElicitRequestFormParams, schema: &RawValue) -> Vec<u8> {
    // Every member named, so that a member added to the parameters is not left out here.
    let ElicitRequestFormParams {
        mode,
        message,
        requested_schema: _,
    } = params;
    let question = Question {
        id,
        jsonrpc: "2.0",
        method: method::ELICITATION_CREATE,
        params: FormParams {
            message,
            mode: mode.as_ref(),
            requested_schema: schema,
        },
    };
    let mut text = Vec::with_capacity(schema.get().len() + message.len() + 96);
    // Strings, integers and JSON text already checked: writing them into memory cannot fail.
    let _ = serde_json::to_writer(&mut text, &question);
    text
}

/// `elicitation/create` with its members in sorted order.
#[derive(Serialize)]
struct Question<'a> {
    id: u64,
    jsonrpc: &'static str,
    method: &'static str,
    params: FormParams<'a>,
}

/// Its `params`, in sorted order too.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct FormParams<'a> {
    message: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    mode: Option<&'a FormModeTag>,
    requested_schema: &'a RawValue,
}

/// Runs `write` with the text of `schema`, its members sorted, made on its first use.
fn with_schema_text<R>(
    schema: &'static ElicitRequestedSchema,
    write: impl FnOnce(&RawValue) -> R,
) -> serde_json::Result<R> {
    let address = std::ptr::from_ref(schema) as usize;
    let find = |kept: &[(usize, Box<RawValue>)]| kept.iter().position(|(kept, _)| *kept == address);
    {
        let kept = SCHEMAS.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(at) = find(&kept) {
            return Ok(write(&kept[at].1));
        }
    }
    // Through a value, whose maps sort their keys.
    let text = serde_json::value::to_raw_value(&serde_json::to_value(schema)?)?;
    let mut kept = SCHEMAS.write().unwrap_or_else(PoisonError::into_inner);
    if let Some(at) = find(&kept) {
        return Ok(write(&kept[at].1));
    }
    if kept.len() < MAX_KEPT_SCHEMAS {
        kept.push((address, text));
        return Ok(write(&kept[kept.len() - 1].1));
    }
    drop(kept);
    Ok(write(&text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ElicitRequestUrlParams;

    /// The question as it went out when every question was built as a value.
    fn through_a_value(id: u64, request: &InputRequest) -> Vec<u8> {
        let mut message = serde_json::to_value(request).unwrap();
        message["jsonrpc"] = Value::from("2.0");
        message["id"] = Value::from(id);
        serde_json::to_vec(&message).unwrap()
    }

    /// The message's text; a form with a schema of its type is written as text unless maps
    /// keep their keys in insertion order.
    fn text(message: Message) -> Vec<u8> {
        assert_eq!(matches!(message, Message::Text(_)), maps_sort_keys());
        message.into_text()
    }

    /// A schema with a field of every kind, in an order that is not sorted.
    fn every_kind() -> &'static ElicitRequestedSchema {
        let schema = serde_json::json!({
            "type": "object",
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "properties": {
                "zone": {"type": "string", "title": "Zone", "minLength": 1, "maxLength": 20,
                         "format": "email", "default": "a@b.c", "description": "é \"q\"\n\u{1}"},
                "count": {"type": "integer", "minimum": -3, "maximum": 1e3, "default": 2},
                "ratio": {"type": "number", "default": 0.5},
                "ok": {"type": "boolean", "default": true},
                "plain": {"type": "string", "enum": ["b", "a"], "default": "a"},
                "titled": {"type": "string", "oneOf": [{"const": "x", "title": "X"}]},
                "many": {"type": "array", "minItems": 1, "maxItems": 2,
                         "items": {"type": "string", "enum": ["p", "q"]}, "default": ["p"]},
                "picks": {"type": "array", "items": {"anyOf": [{"const": "y", "title": "Y"}]}},
                "old": {"type": "string", "enum": ["m"], "enumNames": ["M"]}
            },
            "required": ["zone", "count"]
        });
        Box::leak(Box::new(serde_json::from_value(schema).unwrap()))
    }

    #[test]
    fn a_form_of_a_types_schema_is_written_as_it_was_through_a_value() {
        let schema = every_kind();
        for (id, message, mode) in [
            (0, "Where to?", Some(FormModeTag)),
            (
                u64::MAX,
                "é \"quoted\" \\ \n\t\u{7f}\u{1f600}",
                Some(FormModeTag),
            ),
            (7, "", None),
        ] {
            let mut params = ElicitRequestFormParams::with_static_schema(message, schema);
            params.mode = mode;
            let request = InputRequest::Elicit(ElicitRequestParams::Form(params));
            // The first time makes the schema's text, the second reads it as kept.
            for _ in 0..2 {
                let written = text(super::message(id, &request).unwrap());
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    String::from_utf8(through_a_value(id, &request)).unwrap()
                );
            }
        }
    }

    #[test]
    fn two_schemas_keep_their_own_text() {
        let first = every_kind();
        let second: &'static ElicitRequestedSchema = Box::leak(Box::new(
            serde_json::from_value(serde_json::json!({
                "type": "object",
                "properties": {"ok": {"type": "boolean", "description": "Go ahead?"}},
                "required": ["ok"]
            }))
            .unwrap(),
        ));
        for schema in [first, second, first, second] {
            let params = ElicitRequestFormParams::with_static_schema("Sure?", schema);
            let request = InputRequest::Elicit(ElicitRequestParams::Form(params));
            assert_eq!(
                text(super::message(3, &request).unwrap()),
                through_a_value(3, &request)
            );
        }
    }

    #[test]
    fn other_questions_are_built_as_values() {
        let owned = ElicitRequestFormParams::new("Owned?", (*every_kind()).clone());
        let url = ElicitRequestUrlParams::new("Sign in", "https://example.com/a");
        for request in [
            InputRequest::Elicit(ElicitRequestParams::Form(owned)),
            InputRequest::Elicit(ElicitRequestParams::Url(url)),
            InputRequest::ListRoots(None),
        ] {
            let Message::Value(value) = super::message(9, &request).unwrap() else {
                panic!("{request:?} is built as a value");
            };
            assert_eq!(
                serde_json::to_vec(&value).unwrap(),
                through_a_value(9, &request)
            );
        }
    }
}
