//! Dispatch without a transport: `Server::handle` on raw messages, answers checked on the wire.

#[path = "../../tests/tests/support/handlers.rs"]
mod handlers;

use mcp_runtime::server::{Outcome, RequestFacts, Server};
use serde_json::{Value, json};

const VERSION: &str = "2026-07-28";

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn request(id: Value, method: &str, mut params: Value) -> Vec<u8> {
    if params.get("_meta").is_none() {
        params["_meta"] = meta();
    }
    serde_json::to_vec(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }))
        .unwrap()
}

async fn send_raw(server: &Server, message: &[u8]) -> (u16, Value) {
    let Outcome { status, body, .. } = server.handle(message, RequestFacts::stdio()).finish().await;
    (
        status,
        serde_json::from_slice(&body.expect("an answer")).unwrap(),
    )
}

async fn send(server: &Server, method: &str, params: Value) -> (u16, Value) {
    send_raw(server, &request(json!(1), method, params)).await
}

#[tokio::test]
async fn discover_reports_versions_capabilities_and_identity() {
    let server = handlers::fixture_server();
    let (status, answer) = send(&server, "server/discover", json!({})).await;
    assert_eq!(status, 200);
    let result = &answer["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(
        result["supportedVersions"],
        json!([VERSION, "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    for capability in ["tools", "prompts", "resources", "completions"] {
        assert!(
            result["capabilities"].get(capability).is_some(),
            "{capability}"
        );
    }
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "fixture"
    );
}

#[tokio::test]
async fn lists_follow_registration_order_and_carry_cache_hints() {
    let server = handlers::fixture_server();
    let (_, answer) = send(&server, "tools/list", json!({})).await;
    let names: Vec<&str> = answer["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["echo", "ask", "panics", "slow", "needs_sampling"]);
    for method in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        let (_, answer) = send(&server, method, json!({})).await;
        let result = &answer["result"];
        assert_eq!(result["resultType"], "complete", "{method}");
        assert_eq!(result["ttlMs"], 0, "{method}");
        assert_eq!(result["cacheScope"], "private", "{method}");
    }
    let (_, read) = send(&server, "resources/read", json!({ "uri": "test://readme" })).await;
    assert_eq!(read["result"]["contents"][0]["text"], "read me");
    assert_eq!(read["result"]["cacheScope"], "private");
}

#[tokio::test]
async fn calls_complete_or_ask_with_the_right_result_type() {
    let server = handlers::fixture_server();
    let (_, done) = send(
        &server,
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "hi" } }),
    )
    .await;
    assert_eq!(done["result"]["resultType"], "complete");
    assert_eq!(done["result"]["content"][0]["text"], "hi");
    let (_, asked) = send(&server, "tools/call", json!({ "name": "ask" })).await;
    assert_eq!(asked["result"]["resultType"], "input_required");
    // The handler's own state bytes travel signed by the server, never as they are.
    let state = asked["result"]["requestState"].as_str().unwrap();
    assert_ne!(state, "round-1");
    let answers = json!({ "name": { "action": "accept", "content": { "name": "ada" } } });
    let params = json!({ "name": "ask", "inputResponses": answers, "requestState": state });
    let (_, answered) = send(&server, "tools/call", params).await;
    assert_eq!(answered["result"]["content"][0]["text"], "hello ada");
    let forged = json!({ "name": "ask", "inputResponses": answers, "requestState": "round-1" });
    let (_, refused) = send(&server, "tools/call", forged).await;
    assert_eq!(refused["error"]["code"], -32602);
}

#[tokio::test]
async fn lifecycle_errors_carry_their_codes_and_statuses() {
    let server = handlers::fixture_server();
    let no_meta = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {} });
    let (status, answer) = send_raw(&server, no_meta.to_string().as_bytes()).await;
    assert_eq!(
        (
            status,
            answer["error"]["code"].clone(),
            answer["id"].clone()
        ),
        (400, json!(-32602), json!(7))
    );
    for removed in [
        "initialize",
        "ping",
        "logging/setLevel",
        "resources/subscribe",
        "unknown/method",
    ] {
        let (status, answer) = send(&server, removed, json!({})).await;
        assert_eq!(
            (status, answer["error"]["code"].clone()),
            (404, json!(-32601)),
            "{removed}"
        );
    }
    let old = json!({ "_meta": { "io.modelcontextprotocol/protocolVersion": "2025-06-18",
                                 "io.modelcontextprotocol/clientCapabilities": {} } });
    let (status, answer) = send(&server, "server/discover", old).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32022))
    );
    assert_eq!(answer["error"]["data"]["requested"], "2025-06-18");
    let (status, answer) = send(&server, "tools/call", json!({ "name": "needs_sampling" })).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (400, json!(-32021))
    );
    assert_eq!(
        answer["error"]["data"]["requiredCapabilities"],
        json!({ "sampling": {} })
    );
}

#[tokio::test]
async fn http_facts_check_the_protocol_header_before_the_version() {
    let server = handlers::fixture_server();
    let message = request(json!("h"), "server/discover", json!({}));
    let mismatch = RequestFacts::http(Some("2025-06-18".into()), None);
    let outcome = server.handle(&message, mismatch).finish().await;
    let answer: Value = serde_json::from_slice(&outcome.body.unwrap()).unwrap();
    assert_eq!(
        (outcome.status, answer["error"]["code"].clone()),
        (400, json!(-32020))
    );
    let matching = RequestFacts::http(Some(VERSION.into()), None);
    assert_eq!(server.handle(&message, matching).finish().await.status, 200);
}

