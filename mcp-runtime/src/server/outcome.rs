//! JSON-RPC answers as [`Outcome`]s: results (serialised in place, or around bytes made in
//! advance), errors, and a legacy session's results in the older shape. Every path that
//! answers (dispatch, a call's rounds, a legacy session) builds its answer here.

use std::any::Any;
use std::sync::LazyLock;

use serde::Serialize;
use serde_json::Value;

use super::Outcome;
use super::error::RpcError;
use super::lifecycle::legacy_result;
use crate::json_text::{push_clean, push_text};
use crate::logfield::untrusted;
use crate::protocol::{
    CallToolResult, CompleteTag, ContentBlock, ErrorCode, ErrorObject, TextContent,
};

/// A JSON-RPC response, serialised without an intermediate [`Value`].
#[derive(Serialize)]
struct Response<'a, R> {
    jsonrpc: &'static str,
    id: &'a Value,
    result: &'a R,
}

/// A result answer. A result that fails to serialise (a handler's own `Serialize` data
/// refusing, say) answers `-32603` instead.
pub(crate) fn result_outcome<R: Serialize>(id: &Value, result: &R) -> Outcome {
    let response = Response {
        jsonrpc: "2.0",
        id,
        result,
    };
    match serde_json::to_vec(&response) {
        Ok(body) => Outcome::answer(200, body),
        Err(error) => unserialisable(id, &error),
    }
}

/// The answer to a result that did not serialise: `-32603`, and the reason in the log.
fn unserialisable(id: &Value, error: &serde_json::Error) -> Outcome {
    tracing::error!(id = %untrusted(&id.to_string()), %error, "a result did not serialise");
    error_outcome(id, &RpcError::internal("internal error"))
}

/// An answer around a result serialised in advance.
pub(crate) fn raw_result_outcome(id: &Value, raw_result: &str) -> Outcome {
    // The head and the closing brace (33 bytes), the result, and an id of up to 31 bytes.
    let mut answer = ResultAnswer::new(id, raw_result.len() + 64);
    answer.body.extend_from_slice(raw_result.as_bytes());
    answer.finish()
}

/// A result answer written in one buffer: the response's head, then the result serialised
/// straight after it, then the closing brace. The bytes are those of [`raw_result_outcome`]
/// around the same result serialised on its own, without a second buffer and a copy.
pub(crate) struct ResultAnswer {
    body: Vec<u8>,
    /// Where the result starts in `body`.
    start: usize,
}

/// The room an answer whose result is still to write starts with: a typical result's answer
/// fits, and the allocator serves this size from its per-thread cache.
const ANSWER_CAPACITY: usize = 1024;

