//! A legacy round's question as it goes out on the call's stream: the server-to-client request
//! with its `jsonrpc` and `id`.
//!
//! A form question is written straight as text, its members in the order the protocol's
//! types declare them, as the stateless era writes them, in every build: its fields in the
//! order its type declares them, which is the order `properties` promises the client will
//! show them. (Built as a `serde_json::Value` first, it would have its members sorted, the
//! fields too, unless a crate of the build turns on `preserve_order`.) A form whose schema
//! lives for the whole program (a form type's) reuses its schema's text, made once and kept
//! (`form_text.rs`, which the stateless era's `input_required` results write through too).
//! Other questions, whose order means nothing to a client and whose parameters may hold any
//! JSON the handler gave them (read back into a value by a receiver, past the depth a parse
//! allows), are built as values.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::protocol::{ElicitRequestFormParams, ElicitRequestParams, InputRequest};
use crate::server::form_text::{form_len, with_schema_text, write_form};
use crate::server::outbound::Message;

/// `request` as the JSON-RPC request `id` of a legacy session.
pub(super) fn message(id: u64, request: &InputRequest) -> serde_json::Result<Message> {
    let InputRequest::Elicit(ElicitRequestParams::Form(params)) = request else {
        let mut message = serde_json::to_value(request)?;
        message["jsonrpc"] = Value::from("2.0");
        message["id"] = Value::from(id);
        return Ok(Message::Value(message));
    };
    if let Cow::Borrowed(schema) = params.requested_schema {
        return with_schema_text(schema, |schema| form_text(id, params, schema)).map(Message::Text);
    }
    let mut text = Vec::with_capacity(256);
    serde_json::to_writer(
        &mut text,
        &Request {
            jsonrpc: "2.0",
            id,
            request,
        },
    )?;
    Ok(Message::Text(text))
}

/// A form question: the envelope's members, then the request's `method` and `params`.
#[derive(Serialize)]
struct Request<'a> {
    jsonrpc: &'static str,
    id: u64,
    #[serde(flatten)]
    request: &'a InputRequest,
}

/// A form question whose schema's text is `schema`: the same text [`Request`] writes.
fn form_text(id: u64, params: &ElicitRequestFormParams, schema: &RawValue) -> Vec<u8> {
    const HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;
    // The head, the longest id and its comma, and the form: one allocation.
    let mut text = Vec::with_capacity(HEAD.len() + 21 + form_len(params, schema));
    text.extend_from_slice(HEAD);
    // An integer: writing it into memory cannot fail.
    let _ = serde_json::to_writer(&mut text, &id);
    text.push(b',');
    write_form(&mut text, params, schema);
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ElicitRequestUrlParams, ElicitRequestedSchema, FormModeTag};

    /// The fields of [`every_kind`], in the order its schema declares them: not sorted.
    const DECLARED: [&str; 9] = [
        "zone", "count", "ratio", "ok", "plain", "titled", "many", "picks", "old",
    ];

    /// The message's text; a form question is written as text.
    fn text(message: Message) -> String {
        let Message::Text(text) = message else {
            panic!("a form question is written as text");
        };
        String::from_utf8(text).unwrap()
    }

    /// The same question written through a `Value`: the same members, whatever their order.
    fn through_a_value(id: u64, request: &InputRequest) -> Value {
        let mut message = serde_json::to_value(request).unwrap();
        message["jsonrpc"] = Value::from("2.0");
        message["id"] = Value::from(id);
        message
    }

    /// A schema with a field of every kind, declared in the order of [`DECLARED`].
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
        let mut schema: ElicitRequestedSchema = serde_json::from_value(schema).unwrap();
        // A `Value`'s map may have sorted them: put them in the declared order.
        schema
            .properties
            .sort_by_key(|(name, _)| DECLARED.iter().position(|declared| declared == name));
        Box::leak(Box::new(schema))
    }

    /// Where each of `names` first appears in `text`.
    fn positions(text: &str, names: &[&str]) -> Vec<usize> {
        names
            .iter()
            .map(|name| text.find(&format!("\"{name}\":")).unwrap())
            .collect()
    }

    #[test]
    fn a_forms_fields_go_out_in_the_order_its_type_declares_them() {
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
            let mut kept = ElicitRequestFormParams::with_static_schema(message, schema);
            kept.mode = mode;
            let mut owned = ElicitRequestFormParams::new(message, schema.clone());
            owned.mode = mode;
            let kept = InputRequest::Elicit(ElicitRequestParams::Form(kept));
            let owned = InputRequest::Elicit(ElicitRequestParams::Form(owned));
            let written = text(super::message(id, &owned).unwrap());
            // The first time makes the schema's text, the second reads it as kept: both are
            // what any question's writer writes.
            for _ in 0..2 {
                assert_eq!(text(super::message(id, &kept).unwrap()), written);
            }
            let read: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(read, through_a_value(id, &kept));
            let fields = positions(&written, &DECLARED);
            assert!(fields.is_sorted(), "{written}");
            assert!(written.starts_with(&format!(r#"{{"jsonrpc":"2.0","id":{id},"method""#)));
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
            let written = text(super::message(3, &request).unwrap());
            let read: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(read, through_a_value(3, &request));
        }
    }

    #[test]
    fn other_questions_are_built_as_values() {
        let url = ElicitRequestUrlParams::new("Sign in", "https://example.com/a");
        for request in [
            InputRequest::Elicit(ElicitRequestParams::Url(url)),
            InputRequest::ListRoots(None),
        ] {
            let Message::Value(value) = super::message(9, &request).unwrap() else {
                panic!("{request:?} is built as a value");
            };
            assert_eq!(value, through_a_value(9, &request));
        }
    }
}
