//! The `params` of a call on the wire, for the `deploy` example's server: over HTTP on a real
//! socket, and through the dispatch the stdio transport hands its lines to (where no header
//! names the target first, so the body's own checks answer).
//!
//! When `method` comes before `params`, as clients write it, a call's `params` are read as
//! the call reads them, in the same pass as the message; when it comes after, they are read
//! into a map first. Both must answer every message alike, to the byte (a minted
//! `requestState` aside, as each is new): the same errors, with the same words, in the same
//! order of checks.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;

use std::net::SocketAddr;

use client::{Answer, send, start};
use mcp_runtime::server::{RequestFacts, Server};
use serde_json::{Value, json};

const META: &str = r#""_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}}}}"#;

/// A `tools/call` with `params` written as `params`, `method` before it or after it.
fn message(params: &str, method_first: bool) -> String {
    if method_first {
        format!(r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{params}}}"#)
    } else {
        format!(r#"{{"jsonrpc":"2.0","id":1,"params":{params},"method":"tools/call"}}"#)
    }
}

/// The members of a call's `params` around `_meta`.
fn with_meta(members: &str) -> String {
    if members.is_empty() {
        format!("{{{META}}}")
    } else {
        format!("{{{members},{META}}}")
    }
}

async fn post(addr: SocketAddr, body: &str) -> Answer {
    send(addr, "POST", &[], body.as_bytes()).await
}

/// An answer's body as text, a minted `requestState` in it replaced by `STATE`.
fn masked(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body).into_owned();
    let parsed: Value = serde_json::from_slice(body).unwrap_or_default();
    match parsed["result"]["requestState"].as_str() {
        Some(state) => text.replace(state, "STATE"),
        None => text,
    }
}

/// Sends `params` in both orders over HTTP; asserts that the answers are the same bytes, and
/// returns one of them.
async fn alike(addr: SocketAddr, params: &str) -> Answer {
    let first = post(addr, &message(params, true)).await;
    let last = post(addr, &message(params, false)).await;
    assert_eq!(
        (first.status, masked(&first.body)),
        (last.status, masked(&last.body)),
        "params {params}"
    );
    first
}

/// Hands `params` in both orders to the dispatch of a stdio line; asserts that the answers
/// are the same bytes, and returns one of them as an answer.
async fn alike_on_stdio(server: &Server, params: &str) -> Answer {
    let mut answers = Vec::new();
    for method_first in [true, false] {
        let line = message(params, method_first);
        let outcome = server
            .handle(line.as_bytes(), RequestFacts::stdio())
            .outcome
            .await;
        answers.push(Answer {
            status: outcome.status,
            headers: Vec::new(),
            body: outcome.body.expect("a request is answered"),
        });
    }
    assert_eq!(
        masked(&answers[0].body),
        masked(&answers[1].body),
        "params {params}"
    );
    answers.swap_remove(0)
}

