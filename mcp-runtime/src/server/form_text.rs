//! A form question written with its schema's text made once: a form type's schema never
//! changes, so each round writes the text kept from its first, not the schema serialised
//! again. Both eras write through here: the stateless era an `input_required` result's
//! `inputRequests`, a legacy session its `elicitation/create` request.
//!
//! Only a schema that lives for the whole program (`Cow::Borrowed`, as a form type's is) is
//! kept, by address: such a schema never changes and no other value ever takes its place.
//! The text is the one serde writes for the schema, so the bytes are those the schema's own
//! serialisation would write; what is around it follows the protocol types' member order.
//!
//! ```text
//! {"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create",
//!  "params":{"mode":"form","message":"Deploy?","requestedSchema":<kept text>}}},
//!  "requestState":"..."}
//! ```

use std::borrow::Cow;
use std::sync::{PoisonError, RwLock};

use serde_json::value::RawValue;

use crate::json_text::{push_clean, push_text};
use crate::protocol::tag::InputRequiredTag;
use crate::protocol::{
    ElicitRequestFormParams, ElicitRequestParams, ElicitRequestedSchema, FormModeTag, InputRequest,
    InputRequests, InputRequiredResult, ResultMeta, method,
};

/// The most schemas whose text is kept: more than a server has form types. Past it, the
/// schemas not yet kept are written each time they are asked.
const MAX_KEPT_SCHEMAS: usize = 64;

/// The text of the schemas kept, by address.
static SCHEMAS: RwLock<Vec<(usize, Box<RawValue>)>> = RwLock::new(Vec::new());

/// Runs `write` with the text of `schema`, made on its first use.
pub(super) fn with_schema_text<R>(
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
    let text = serde_json::value::to_raw_value(schema)?;
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

/// An `input_required` result, as [`InputRequiredResult`]'s own serialisation writes it, its
/// form questions' schemas from kept text, and its `requestState` (a token of the state
/// signer) written as it is: base64url never needs escaping, so it is not scanned for
/// characters to escape. Written as compact JSON only: the kept text goes out as JSON text.
pub(super) struct Written<'a>(pub(super) &'a InputRequiredResult);

impl Written<'_> {
    /// Appends the result to `out`, members in the type's order.
    pub(super) fn write(&self, out: &mut Vec<u8>) -> serde_json::Result<()> {
        let result = self.0;
        let mut token = result
            .request_state()
            .map(|token| |out: &mut Vec<u8>| out.extend_from_slice(token.as_bytes()));
        let state = token.as_mut().map(|token| token as WriteState<'_>);
        write_input_required(out, result.input_requests(), state, result.meta())
    }
}

/// Writes a `requestState` token's text onto the answer being written.
pub(super) type WriteState<'a> = &'a mut dyn FnMut(&mut Vec<u8>);