#[tokio::test]
async fn bad_params_are_invalid_params_and_unknown_uris_name_the_uri() {
    let server = handlers::fixture_server();
    let (_, answer) = send(
        &server,
        "resources/read",
        json!({ "uri": "test://missing" }),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602);
    assert_eq!(answer["error"]["data"]["uri"], "test://missing");
    for responses in [json!(null), json!(5), json!([1])] {
        let params = json!({ "name": "ask", "inputResponses": responses });
        let (_, answer) = send(&server, "tools/call", params).await;
        assert_eq!(answer["error"]["code"], -32602, "{responses}");
    }
    let (_, answer) = send(&server, "tools/call", json!({ "name": "nope" })).await;
    assert_eq!(answer["error"]["code"], -32602);
    let (_, answer) = send(
        &server,
        "tools/call",
        json!({ "name": "echo", "arguments": [1] }),
    )
    .await;
    assert_eq!(answer["error"]["code"], -32602);
}

#[tokio::test]
async fn a_panicking_handler_fails_its_request_only() {
    let server = handlers::fixture_server();
    let (status, answer) = send(&server, "tools/call", json!({ "name": "panics" })).await;
    assert_eq!(
        (status, answer["error"]["code"].clone()),
        (200, json!(-32603))
    );
    let (_, answer) = send(
        &server,
        "tools/call",
        json!({ "name": "echo", "arguments": { "text": "still here" } }),
    )
    .await;
    assert_eq!(answer["result"]["content"][0]["text"], "still here");
}

#[tokio::test]
async fn ids_are_echoed_exactly_and_notifications_get_no_answer() {
    let server = handlers::fixture_server();
    for id in [
        json!(0),
        json!("0"),
        json!(-3),
        json!("a-b"),
        json!(18446744073709551615u64),
    ] {
        let (_, answer) = send_raw(&server, &request(id.clone(), "tools/list", json!({}))).await;
        assert_eq!(answer["id"], id);
    }
    let note = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{}}"#;
    let outcome = server.handle(note, RequestFacts::stdio()).finish().await;
    assert_eq!((outcome.status, outcome.body), (202, None));
}

#[tokio::test]
async fn completion_filters_prompt_arguments() {
    let server = handlers::fixture_server();
    let params = json!({ "ref": { "type": "ref/prompt", "name": "greet" },
                         "argument": { "name": "name", "value": "al" } });
    let (_, answer) = send(&server, "completion/complete", params).await;
    assert_eq!(
        answer["result"]["completion"]["values"],
        json!(["alice", "albert"])
    );
    assert_eq!(answer["result"]["resultType"], "complete");
}

#[tokio::test]
async fn progress_notifications_reach_the_receiver_before_the_answer() {
    let server = handlers::fixture_server();
    let mut params = json!({ "name": "slow" });
    params["_meta"] = meta();
    params["_meta"]["progressToken"] = json!("p1");
    let handling = server.handle(
        &request(json!(1), "tools/call", params),
        RequestFacts::stdio(),
    );
    let mut progress = handling
        .messages
        .expect("a progress token makes a receiver");
    let mut outcome = handling.outcome;
    // Everything in the order it reaches the receiver and the answer: a message waiting on
    // the receiver is taken before the answer is looked at.
    let mut seen = Vec::new();
    let outcome = loop {
        tokio::select! {
            biased;
            Some(note) = progress.recv() => {
                assert_eq!(note["params"]["progressToken"], "p1");
                seen.push(json!(note["params"]["progress"]));
            }
            outcome = &mut outcome => break outcome,
        }
    };
    seen.push(json!("answer"));
    // Nothing is left to arrive after the answer.
    while let Some(late) = progress.try_recv() {
        seen.push(late);
    }
    assert_eq!(
        seen,
        [json!(0.0), json!(50.0), json!(100.0), json!("answer")]
    );
    assert_eq!(outcome.status, 200);
}

fn nested(depth: usize) -> Value {
    (0..depth).fold(json!(1), |inner, _| json!([inner]))
}

#[tokio::test]
async fn arguments_nested_past_the_limit_are_refused_before_parsing() {
    let server = Server::builder()
        .tool(handlers::Echo)
        .max_json_depth(4)
        .build();
    // The limit counts from an answer's content, four levels into the message; arguments sit
    // two levels in, so `{"text": [[[[[1]]]]]}` is the deepest served.
    let (status, answer) = send(
        &server,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": nested(5)}}),
    )
    .await;
    assert_eq!((status, answer.get("error")), (200, None), "{answer}");
    let (status, answer) = send(
        &server,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": nested(6)}}),
    )
    .await;
    assert_eq!(status, 400);
    assert_eq!(answer["error"]["code"], -32600);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("4 levels"),
        "{answer}"
    );
    // The default refuses the 120-deep arrays of the measured attack, answers included.
    let server = handlers::fixture_server();
    let (status, _) = send(
        &server,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": nested(120)}}),
    )
    .await;
    assert_eq!(status, 400);
    let (status, _) = send(
        &server,
        "tools/call",
        json!({"name": "ask", "inputResponses": {"name": {"action": "accept", "content": {"name": nested(120)}}}}),
    )
    .await;
    assert_eq!(status, 400);
}
