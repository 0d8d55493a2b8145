//! Target 1: the request-state codec, and the flow driver's decoding of what a state carries.
//!
//! The first byte picks a mode (its bit 2 picks a signing or a sealing signer, and a server
//! using that one):
//!
//! - **0, token**: the rest, as text, is opened by a signer with the servers' fixed key. Only
//!   a minted token (the seeds hold some) may open, spelt as minted, and unexpired.
//! - **1, mutated token**: a token is minted for a payload taken from the input, then its
//!   bytes are edited as the rest of the input says (flip, set, cut, insert, remove, extend),
//!   on the decoded bytes or on the base64 text. It may verify only if the edit changed
//!   nothing it decodes to, and then to the same payload; the unedited token verifies to its
//!   payload on its own binding and is refused on another.
//! - **2, carried state**: the rest is a payload, minted with the fixed key for a real call of
//!   an example flow and sent as its `requestState`: the flow driver must refuse or resume
//!   it, never fail inside. Seeds hold real payloads of every round.
//! - **3, carried state, real envelope**: as 2, but the payload starts with the round and
//!   flow shape of a real state of the chosen flow, and the input is the carried JSON.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use mcp_runtime::server::Server;
use mcp_runtime::state::{Binding, BindingContext, Signer, StateError};
use serde_json::{Value, json};
use std::sync::OnceLock;

use crate::Target;
use crate::servers;

/// The target.
pub const TARGET: Target = Target {
    name: "state",
    run,
    seeds,
    dictionary: DICTIONARY,
};

fn run(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let sealed = mode & 4 != 0;
    match mode % 4 {
        0 => token(signer(sealed), rest),
        1 => mutated(signer(sealed), rest),
        2 => carried(sealed, rest, None),
        _ => carried_in_real_envelope(sealed, rest),
    }
}

/// The servers' signer, signing (format 2) or sealing (format 3).
fn signer(sealed: bool) -> Signer {
    let signer = servers::signer();
    if sealed { signer.sealed() } else { signer }
}

fn context() -> BindingContext<'static> {
    BindingContext::new("tools/call", "deploy").with_subject(Some("alice"))
}

fn token(signer: Signer, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    // Only a minted token verifies (the seeds hold some); it must be spelt as minted, the
    // one canonical base64 of its bytes, and not yet expired.
    if let Ok(opened) = signer.open(&context(), &text) {
        let canonical = URL_SAFE_NO_PAD
            .decode(text.as_bytes())
            .map(|bytes| URL_SAFE_NO_PAD.encode(bytes));
        assert_eq!(
            canonical.as_deref(),
            Ok(&*text),
            "a second spelling of a token verified"
        );
        assert!(
            opened.expires_at() > servers::NOW,
            "an expired token verified"
        );
    }
}

/// The longest an edited token grows.
const MAX_EDITED: usize = 64 * 1024;

