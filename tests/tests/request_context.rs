//! What a handler learns about its request (`Cx::request`): the caller's `clientInfo`, the
//! revision and era, the request's `_meta` and the HTTP headers the server exposes; on the
//! stateless wire round by round, on a legacy session, over stdio, and in the testers. And
//! the server's identity in every 2026-07-28 result's `_meta`, never in a legacy one.

#[path = "support/client.rs"]
mod client;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::time::Duration;

use legacy::Client;
use mcp_runtime::protocol::meta::META_CLIENT_INFO;
use mcp_runtime::server::{ProtocolEra, Server};
use mcp_runtime::testing::{FlowTester, ServerTester};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

#[derive(ElicitForm)]
struct Go {
    go: bool,
}

/// What `cx` says about the request, as JSON text.
fn report(cx: &Cx) -> String {
    let request = cx.request();
    json!({
        "client": request.client_info().map(|info| info.name.clone()),
        "version": request.protocol_version(),
        "legacy": request.era() == ProtocolEra::Legacy,
        "tenant": request.header("x-tenant"),
        "authorization": request.header("authorization"),
        "note": request.meta().get("example.com/note"),
    })
    .to_string()
}

/// Reports its request before and after one question.
#[tool]
async fn rounds(cx: Cx) -> ToolResult {
    let before = report(&cx);
    let go: Go = cx.elicit("Go on?").await?;
    Ok(text(format!("[{before},{},{}]", report(&cx), go.go)))
}

/// Reports its request.
#[tool]
async fn whoami(cx: Cx) -> ToolResult {
    Ok(text(report(&cx)))
}

fn server() -> Server {
    Server::builder()
        .name("context")
        .version("9.9.9")
        .expose_header("X-Tenant")
        .tool(rounds)
        .tool(whoami)
        .build()
}

fn reported(result: &Value) -> Value {
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("{result}"));
    serde_json::from_str(text).unwrap()
}

fn meta_of(client: &str) -> Value {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {}});
    meta[META_CLIENT_INFO] = json!({"name": client, "version": "1"});
    meta["example.com/note"] = json!(client);
    meta
}

async fn post(addr: std::net::SocketAddr, params: Value, headers: &[(&str, &str)]) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    let answer = client::send(addr, "POST", headers, body.to_string().as_bytes()).await;
    assert_eq!(
        answer.status,
        200,
        "{}",
        String::from_utf8_lossy(&answer.body)
    );
    answer.json()
}

#[tokio::test]
async fn each_stateless_round_sees_its_own_client_meta_and_exposed_headers() {
    let running = client::start(server()).await;
    let first = post(
        running.addr,
        json!({"name": "rounds", "_meta": meta_of("alpha")}),
        &[("X-Tenant", "a"), ("Authorization", "Bearer not-exposed")],
    )
    .await;
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required", "{first}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "context", "version": "9.9.9"})
    );
    let state = result["requestState"].as_str().unwrap();
    let second = post(
        running.addr,
        json!({
            "name": "rounds", "_meta": meta_of("beta"), "requestState": state,
            "inputResponses": {"go": {"action": "accept", "content": {"go": true}}},
        }),
        &[("x-tenant", "b")],
    )
    .await;
    let result = &second["result"];
    assert_eq!(result["resultType"], "complete", "{second}");
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "context"
    );
    let reported = reported(result);
    let [before, after, go] = &reported.as_array().unwrap()[..] else {
        panic!("{result}");
    };
    let expected = |client: &str, tenant: &str| {
        json!({"client": client, "version": "2026-07-28", "legacy": false, "tenant": tenant,
               "authorization": null, "note": client})
    };
    assert_eq!(*before, expected("alpha", "a"));
    assert_eq!(*after, expected("beta", "b"));
    assert_eq!(*go, true);
}

