//! States the server refuses, sent through its dispatch as a transport hands them over: every
//! reason the codec has, and authentic states whose content the flow cannot use. Each gets
//! the same `-32602`, with the fixed message and no `data`, and nothing panics.

use std::sync::Arc;
use std::time::Duration;

use mcp_runtime::server::{Outcome, RequestFacts, Server};
use mcp_runtime::state::{
    BindingContext, DEFAULT_TTL, INVALID_STATE_MESSAGE, ManualClock, Signer, StateError,
};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[path = "common/state.rs"]
mod state_common;

use state_common::{NOW, OTHER_SECRET, SECRET};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Color {
    color: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Team {
    team: String,
}

/// Two questions in a row.
#[tool]
async fn survey(args: Team, cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Name?").await?;
    let color: Color = cx.elicit("Colour?").await?;
    Ok(text(format!(
        "{} of {} likes {}",
        name.name, args.team, color.color
    )))
}

/// The server's name, which is the audience its states are bound to.
const NAME: &str = "refusals";

fn arguments() -> Value {
    json!({ "team": "ops" })
}

/// The binding context the server computes for a `survey` call with `arguments`.
fn cx(arguments: &Value) -> BindingContext<'_> {
    BindingContext::new("tools/call", "survey")
        .with_audience(NAME)
        .with_arguments(Some(arguments))
}

/// A server signing with `signer`.
fn server(signer: Signer) -> Server {
    Server::builder()
        .name(NAME)
        .signer(signer)
        .tool(survey)
        .build()
}

/// The shared test signer, on a clock the test moves.
fn signer(clock: &Arc<ManualClock>) -> Signer {
    state_common::signer().with_clock(Arc::clone(clock) as Arc<_>)
}

/// One `survey` call through the server's dispatch; its status and answer.
async fn call(server: &Server, state: Option<&str>, answers: Value) -> (u16, Value) {
    let mut params = json!({
        "name": "survey",
        "arguments": arguments(),
        "inputResponses": answers,
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": { "elicitation": {} },
        },
    });
    if let Some(state) = state {
        params["requestState"] = json!(state);
    }
    let message = json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params });
    let Outcome { status, body, .. } = server
        .handle(message.to_string().as_bytes(), RequestFacts::stdio())
        .finish()
        .await;
    let body = body.expect("a request gets an answer");
    (status, serde_json::from_slice(&body).expect("JSON"))
}

fn name_answer() -> Value {
    json!({ "name": { "action": "accept", "content": { "name": "Ada" } } })
}

/// The round-one state of a fresh call.
async fn first_state(server: &Server) -> String {
    let (_, first) = call(server, None, json!({})).await;
    first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {first}"))
        .to_owned()
}

/// The one refusal: `-32602`, the fixed message, no `data`, no result.
fn assert_refused(case: &str, (status, answer): &(u16, Value)) {
    assert_eq!(
        answer,
        &json!({
            "jsonrpc": "2.0",
            "id": 1,
            "error": { "code": -32602, "message": INVALID_STATE_MESSAGE },
        }),
        "{case}"
    );
    assert_eq!(*status, 200, "{case}: {answer}");
}