/// Appends an `input_required` result of these parts, as [`Written`] writes it: its
/// `requestState` written by `state` (a token of the state signer, base64url), which lets a
/// token be minted straight into the answer rather than into a string of its own first.
pub(super) fn write_input_required(
    out: &mut Vec<u8>,
    requests: Option<&InputRequests>,
    state: Option<WriteState<'_>>,
    meta: Option<&ResultMeta>,
) -> serde_json::Result<()> {
    out.extend_from_slice(br#"{"resultType":"#);
    push_clean(out, InputRequiredTag::VALUE);
    if let Some(requests) = requests {
        out.extend_from_slice(br#","inputRequests":"#);
        write_requests(out, requests)?;
    }
    if let Some(state) = state {
        out.extend_from_slice(br#","requestState":""#);
        let start = out.len();
        state(out);
        debug_assert!(
            out[start..]
                .iter()
                .all(|byte| byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_')),
            "a state token is base64url"
        );
        out.push(b'"');
    }
    if let Some(meta) = meta {
        out.extend_from_slice(br#","_meta":"#);
        serde_json::to_writer(&mut *out, meta)?;
    }
    out.push(b'}');
    Ok(())
}

/// Appends `inputRequests`, in the map's order.
fn write_requests(out: &mut Vec<u8>, requests: &InputRequests) -> serde_json::Result<()> {
    out.push(b'{');
    for (at, (key, request)) in requests.iter().enumerate() {
        if at > 0 {
            out.push(b',');
        }
        push_text(out, key);
        out.push(b':');
        write_request(out, request)?;
    }
    out.push(b'}');
    Ok(())
}

/// Appends one question: a form of a kept schema as [`write_form`] writes it, any other as
/// [`InputRequest`] writes it.
fn write_request(out: &mut Vec<u8>, request: &InputRequest) -> serde_json::Result<()> {
    let InputRequest::Elicit(ElicitRequestParams::Form(params)) = request else {
        return serde_json::to_writer(&mut *out, request);
    };
    let Cow::Borrowed(schema) = params.requested_schema else {
        return serde_json::to_writer(&mut *out, request);
    };
    with_schema_text(schema, |schema| {
        out.push(b'{');
        write_form(out, params, schema);
    })
}

/// Appends the rest of a form question whose schema's text is `schema`, after its opening
/// brace and any members before (a legacy session's `jsonrpc` and `id`): its `method` and
/// `params`, in [`ElicitRequestFormParams`]'s member order, and the closing brace. Member
/// by member, its schema from its text and its names, method and mode as they are (none
/// needs escaping), not through a serializer's map and struct machinery.
pub(super) fn write_form(out: &mut Vec<u8>, params: &ElicitRequestFormParams, schema: &RawValue) {
    // Every member named, so that a member added to the parameters is not left out here.
    let ElicitRequestFormParams {
        mode,
        message,
        requested_schema: _,
    } = params;
    out.extend_from_slice(br#""method":"#);
    push_clean(out, method::ELICITATION_CREATE);
    out.extend_from_slice(br#","params":{"#);
    if let Some(FormModeTag) = mode {
        out.extend_from_slice(br#""mode":"#);
        push_clean(out, FormModeTag::VALUE);
        out.push(b',');
    }
    out.extend_from_slice(br#""message":"#);
    push_text(out, message);
    out.extend_from_slice(br#","requestedSchema":"#);
    out.extend_from_slice(schema.get().as_bytes());
    out.extend_from_slice(b"}}");
}

/// How many bytes [`write_form`] writes for `params` and `schema`, when the message needs no
/// escaping (more when it does): the room to make for it up front.
pub(super) fn form_len(params: &ElicitRequestFormParams, schema: &RawValue) -> usize {
    let mode = match params.mode {
        Some(FormModeTag) => r#""mode":"","#.len() + FormModeTag::VALUE.len(),
        None => 0,
    };
    r#""method":"","params":{"message":"","requestedSchema":}}"#.len()
        + method::ELICITATION_CREATE.len()
        + mode
        + params.message.len()
        + schema.get().len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::meta::ResultMeta;
    use crate::protocol::{ElicitRequestUrlParams, Implementation, InputRequests};

    fn written(result: &InputRequiredResult) -> String {
        let mut out = b"[".to_vec();
        Written(result).write(&mut out).unwrap();
        String::from_utf8(out.split_off(1)).unwrap()
    }

    /// A form type's schema: fields in declared order, not sorted, with text to escape.
    fn schema() -> &'static ElicitRequestedSchema {
        let schema: ElicitRequestedSchema = serde_json::from_str(
            r#"{"type":"object","properties":{
                "zone":{"type":"string","description":"é \"q\"\n\u0001","maxLength":20},
                "count":{"type":"integer","minimum":-3,"maximum":1000,"default":2},
                "ok":{"type":"boolean","default":true}},
               "required":["zone","count"]}"#,
        )
        .unwrap();
        Box::leak(Box::new(schema))
    }

    fn form(message: &str, schema: &'static ElicitRequestedSchema, mode: bool) -> InputRequest {
        let mut params = ElicitRequestFormParams::with_static_schema(message, schema);
        if !mode {
            params.mode = None;
        }
        InputRequest::Elicit(ElicitRequestParams::Form(params))
    }

    /// Every kind of result a round answers: written from kept text, the same bytes as the
    /// result's own serialisation.
    #[test]
    fn a_result_is_written_as_its_own_serialisation_writes_it() {
        let kept = schema();
        let other = schema();
        let owned = ElicitRequestFormParams::new("Owned?", kept.clone());
        let url = ElicitRequestUrlParams::new("Sign in", "https://example.com/a?b=\"c\"");
        let requests = InputRequests::from([
            (
                "b.form".to_owned(),
                form("Deploy \"now\"?\n\u{1f600}", kept, true),
            ),
            ("a.form".to_owned(), form("", other, false)),
            (
                "c.owned".to_owned(),
                InputRequest::Elicit(ElicitRequestParams::Form(owned)),
            ),
            (
                "d.url".to_owned(),
                InputRequest::Elicit(ElicitRequestParams::Url(url)),
            ),
            ("e.roots".to_owned(), InputRequest::ListRoots(None)),
        ]);
        let meta = ResultMeta {
            server_info: Some(Implementation::new("deploy", "1.0")),
            ..ResultMeta::default()
        };
        let results = [
            InputRequiredResult::with_state(
                requests.clone(),
                "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
            ),
            InputRequiredResult::requests_only(requests.clone()),
            InputRequiredResult::with_state(requests, "s").with_meta(meta),
            InputRequiredResult::state_only("only"),
            InputRequiredResult::requests_only(InputRequests::new()),
        ];
        // The first pass makes each schema's text, the second reads it as kept.
        for _ in 0..2 {
            for result in &results {
                let expected = serde_json::to_string(result).unwrap();
                assert_eq!(written(result), expected);
            }
        }
    }

    /// The room made for a form is what it takes when its message needs no escaping, and
    /// less when it does.
    #[test]
    fn a_form_takes_the_room_made_for_it() {
        let schema = serde_json::value::to_raw_value(schema()).unwrap();
        for (message, escapes) in [
            ("Deploy to production?", false),
            ("", false),
            ("\"a\"", true),
        ] {
            for mode in [true, false] {
                let InputRequest::Elicit(ElicitRequestParams::Form(params)) =
                    form(message, self::schema(), mode)
                else {
                    unreachable!("a form was made")
                };
                let mut out = Vec::new();
                write_form(&mut out, &params, &schema);
                let room = form_len(&params, &schema);
                if escapes {
                    assert!(out.len() > room, "{message:?}");
                } else {
                    assert_eq!(out.len(), room, "{message:?} {mode}");
                }
            }
        }
    }

    /// A kept schema's text is its own: two schemas asked in turn each keep theirs.
    #[test]
    fn two_schemas_keep_their_own_text() {
        let first = schema();
        let second: &'static ElicitRequestedSchema = Box::leak(Box::new(
            serde_json::from_str(r#"{"type":"object","properties":{"ok":{"type":"boolean"}}}"#)
                .unwrap(),
        ));
        for schema in [first, second, first, second] {
            let result = InputRequiredResult::requests_only(InputRequests::from([(
                "q".to_owned(),
                form("Sure?", schema, true),
            )]));
            let written = written(&result);
            assert_eq!(written, serde_json::to_string(&result).unwrap());
            let text = serde_json::to_string(schema).unwrap();
            assert!(
                written.contains(&format!(r#""requestedSchema":{text}}}"#)),
                "{written}"
            );
        }
    }
}