#[tokio::test]
async fn a_legacy_call_sees_the_client_of_initialize_and_results_carry_no_server_info() {
    let running = client::start(server()).await;
    let session = Client::open(running.addr).await;
    let exchange = session
        .call(
            1,
            "rounds",
            json!({}),
            |_| json!({"action": "accept", "content": {"go": true}}),
        )
        .await;
    let result = &exchange.response["result"];
    let reported = reported(result);
    let [before, after, _] = &reported.as_array().unwrap()[..] else {
        panic!("{result}");
    };
    let expected = json!({"client": "legacy-test", "version": "2025-11-25", "legacy": true,
                          "tenant": null, "authorization": null, "note": null});
    assert_eq!(*before, expected);
    assert_eq!(*after, expected);
    assert!(result.get("_meta").is_none(), "{result}");
    let list = session.request(2, "tools/list", json!({})).await;
    assert!(list["result"].get("_meta").is_none(), "{list}");
}

/// Serves `messages` on in-process stdio, one line each, and returns the answers to those
/// with an `id`.
async fn over_stdio(messages: Vec<Value>) -> Vec<Value> {
    let (mut input, server_in) = tokio::io::duplex(64 * 1024);
    let (server_out, output) = tokio::io::duplex(64 * 1024);
    let serving = tokio::spawn(async move { server().serve_lines(server_in, server_out).await });
    let mut lines = BufReader::new(output).lines();
    let mut answers = Vec::new();
    for message in messages {
        let line = format!("{message}\n");
        input.write_all(line.as_bytes()).await.unwrap();
        if message.get("id").is_none() {
            continue;
        }
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line())
            .await
            .expect("an answer in time")
            .unwrap()
            .expect("an answer");
        answers.push(serde_json::from_str(&line).unwrap());
    }
    drop(input);
    serving.await.unwrap().unwrap();
    answers
}

#[tokio::test]
async fn over_stdio_there_are_no_headers_on_either_era() {
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "whoami", "_meta": meta_of("piped")}});
    let answers = over_stdio(vec![call]).await;
    assert_eq!(
        reported(&answers[0]["result"]),
        json!({"client": "piped", "version": "2026-07-28", "legacy": false, "tenant": null,
               "authorization": null, "note": "piped"})
    );
    let answers = over_stdio(vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "piped-legacy", "version": "1"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "whoami", "_meta": {"example.com/note": "kept"}}}),
    ])
    .await;
    assert_eq!(
        reported(&answers[1]["result"]),
        json!({"client": "piped-legacy", "version": "2025-06-18", "legacy": true,
               "tenant": null, "authorization": null, "note": "kept"})
    );
}

#[tokio::test]
async fn testers_hand_their_meta_and_headers_to_the_handler() {
    let own = FlowTester::tool(whoami)
        .meta(META_CLIENT_INFO, json!({"name": "tester", "version": "1"}))
        .meta("example.com/note", json!("noted"))
        .header("x-tenant", "t")
        .start()
        .await;
    let result: Value = serde_json::from_str(own.text().unwrap()).unwrap();
    assert_eq!(result["client"], "tester");
    assert_eq!(result["note"], "noted");
    assert_eq!(result["tenant"], "t");
    // A tester made from a server exposes what the server exposes, and nothing else.
    let shared = ServerTester::new(server())
        .tool("whoami")
        .header("x-tenant", "u")
        .header("authorization", "Bearer hidden")
        .start()
        .await;
    let result: Value = serde_json::from_str(shared.text().unwrap()).unwrap();
    assert_eq!(result["tenant"], "u");
    assert_eq!(result["authorization"], Value::Null);
    assert_eq!(result["client"], Value::Null);
}

#[tokio::test]
async fn every_stateless_result_carries_the_server_info_unless_turned_off() {
    let running = client::start(server()).await;
    for method in ["tools/list", "server/discover"] {
        let answer = client::call(running.addr, json!(1), method, json!({})).await;
        let info = &answer.json()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
        assert_eq!(
            *info,
            json!({"name": "context", "version": "9.9.9"}),
            "{method}"
        );
    }
    let quiet = Server::builder()
        .name("quiet")
        .server_info_in_results(false)
        .tool(whoami)
        .build();
    let running = client::start(quiet).await;
    let list = client::call(running.addr, json!(1), "tools/list", json!({})).await;
    assert!(list.json()["result"].get("_meta").is_none());
    let call = client::call(
        running.addr,
        json!(2),
        "tools/call",
        json!({"name": "whoami"}),
    )
    .await;
    let result = &call.json()["result"];
    assert_eq!(result["resultType"], "complete");
    assert!(result.get("_meta").is_none(), "{result}");
}