impl ResultAnswer {
    /// The head of the answer to request `id`, in a buffer of `capacity` bytes.
    fn new(id: &Value, capacity: usize) -> Self {
        let mut body = Vec::with_capacity(capacity);
        body.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
        // The usual id, an integer, as its digits: serde's bytes without its number machinery.
        let mut digits = itoa::Buffer::new();
        if let Some(n) = id.as_u64() {
            body.extend_from_slice(digits.format(n).as_bytes());
        } else if let Some(n) = id.as_i64() {
            body.extend_from_slice(digits.format(n).as_bytes());
        } else {
            serde_json::to_writer(&mut body, id).expect("a JSON value serialises");
        }
        body.extend_from_slice(br#","result":"#);
        let start = body.len();
        Self { body, start }
    }

    /// The head of the answer to request `id`, its result still to write.
    pub(crate) fn to(id: &Value) -> Self {
        Self::new(id, ANSWER_CAPACITY)
    }

    /// Writes a result with `write`, which appends it to the answer as compact JSON. A result
    /// that fails to serialise (a handler's own `Serialize` data refusing, say) leaves the
    /// answer unusable and gives the `-32603` error to answer instead; the reason goes to the
    /// log.
    pub(crate) fn write_with(
        &mut self,
        write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> Result<(), ErrorObject> {
        write(&mut self.body).map_err(|error| {
            tracing::error!(%error, "a result did not serialise");
            ErrorObject::new(ErrorCode::INTERNAL_ERROR, "internal error")
        })
    }

    /// Adds `member` to the result written, an object without `_meta`: see
    /// [`with_member`](super::context::with_member).
    pub(crate) fn add_member(&mut self, member: &str) {
        let body = std::mem::take(&mut self.body);
        self.body = super::context::with_member(body, member);
    }

    /// The result as written.
    pub(crate) fn result(&self) -> &[u8] {
        &self.body[self.start..]
    }

    /// The answer, closed.
    pub(crate) fn finish(mut self) -> Outcome {
        self.body.push(b'}');
        Outcome::answer(200, self.body)
    }
}

/// A JSON-RPC error response; an unusable id (`null`) is left out, as the schema has no
/// `null` id.
#[derive(Serialize)]
struct ErrorResponse<'a> {
    jsonrpc: &'static str,
    #[serde(skip_serializing_if = "Value::is_null")]
    id: &'a Value,
    error: &'a ErrorObject,
}

/// An error answer.
pub(crate) fn error_outcome(id: &Value, error: &RpcError) -> Outcome {
    let response = ErrorResponse {
        jsonrpc: "2.0",
        id,
        error: &error.error,
    };
    let body = serde_json::to_vec(&response).expect("an error object serialises");
    let mut outcome = Outcome::error(error.status, body, error.code());
    outcome.challenge = error.challenge.as_deref().map(str::to_owned);
    outcome
}

/// A result answer on a legacy session: in the older shape, its members sorted at every level
/// as the value it is built as sorts them.
pub(super) fn legacy_outcome<R: Serialize + 'static>(id: &Value, result: &R) -> Outcome {
    if let Some(result) = (result as &dyn Any).downcast_ref::<CallToolResult>()
        && let Some(outcome) = legacy_text_outcome(id, result)
    {
        return outcome;
    }
    match legacy_result(result) {
        Ok(value) => result_outcome(id, &value),
        Err(error) => unserialisable(id, &error),
    }
}

/// Whether `serde_json`'s maps sort their keys in this build, as they do unless a crate in it
/// turns on `preserve_order`: then a value's members come out sorted, which text written
/// straight can match.
fn maps_sort_keys() -> bool {
    static SORTED: LazyLock<bool> = LazyLock::new(|| {
        let mut map = serde_json::Map::new();
        map.insert("b".to_owned(), Value::Null);
        map.insert("a".to_owned(), Value::Null);
        map.keys().next().is_some_and(|first| first == "a")
    });
    *SORTED
}