fn error(answer: &Answer) -> (u16, i64, String) {
    let body = answer.json();
    (
        answer.status,
        body["error"]["code"].as_i64().unwrap_or_default(),
        body["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

/// The text of a tool result that reports an error, as a model reads it.
fn tool_error(answer: &Answer) -> String {
    let body = answer.json();
    assert_eq!(body["result"]["isError"], true, "{body}");
    body["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn malformed_call_params_are_refused_with_the_same_words_in_either_order() {
    let server = deploy::server(7);
    let running = start(server.clone()).await;
    let addr = running.addr;
    // Invalid params of the method travel with HTTP 200; of the lifecycle (`_meta`), 400.
    let invalid = |message: &str| (200, -32602, message.to_owned());
    let cases: [(&str, (u16, i64, String)); 13] = [
        ("", invalid("missing `name`")),
        (r#""name":5"#, invalid("`name` must be a string")),
        (r#""name":"nope""#, invalid("unknown tool `nope`")),
        (
            r#""name":"deploy","arguments":[1,{"a":2}]"#,
            invalid("`arguments` must be an object"),
        ),
        (
            r#""name":"deploy","arguments":"text""#,
            invalid("`arguments` must be an object"),
        ),
        (
            r#""name":"confirm_deploy","inputResponses":5"#,
            invalid("`inputResponses` must be an object"),
        ),
        (
            r#""name":"confirm_deploy","inputResponses":[{"confirm":{}}]"#,
            invalid("`inputResponses` must be an object"),
        ),
        (
            r#""name":"confirm_deploy","inputResponses":null"#,
            invalid("`inputResponses` must be an object"),
        ),
        (
            r#""name":"confirm_deploy","requestState":7"#,
            invalid("`requestState` must be a string"),
        ),
        (
            r#""name":"confirm_deploy","requestState":{"s":[1]}"#,
            invalid("`requestState` must be a string"),
        ),
        (
            r#""name":"confirm_deploy","requestState":["s"]"#,
            invalid("`requestState` must be a string"),
        ),
        (
            r#""name":"confirm_deploy","requestState":"forged""#,
            invalid(mcp_runtime::state::INVALID_STATE_MESSAGE),
        ),
        // The round's members are checked before the target: a bad `inputResponses` is
        // named even when the tool is unknown.
        (
            r#""name":"nope","inputResponses":1"#,
            invalid("`inputResponses` must be an object"),
        ),
    ];
    for (members, expected) in cases {
        let answer = alike_on_stdio(&server, &with_meta(members)).await;
        assert_eq!(error(&answer), expected, "members {members}");
        assert_eq!(answer.json()["id"], 1);
        // Over HTTP the `Mcp-Name` header is checked first; where the body has a string
        // name for it to mirror, the body's checks answer as on stdio.
        if members.starts_with(r#""name":""#) {
            let over_http = alike(addr, &with_meta(members)).await;
            assert_eq!(over_http.body, answer.body, "members {members}");
        }
    }
    // Without `_meta` the lifecycle check comes first, whatever else is wrong.
    let missing_meta = (400, -32602, "missing `_meta`".to_owned());
    let answer = alike_on_stdio(&server, r#"{"name":5,"inputResponses":1}"#).await;
    assert_eq!(error(&answer), missing_meta);
    let answer = alike(addr, r#"{"name":5,"inputResponses":1}"#).await;
    assert_eq!(error(&answer), missing_meta);
    // Without a string name to mirror, the client sends no `Mcp-Name` header.
    let answer = alike(addr, &with_meta(r#""name":5"#)).await;
    assert_eq!(
        error(&answer),
        (
            400,
            -32020,
            "missing `Mcp-Name` header, required on `tools/call`".to_owned()
        )
    );
}

#[tokio::test]
async fn params_that_are_null_missing_or_not_an_object() {
    let running = start(deploy::server(7)).await;
    let addr = running.addr;
    // `null` is no params at all: `_meta` is missing.
    let answer = alike(addr, "null").await;
    assert_eq!(error(&answer), (400, -32602, "missing `_meta`".to_owned()));
    let missing = post(addr, r#"{"jsonrpc":"2.0","id":1,"method":"tools/call"}"#).await;
    assert_eq!(missing.body, answer.body);
    for params in ["[]", r#"[{"name":"deploy"}]"#, "5", r#""deploy""#, "true"] {
        let answer = alike(addr, params).await;
        assert_eq!(
            error(&answer),
            (400, -32600, "`params` must be an object".to_owned()),
            "params {params}"
        );
    }
}

#[tokio::test]
async fn arguments_are_read_by_the_tools_own_type() {
    let running = start(deploy::server(7)).await;
    let addr = running.addr;
    // Arguments of the wrong shape fail as a tool result the model can read.
    let answer = alike(
        addr,
        &with_meta(r#""name":"deploy","arguments":{"service":5}"#),
    )
    .await;
    assert_eq!(answer.status, 200);
    let text = tool_error(&answer);
    assert!(
        text.starts_with("invalid arguments for tool `deploy`: invalid type: integer `5`"),
        "{text}"
    );
    let answer = alike(addr, &with_meta(r#""name":"deploy","arguments":{}"#)).await;
    assert_eq!(
        tool_error(&answer),
        "invalid arguments for tool `deploy`: missing field `service`"
    );
    // `null` arguments are none at all.
    let answer = alike(addr, &with_meta(r#""name":"deploy","arguments":null"#)).await;
    assert_eq!(
        tool_error(&answer),
        "invalid arguments for tool `deploy`: missing field `service`"
    );
    // Deep arguments within the server's limit are read whole, and ignored where the type
    // has no field for them.
    let deep = "[".repeat(30) + &"]".repeat(30);
    let members = format!(r#""name":"deploy","arguments":{{"service":"api","extra":{deep}}}"#);
    let answer = alike(addr, &with_meta(&members)).await;
    assert_eq!(answer.json()["result"]["resultType"], "input_required");
    // Deeper than the limit, the message is refused before it is parsed.
    let deep = "[".repeat(40) + &"]".repeat(40);
    let members = format!(r#""name":"deploy","arguments":{{"service":"api","extra":{deep}}}"#);
    let answer = alike(addr, &with_meta(&members)).await;
    assert_eq!(error(&answer).1, -32600);
}

#[tokio::test]
async fn a_member_sent_twice_keeps_its_last_value_in_either_order() {
    let running = start(deploy::server(7)).await;
    let addr = running.addr;
    let answer = alike(
        addr,
        &with_meta(
            r#""name":"nope","inputResponses":5,"inputResponses":{},"name":"confirm_deploy""#,
        ),
    )
    .await;
    assert_eq!(answer.json()["result"]["resultType"], "input_required");
    let answer = alike(
        addr,
        &with_meta(r#""name":"deploy","arguments":{},"arguments":[]"#),
    )
    .await;
    assert_eq!(
        error(&answer),
        (200, -32602, "`arguments` must be an object".to_owned())
    );
    // Answers under a key sent twice: the last one is read.
    let first = post(
        addr,
        &message(&with_meta(r#""name":"confirm_deploy""#), true),
    )
    .await;
    let state = first.json()["result"]["requestState"].clone();
    let members = format!(
        r#""name":"confirm_deploy","requestState":{state},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}},"confirm":{{"action":"accept","content":{{"ok":false}}}}}}"#
    );
    let answer = alike(addr, &with_meta(&members)).await;
    assert_eq!(
        answer.json()["result"]["content"][0]["text"],
        "Deployment not confirmed."
    );
}

#[tokio::test]
async fn a_whole_flow_runs_with_method_after_params() {
    let running = start(deploy::server(7)).await;
    let addr = running.addr;
    let first = post(
        addr,
        &message(
            &with_meta(r#""name":"confirm_deploy","arguments":{}"#),
            false,
        ),
    )
    .await;
    let result = &first.json()["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    let members = format!(
        r#""name":"confirm_deploy","arguments":{{}},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":{}"#,
        result["requestState"]
    );
    let answer = post(addr, &message(&with_meta(&members), false)).await;
    assert_eq!(
        answer.json()["result"],
        json!({
            "content": [{"type": "text", "text": "Deployment confirmed."}],
            "resultType": "complete",
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "deploy", "version": "0.0.0"}},
        }),
    );
    // The state is bound to the arguments: `{}`, missing and `null` alike, anything else not.
    for arguments in ["", r#","arguments":null"#] {
        let members = format!(
            r#""name":"confirm_deploy"{arguments},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":{}"#,
            result["requestState"]
        );
        let answer = alike(addr, &with_meta(&members)).await;
        assert_eq!(answer.json()["result"]["resultType"], "complete");
    }
    // A state written with escapes is the same state: its first character as `\u00XX`.
    let state = result["requestState"].as_str().unwrap();
    let first = state.chars().next().unwrap();
    let escaped = format!(
        r#""\u{:04x}{}""#,
        u32::from(first),
        &state[first.len_utf8()..]
    );
    let members = format!(
        r#""name":"confirm_deploy","arguments":{{}},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":{escaped}"#
    );
    let answer = alike(addr, &with_meta(&members)).await;
    assert_eq!(answer.json()["result"]["resultType"], "complete");
    let members = format!(
        r#""name":"confirm_deploy","arguments":{{"x":1}},"inputResponses":{{"confirm":{{"action":"accept","content":{{"ok":true}}}}}},"requestState":{}"#,
        result["requestState"]
    );
    let answer = alike(addr, &with_meta(&members)).await;
    assert!(
        client::is_state_refusal(&answer.json()),
        "{}",
        answer.json()
    );
}