fn mutated(signer: Signer, data: &[u8]) {
    let (payload_len, edits) = match data.split_first() {
        Some((&len, rest)) => (usize::from(len).min(rest.len()), rest),
        None => return,
    };
    let (payload, edits) = edits.split_at(payload_len);
    let cx = context();
    let token = signer.sign(&cx, payload);
    assert_eq!(
        signer.verify(&cx, &token).as_deref(),
        Ok(payload),
        "a fresh token does not verify to its payload"
    );
    let elsewhere = cx.with_subject(Some("mallory"));
    let refused = signer.verify(&elsewhere, &token);
    if signer.is_sealed() {
        // A seal cannot tell another binding from tampering.
        assert!(refused.is_err(), "a sealed token opened on another binding");
    } else {
        assert_eq!(
            refused,
            Err(StateError::BindingMismatch),
            "a token verified on another binding"
        );
    }

    let raw = URL_SAFE_NO_PAD
        .decode(&token)
        .expect("a minted token is base64");
    let mut text = token.clone().into_bytes();
    let mut bytes = raw.clone();
    for edit in edits.chunks(3) {
        let [op, at, value] = *edit else { break };
        let on_text = op & 0x80 != 0;
        let target = if on_text { &mut text } else { &mut bytes };
        let at = usize::from(at) * 2 % (target.len() + 1);
        match op & 0x7 {
            0 | 1 => {
                if let Some(byte) = target.get_mut(at) {
                    *byte ^= value | 1;
                }
            }
            2 => {
                if let Some(byte) = target.get_mut(at) {
                    *byte = value;
                }
            }
            3 => target.truncate(at),
            4 => target.insert(at, value),
            5 => {
                if at < target.len() {
                    target.remove(at);
                }
            }
            6 => target.extend(std::iter::repeat_n(value, usize::from(value))),
            _ => {
                let copy = target.clone();
                target.extend_from_slice(&copy[at.min(copy.len())..]);
            }
        }
        // Past the signer's 16 KiB limit is enough to test it; edits that double the token
        // must not make the harness itself allocate without bound.
        target.truncate(MAX_EDITED);
    }
    // The byte-level edits go back into base64; the text-level ones stand as written.
    let mut edited = String::from_utf8_lossy(&text).into_owned();
    if bytes != raw {
        edited = URL_SAFE_NO_PAD.encode(&bytes);
    }
    match signer.verify(&cx, &edited) {
        Ok(verified) => {
            let decoded = URL_SAFE_NO_PAD.decode(&edited).unwrap_or_default();
            assert_eq!(
                decoded, raw,
                "an edited token verified: {edited:?} (minted {token:?})"
            );
            assert_eq!(
                verified, payload,
                "an edited token verified to another payload"
            );
            assert_eq!(
                edited, token,
                "a second spelling of a token verified (malleable base64): {edited:?}"
            );
        }
        Err(StateError::Expired) => panic!("the stopped clock expired a token"),
        Err(_) => {}
    }
}

/// A real call of each carried-state flow: (tool, arguments).
const CALLS: &[(&str, &str)] = &[
    ("deploy", r#"{"service":"api"}"#),
    ("order", "{}"),
    ("confirm_deploy", "{}"),
    ("create_issue", r#"{"title":"Crash on start"}"#),
];

struct Fixture {
    /// The example server, with the signing and with the sealing signer.
    servers: [Server; 2],
    /// Per call in `CALLS`, the envelope prefix (round varint and shape) of its first state.
    envelopes: Vec<Vec<u8>>,
    /// Real payloads of rounds of every call, for the seeds.
    payloads: Vec<(usize, Vec<u8>)>,
}

thread_local! {
    static RUNTIME: tokio::runtime::Runtime = super::paused_runtime();
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let servers = [
            servers::examples_with(signer(false)),
            servers::examples_with(signer(true)),
        ];
        let server = &servers[0];
        let signer = servers::signer();
        let mut envelopes = Vec::new();
        let mut payloads = Vec::new();
        for (index, (tool, arguments)) in CALLS.iter().enumerate() {
            let args: Value = serde_json::from_str(arguments).expect("JSON arguments");
            let answers = [
                json!({"environment": "production", "replicas": 3}),
                json!({"product": "tea", "quantity": 2, "more": true}),
                json!({"product": "cake", "quantity": 1, "more": false}),
                json!({"ok": true}),
            ];
            let mut state: Option<String> = None;
            let mut asked: Vec<String> = Vec::new();
            for round in 0..4 {
                let responses: serde_json::Map<String, Value> = asked
                    .iter()
                    .map(|key| {
                        let content = answers[(round + index) % answers.len()].clone();
                        (key.clone(), json!({"action": "accept", "content": content}))
                    })
                    .collect();
                let answer = call(
                    server,
                    tool,
                    &args,
                    state.as_deref(),
                    Some(Value::Object(responses)),
                );
                let Some(result) = answer.get("result") else {
                    break;
                };
                let Some(token) = result.get("requestState").and_then(Value::as_str) else {
                    break;
                };
                let payload = signer
                    .verify_with_binding(&binding(tool, &args), token)
                    .expect("the server's state verifies");
                if round == 0 {
                    // The round varint is one byte for the first rounds, the shape four.
                    envelopes.push(payload[..5].to_vec());
                }
                payloads.push((index, payload));
                asked = result["inputRequests"]
                    .as_object()
                    .map(|requests| requests.keys().cloned().collect())
                    .unwrap_or_default();
                state = Some(token.to_owned());
            }
        }
        Fixture {
            servers,
            envelopes,
            payloads,
        }
    })
}

