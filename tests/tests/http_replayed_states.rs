//! A state replayed on another request over HTTP: under another subject (as the builder's
//! `subject` hook reads it from the request), with other arguments, on another tool or on
//! another resource URI. Each is refused with the one answer that says nothing of why.

#[path = "support/client.rs"]
mod client;

use std::net::SocketAddr;

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ResourceResult, ToolResult, resource, text, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Size {
    size: u32,
}

/// Asks once, then answers with the subject and the size.
#[tool]
async fn pick(args: Size, cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Sure?").await?;
    let who = cx.subject().unwrap_or("nobody").to_owned();
    Ok(text(format!("{who} picked {} ({})", args.size, confirm.ok)))
}

/// The same shape as `pick` under another name.
#[tool]
async fn choose(args: Size, cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit("Sure?").await?;
    Ok(text(format!("chose {} ({})", args.size, confirm.ok)))
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Id {
    id: String,
}

/// A template that asks before it reads.
#[resource(uri = "test://doc/{id}", mime_type = "text/plain")]
async fn doc(args: Id, cx: Cx) -> ResourceResult {
    let confirm: Confirm = cx.elicit("Sure?").await?;
    Ok(mcp_runtime::protocol::ReadResourceResult {
        contents: vec![mcp_runtime::protocol::ResourceContents::Text(
            mcp_runtime::protocol::TextResourceContents {
                uri: format!("test://doc/{}", args.id),
                text: format!("doc {} ({})", args.id, confirm.ok),
                ..Default::default()
            },
        )],
        ..Default::default()
    })
}

/// The subject is the bearer token, as an authenticating proxy would pass it on.
fn server() -> Server {
    Server::builder()
        .tool(pick)
        .tool(choose)
        .resource(doc)
        .subject(|parts| {
            let token = parts.headers.get("authorization")?.to_str().ok()?;
            token.strip_prefix("Bearer ").map(str::to_owned)
        })
        .build()
}

/// One request as `bearer` (none when empty), with `state` and a confirmation when given.
async fn send(
    addr: SocketAddr,
    bearer: &str,
    method: &str,
    mut params: Value,
    state: Option<&str>,
) -> Value {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({ "elicitation": {} });
    params["_meta"] = meta;
    if let Some(state) = state {
        params["requestState"] = json!(state);
        params["inputResponses"] =
            json!({ "confirm": { "action": "accept", "content": { "ok": true } } });
    }
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let authorization = if bearer.is_empty() {
        String::new()
    } else {
        format!("Bearer {bearer}")
    };
    let answer = client::send(
        addr,
        "POST",
        &[("Authorization", &authorization)],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(answer.status, 200, "{method} {params}");
    answer.json()
}

fn pick_call(size: u32) -> Value {
    json!({ "name": "pick", "arguments": { "size": size } })
}

fn state_of(answer: &Value) -> String {
    answer["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {answer}"))
        .to_owned()
}

#[tokio::test]
async fn a_tool_state_is_refused_under_another_subject_arguments_or_tool() {
    let running = client::start(server()).await;
    let addr = running.addr;
    let first = send(addr, "alice", "tools/call", pick_call(3), None).await;
    let state = state_of(&first);
    // The state continues the request it was minted for.
    let done = send(addr, "alice", "tools/call", pick_call(3), Some(&state)).await;
    assert_eq!(
        done["result"]["content"][0]["text"], "alice picked 3 (true)",
        "{done}"
    );
    let cases = [
        ("another subject", "mallory", "tools/call", pick_call(3)),
        ("no subject", "", "tools/call", pick_call(3)),
        (
            "a subject that extends it",
            "alice2",
            "tools/call",
            pick_call(3),
        ),
        ("other arguments", "alice", "tools/call", pick_call(4)),
        (
            "another tool",
            "alice",
            "tools/call",
            json!({ "name": "choose", "arguments": { "size": 3 } }),
        ),
        (
            "a resource",
            "alice",
            "resources/read",
            json!({ "uri": "test://doc/3" }),
        ),
    ];
    for (case, bearer, method, params) in cases {
        let answer = send(addr, bearer, method, params, Some(&state)).await;
        assert!(client::is_state_refusal(&answer), "{case}: {answer}");
    }
}

#[tokio::test]
async fn a_resource_state_is_refused_on_another_uri() {
    let running = client::start(server()).await;
    let addr = running.addr;
    let read = |id: &str| json!({ "uri": format!("test://doc/{id}") });
    let first = send(addr, "alice", "resources/read", read("a"), None).await;
    let state = state_of(&first);
    let done = send(addr, "alice", "resources/read", read("a"), Some(&state)).await;
    assert_eq!(
        done["result"]["contents"][0]["text"], "doc a (true)",
        "{done}"
    );
    for (case, bearer, params) in [
        ("another URI", "alice", read("b")),
        ("a longer URI", "alice", read("ab")),
        ("another subject", "bob", read("a")),
    ] {
        let answer = send(addr, bearer, "resources/read", params, Some(&state)).await;
        assert!(client::is_state_refusal(&answer), "{case}: {answer}");
    }
    // Nor does it continue a tool call.
    let answer = send(addr, "alice", "tools/call", pick_call(3), Some(&state)).await;
    assert!(client::is_state_refusal(&answer), "on a tool: {answer}");
}