#[tokio::test]
async fn authentic_states_that_do_not_decode_are_refused_like_forged_ones() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let signer = signer(&clock);
    let server = server(signer.clone());
    let token = first_state(&server).await;
    let args = arguments();
    let payload = signer
        .open(&cx(&args), &token)
        .expect("the server's own state opens")
        .into_payload();

    // The hand-minted copy of the server's payload is accepted: the cases below are refused
    // for their content, not for how they were minted.
    let copy = signer.sign(&cx(&args), &payload);
    let (_, next) = call(&server, Some(&copy), name_answer()).await;
    assert_eq!(next["result"]["resultType"], "input_required", "{next}");

    // The envelope: the round (one LEB128 byte here), four bytes of flow shape, then the
    // flow's id, eight bytes.
    assert!(payload[0] < 0x80, "round one fits one byte");
    let envelope = &payload[..13];
    let with_content = |content: &[u8]| [envelope, content].concat();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("an empty payload", Vec::new()),
        ("an unfinished round number", vec![0x80]),
        ("a round and no shape", vec![0x01, 0xaa]),
        ("a round, a shape and no flow id", payload[..9].to_vec()),
        ("a round number past u32", {
            let mut big = vec![0xff; 5];
            big.push(0x0f);
            big.extend_from_slice(&payload[1..]);
            big
        }),
        ("no content after the envelope", with_content(b"")),
        (
            "content that is not CBOR",
            with_content(b"\xff\x00not cbor"),
        ),
        // The payload is CBOR: the point's number, then its carried fields. Point 7 is
        // none of the flow's.
        (
            "a point the flow does not have",
            with_content(b"\x07\x01\x02\x03"),
        ),
        // `u32::MAX`, the number the reader keeps for no point at all (`Reader::NOWHERE`): a
        // point like any other the flow lacks, refused, not a run from the start.
        (
            "the point number that stands for none",
            with_content(b"\x1a\xff\xff\xff\xff"),
        ),
        ("the right point with a field too many", {
            // Round one's state is point 0, which carries nothing.
            assert_eq!(&payload[13..], b"\x00");
            with_content(b"\x00\x65extra")
        }),
        (
            "the right point and a byte that is no item",
            with_content(b"\x00\xff"),
        ),
        // Point 1 carries `name`, a `Name` form: a map, not an integer, and not missing.
        ("the second point without its field", with_content(b"\x01")),
        (
            "the second point with a field of another type",
            with_content(b"\x01\x05"),
        ),
        (
            "the second point with a field of another shape",
            with_content(b"\x01\xa1\x64nome\x63Ada"),
        ),
    ];
    // Point 1 with its field as the flow writes it resumes there: the cases above are refused
    // for what their fields hold.
    let at_second = signer.sign(&cx(&args), &with_content(b"\x01\xa1\x64name\x63Ada"));
    let (_, next) = call(&server, Some(&at_second), json!({})).await;
    let asked = &next["result"]["inputRequests"];
    assert_eq!(asked.as_object().map(|o| o.len()), Some(1), "{next}");
    assert!(asked.get("color").is_some(), "{next}");
    for (case, payload) in cases {
        let token = signer.sign(&cx(&args), &payload);
        assert_eq!(
            signer.verify(&cx(&args), &token).as_deref(),
            Ok(&payload[..]),
            "{case}: authentic"
        );
        assert_refused(case, &call(&server, Some(&token), name_answer()).await);
    }

    // Expired: the server's own state, a second past its lifetime.
    clock.advance(DEFAULT_TTL + Duration::from_secs(1));
    assert_refused("expired", &call(&server, Some(&token), name_answer()).await);
    // Nothing panicked: the server still starts flows.
    let (_, fresh) = call(&server, None, json!({})).await;
    assert_eq!(fresh["result"]["resultType"], "input_required", "{fresh}");
}

#[tokio::test]
async fn clients_see_one_answer_whatever_the_reason() {
    let clock = Arc::new(ManualClock::from_unix_secs(NOW));
    let signer = signer(&clock);
    let signing = server(signer.clone());
    let sealer = signer.clone().sealed();
    let sealing = server(sealer.clone());
    let args = arguments();
    let good = first_state(&signing).await;
    let sealed = first_state(&sealing).await;
    let other_args = json!({ "team": "dev" });
    let payload = signer.verify(&cx(&args), &good).expect("opens");
    let unknown_key = Signer::new(9, &SECRET).unwrap().sign(&cx(&args), &payload);
    let other_secret = Signer::new(1, &OTHER_SECRET)
        .unwrap()
        .sign(&cx(&args), &payload);
    let mut tampered_seal = sealed.clone().into_bytes();
    let last = tampered_seal.len() - 2;
    tampered_seal[last] = if tampered_seal[last] == b'A' {
        b'B'
    } else {
        b'A'
    };
    let tampered_seal = String::from_utf8(tampered_seal).unwrap();
    let cases: Vec<(StateError, &Server, Signer, String)> = vec![
        (StateError::Malformed, &signing, signer.clone(), "!!".into()),
        (
            StateError::TooLarge,
            &signing,
            signer.clone(),
            "A".repeat(signer.max_token_len() + 1),
        ),
        (
            StateError::UnknownKey,
            &signing,
            signer.clone(),
            unknown_key,
        ),
        (
            StateError::BadSignature,
            &signing,
            signer.clone(),
            other_secret,
        ),
        (
            StateError::BindingMismatch,
            &signing,
            signer.clone(),
            signer.sign(&cx(&other_args), &payload),
        ),
        (StateError::BadSeal, &sealing, sealer.clone(), tampered_seal),
    ];
    let mut logged = std::collections::HashSet::new();
    for (reason, server, signer, token) in &cases {
        // The token fails for this reason and no other...
        assert_eq!(signer.verify(&cx(&args), token), Err(*reason), "{reason:?}");
        // ...yet the client learns nothing of it.
        assert_refused(
            &format!("{reason:?}"),
            &call(server, Some(token), name_answer()).await,
        );
        // Each reason has words of its own, the rustc way: what the log's event says (that
        // event, its level and its span, are checked over a socket in
        // `tests/tests/refusal_logs.rs`).
        let log = reason.to_string();
        assert!(log.contains("`requestState`"), "{log}");
        assert!(!log.starts_with(char::is_uppercase), "{log}");
        assert!(!log.ends_with('.'), "{log}");
        assert!(logged.insert(log), "two reasons share a log message");
    }
    clock.advance(DEFAULT_TTL + Duration::from_secs(1));
    assert_eq!(
        signer.verify(&cx(&args), &good),
        Err(StateError::Expired),
        "expired"
    );
    assert_refused("Expired", &call(&signing, Some(&good), name_answer()).await);
    assert!(logged.insert(StateError::Expired.to_string()));
}