/// What the example server binds a call of `tool` with `arguments` to: the signer's policy,
/// extended with the server's audience (its name).
fn binding(tool: &str, arguments: &Value) -> Binding {
    let cx = BindingContext::new("tools/call", tool)
        .with_audience(servers::EXAMPLES_NAME)
        .with_arguments(Some(arguments));
    servers::signer().binding(&cx)
}

/// One `tools/call` on the 2026-07-28 wire; returns the checked answer.
fn call(
    server: &Server,
    tool: &str,
    arguments: &Value,
    state: Option<&str>,
    answers: Option<Value>,
) -> Value {
    let params = json!({"name": tool, "arguments": arguments});
    RUNTIME
        .with(|runtime| super::modern_round(runtime, server, "tools/call", &params, state, answers))
}

fn carried(sealed: bool, data: &[u8], envelope: Option<&[u8]>) {
    let Some((&which, payload)) = data.split_first() else {
        return;
    };
    let fixture = fixture();
    let index = usize::from(which) % CALLS.len();
    let (tool, arguments) = CALLS[index];
    let args: Value = serde_json::from_str(arguments).expect("JSON arguments");
    let mut full = envelope.map(<[u8]>::to_vec).unwrap_or_default();
    full.extend_from_slice(payload);
    let token = signer(sealed).sign_with_binding(&binding(tool, &args), &full);
    let answers = json!({
        "confirm": {"action": "accept", "content": {"ok": true}},
        "target": {"action": "accept", "content": {"environment": "production", "replicas": 2}},
        "item": {"action": "accept", "content": {"product": "tea", "more": false}},
        "placed.answer": {"action": "accept", "content": {"ok": true}},
    });
    call(
        &fixture.servers[usize::from(sealed)],
        tool,
        &args,
        Some(&token),
        Some(answers),
    );
}

fn carried_in_real_envelope(sealed: bool, data: &[u8]) {
    let Some(&which) = data.first() else {
        return;
    };
    let fixture = fixture();
    let envelope = &fixture.envelopes[usize::from(which) % fixture.envelopes.len()];
    carried(sealed, data, Some(envelope));
}

fn seeds() -> Vec<Vec<u8>> {
    let fixture = fixture();
    let signer = servers::signer();
    let mut seeds = Vec::new();
    let token = signer.sign(&context(), br#"{"step":1}"#);
    seeds.push([b"\x00".as_slice(), token.as_bytes()].concat());
    let sealed = signer.clone().sealed().sign(&context(), br#"{"step":1}"#);
    seeds.push([b"\x04".as_slice(), sealed.as_bytes()].concat());
    seeds.push(
        [
            b"\x05\x0a".as_slice(),
            br#"{"step":1}"#,
            b"\x00\x05\x01\x82\x10\x02",
        ]
        .concat(),
    );
    seeds.push(b"\x00AQABAAAAAGtJ".to_vec());
    seeds.push(
        [
            b"\x01\x0a".as_slice(),
            br#"{"step":1}"#,
            b"\x00\x05\x01\x82\x10\x02",
        ]
        .concat(),
    );
    seeds.push([b"\x01\x00".as_slice(), b"\x03\x70\x00"].concat());
    // A finding: an authentic payload whose array header claims about 2^64 items made serde
    // preallocate 1 MiB for 34 bytes of input, past the memory oracle.
    seeds.push(b"\x03\x01\xa1a0\x9b\x01\x81\xa2gproduct\xe8\"product\"t1\xff\xa1a0\x80".to_vec());
    for (index, payload) in &fixture.payloads {
        let which = u8::try_from(*index).expect("few calls");
        seeds.push([&[2, which][..], payload].concat());
        seeds.push([&[3, which][..], &payload[5..]].concat());
        seeds.push([&[6, which][..], payload].concat());
    }
    seeds
}

const DICTIONARY: &[&str] = &[
    "\"lines\"",
    "\"product\"",
    "\"quantity\"",
    "\"target\"",
    "\"environment\"",
    "\"replicas\"",
    "\"production\"",
    "\"staging\"",
    "null",
    "[]",
    "{}",
    "4294967295",
    "18446744073709551615",
    "-1",
    "1e400",
    "AQAB",
    "\x01\x00\x01",
    "\x7f\x7f",
];