/// A tool's result on a legacy session, when it is plain text blocks (with `isError` and
/// `structuredContent` or not), written straight into its answer as [`legacy_result`]'s value
/// would be written: members sorted, `resultType` left out. `None` for any other result.
fn legacy_text_outcome(id: &Value, result: &CallToolResult) -> Option<Outcome> {
    // Every member named, so that a member added to the result is not left out here.
    let CallToolResult {
        result_type: _,
        content,
        structured_content,
        is_error,
        meta,
    } = result;
    if meta.is_some() || !all_plain_text(content) || !maps_sort_keys() {
        return None;
    }
    let mut answer = ResultAnswer::to(id);
    let body = &mut answer.body;
    body.extend_from_slice(br#"{"content":["#);
    for (at, text) in content.iter().filter_map(plain_text).enumerate() {
        if at > 0 {
            body.push(b',');
        }
        body.extend_from_slice(br#"{"text":"#);
        push_text(body, text);
        body.extend_from_slice(br#","type":"text"}"#);
    }
    body.push(b']');
    if let Some(is_error) = is_error {
        body.extend_from_slice(br#","isError":"#);
        body.extend_from_slice(if *is_error { b"true" } else { b"false" });
    }
    if let Some(structured) = structured_content {
        body.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut *body, structured).ok()?;
    }
    body.push(b'}');
    Some(answer.finish())
}

/// The text of `block` when it is a text block with neither annotations nor `_meta`.
fn plain_text(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::Text(TextContent {
            text,
            annotations: None,
            meta: None,
        }) => Some(text),
        _ => None,
    }
}

/// Whether every block of `content` is plain text (see [`plain_text`]).
fn all_plain_text(content: &[ContentBlock]) -> bool {
    content.iter().all(|block| plain_text(block).is_some())
}

/// Appends a tool's result as compact JSON, as its own serialisation writes it. One of plain
/// text blocks (see [`plain_text`]) without `_meta`, as nearly every tool's is, is written
/// member by member in the type's order, its member names and tags as they are, its texts
/// by [`push_text`]: only `structuredContent` goes through the serializer. Any other is
/// serialised.
pub(super) fn write_tool_result(
    out: &mut Vec<u8>,
    result: &CallToolResult,
) -> serde_json::Result<()> {
    // Every member named, so that a member added to the result is not left out here.
    let CallToolResult {
        result_type: CompleteTag,
        content,
        structured_content,
        is_error,
        meta,
    } = result;
    if meta.is_some() || !all_plain_text(content) {
        return serde_json::to_writer(out, result);
    }
    out.extend_from_slice(br#"{"resultType":"#);
    push_clean(out, CompleteTag::VALUE);
    out.extend_from_slice(br#","content":["#);
    for (at, text) in content.iter().filter_map(plain_text).enumerate() {
        if at > 0 {
            out.push(b',');
        }
        out.extend_from_slice(br#"{"type":"text","text":"#);
        push_text(out, text);
        out.push(b'}');
    }
    out.push(b']');
    if let Some(structured) = structured_content {
        out.extend_from_slice(br#","structuredContent":"#);
        serde_json::to_writer(&mut *out, structured)?;
    }
    if let Some(is_error) = is_error {
        out.extend_from_slice(br#","isError":"#);
        out.extend_from_slice(if *is_error { b"true" } else { b"false" });
    }
    out.push(b'}');
    Ok(())
}

impl RpcError {
    /// An error a handler returned on a legacy session, where every JSON-RPC error travels
    /// with HTTP 200 and `-32021` (a 2026-07-28 code) becomes `-32602`.
    pub(super) fn from_legacy_handler(mut error: ErrorObject) -> Self {
        if error.code == ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY {
            error.code = ErrorCode::INVALID_PARAMS;
        }
        Self {
            error,
            status: 200,
            challenge: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_result_written_in_place_is_the_response_around_it() {
        let text = json!({"content": [{"type": "text", "text": "é \"quoted\"\n"}]});
        let long = json!({"text": "x".repeat(5000)});
        for id in [json!(7), json!("an \"id\""), json!(u64::MAX)] {
            for result in [&text, &long, &json!({})] {
                let mut answer = ResultAnswer::to(&id);
                answer
                    .write_with(|body| serde_json::to_writer(body, result))
                    .unwrap();
                assert_eq!(answer.result(), serde_json::to_vec(result).unwrap());
                let body = answer.finish().body.unwrap();
                // As the response serialised whole, in one pass, writes it.
                assert_eq!(body, result_outcome(&id, result).body.unwrap());
                let raw = raw_result_outcome(&id, &serde_json::to_string(result).unwrap());
                assert_eq!(raw.body.unwrap(), body);
            }
        }
    }

    #[test]
    fn an_id_is_written_as_serde_writes_it() {
        // Integers at either end, `-0` (a float), floats, strings plain and escaped.
        let ids: Vec<Value> = serde_json::from_str(
            r#"[0, 7, -1, 18446744073709551615, -9223372036854775808, -0, 1.5, 1e300, 1E2,
                "", "plain", "é ☃", "a \"b\"", "\\", "\u0001\u007f\n", "\ud83d\ude00",
                null, true, {"a": [1]}]"#,
        )
        .unwrap();
        for id in ids {
            let answer = ResultAnswer::to(&id);
            let mut expected = br#"{"jsonrpc":"2.0","id":"#.to_vec();
            expected.extend(serde_json::to_vec(&id).unwrap());
            expected.extend(br#","result":"#);
            assert_eq!(answer.body, expected, "{id}");
        }
    }

    #[test]
    fn a_member_goes_last_in_the_result_written() {
        for (result, expected) in [
            (json!({"a": 1}), r#"{"a":1,"_meta":{"b":2}}"#),
            (json!({}), r#"{"_meta":{"b":2}}"#),
        ] {
            let mut answer = ResultAnswer::to(&json!(1));
            answer
                .write_with(|body| serde_json::to_writer(body, &result))
                .unwrap();
            answer.add_member(r#""_meta":{"b":2}"#);
            assert_eq!(answer.result(), expected.as_bytes());
            let body = answer.finish().body.unwrap();
            assert_eq!(
                body,
                format!(r#"{{"jsonrpc":"2.0","id":1,"result":{expected}}}"#).as_bytes()
            );
        }
    }

    /// A legacy answer as it was written when every result was built as a value first.
    fn through_a_value<R: Serialize>(id: &Value, result: &R) -> Vec<u8> {
        result_outcome(id, &legacy_result(result).unwrap())
            .body
            .unwrap()
    }

    /// Every shape of tool result the writers tell apart, each with whether it is plain:
    /// text blocks alone, without annotations or `_meta`, and no `_meta` of its own.
    fn tool_result_shapes() -> Vec<(CallToolResult, bool)> {
        use crate::protocol::{Annotations, ImageContent};

        let text = |text: &str| ContentBlock::text(text);
        let mut annotated = TextContent::new("a");
        annotated.annotations = Some(Annotations::default());
        let mut with_meta = CallToolResult::new(vec![text("m")]);
        with_meta.meta = serde_json::from_value(json!({"z": 1, "a": 2})).unwrap();
        let mut structured = CallToolResult::new(vec![text("{\"b\":1}")]);
        structured.structured_content = Some(json!({"b": 1, "a": [{"d": null, "c": 1.5}]}));
        structured.is_error = Some(false);
        let mut failed = CallToolResult::error("no such service");
        failed.structured_content = Some(json!("\u{7f}\t"));
        vec![
            (
                CallToolResult::new(vec![text("Deployment confirmed.")]),
                true,
            ),
            (
                CallToolResult::new(vec![text("é \"q\"\n\u{1}"), text(""), text("3")]),
                true,
            ),
            (
                CallToolResult::new(vec![text("é \"q\"\n\u{1}\\/"), text(""), text("3")]),
                true,
            ),
            (CallToolResult::new(Vec::new()), true),
            (CallToolResult::error("no such service"), true),
            (structured, true),
            (failed, true),
            (with_meta, false),
            (
                CallToolResult::new(vec![ContentBlock::Text(annotated)]),
                false,
            ),
            (
                CallToolResult::new(vec![ContentBlock::Image(ImageContent::default())]),
                false,
            ),
            (
                CallToolResult::new(vec![
                    text("a"),
                    ContentBlock::Image(ImageContent::default()),
                ]),
                false,
            ),
        ]
    }

    #[test]
    fn a_legacy_tool_result_is_written_as_it_was_through_a_value() {
        let results = tool_result_shapes();
        for id in [json!(7), json!("an \"id\"")] {
            for (result, plain) in &results {
                let written = legacy_outcome(&id, result).body.unwrap();
                assert_eq!(
                    String::from_utf8(written).unwrap(),
                    String::from_utf8(through_a_value(&id, result)).unwrap()
                );
                let straight = legacy_text_outcome(&id, result).is_some();
                assert_eq!(straight, *plain && maps_sort_keys(), "{result:?}");
            }
        }
    }

    /// Every shape of tool result: written member by member or serialised, the bytes its
    /// own serialisation writes.
    #[test]
    fn a_tool_result_is_written_as_its_own_serialisation_writes_it() {
        for (result, plain) in &tool_result_shapes() {
            let mut written = b"[".to_vec();
            write_tool_result(&mut written, result).unwrap();
            assert_eq!(
                String::from_utf8(written.split_off(1)).unwrap(),
                serde_json::to_string(result).unwrap()
            );
            assert_eq!(
                all_plain_text(&result.content) && result.meta.is_none(),
                *plain
            );
        }
    }

    #[test]
    fn a_result_that_does_not_serialise_is_an_internal_error() {
        struct Refuses;
        impl Serialize for Refuses {
            fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
                Err(serde::ser::Error::custom("refused"))
            }
        }
        let error = ResultAnswer::to(&json!(1))
            .write_with(|body| serde_json::to_writer(body, &Refuses))
            .unwrap_err();
        assert_eq!(error.code, ErrorCode::INTERNAL_ERROR);
        assert_eq!(error.message, "internal error");
    }
}
