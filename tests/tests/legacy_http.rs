//! Legacy (2025-11-25) sessions over Streamable HTTP: the handshake, version negotiation, the
//! session rules (ids, statuses, `DELETE`, expiry, the table's bound, the owning subject) and
//! the standalone stream. The flows on a session are in `legacy_flows.rs`. Every message a
//! test sees is checked against the 2025-11-25 schema.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;
#[path = "support/handlers.rs"]
mod handlers;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use std::time::Duration;

use legacy::{Client, LEGACY, send};
use mcp_examples::deploy as deploy_tools;
use mcp_runtime::server::Server;
use serde_json::json;

#[tokio::test]
async fn initialize_negotiates_the_version_and_opens_a_session() {
    let running = client::start(deploy::server(1)).await;
    let mut ids = Vec::new();
    for (asked, answered) in [
        ("2025-11-25", "2025-11-25"),
        ("2025-06-18", "2025-06-18"),
        ("2025-03-26", "2025-03-26"),
        ("2024-11-05", "2025-11-25"),
    ] {
        let (session, response) =
            Client::open_with(running.addr, asked, json!({"elicitation": {}})).await;
        assert_eq!(session.version, answered, "asked {asked}");
        let result = &response["result"];
        assert!(result.get("resultType").is_none(), "{result}");
        assert_eq!(result["serverInfo"]["name"], "deploy");
        assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
        assert!(result["capabilities"]["logging"].is_object());
        assert_eq!(session.session.len(), 32);
        assert!(session.session.bytes().all(|byte| byte.is_ascii_hexdigit()));
        ids.push(session.session);
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 4, "every session has its own id");
}

#[tokio::test]
async fn discovery_lists_every_version_and_the_stateless_wire_is_unchanged() {
    let running = client::start(deploy::server(1)).await;
    let answer = client::call(running.addr, json!(1), "server/discover", json!({})).await;
    let versions = &answer.json()["result"]["supportedVersions"];
    assert_eq!(
        versions,
        &json!(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"])
    );
    // A 2026-07-28 request naming a legacy version is refused with the list.
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/protocolVersion"] = json!(LEGACY);
    let body =
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"_meta": meta}});
    let refused = client::send(
        running.addr,
        "POST",
        &[("MCP-Protocol-Version", LEGACY)],
        body.to_string().as_bytes(),
    )
    .await;
    assert_eq!(refused.status, 400);
    let error = &refused.json()["error"];
    assert_eq!(error["code"], -32022);
    assert_eq!(error["data"]["supported"], *versions);
}

#[tokio::test]
async fn session_rules_follow_the_2025_transport() {
    let running = client::start(deploy::server(1)).await;
    let addr = running.addr;
    let session = Client::open(addr).await;
    let list = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/list"}).to_string();
    // No session id: 400. An unknown one: 404, so that clients initialise again.
    send(
        addr,
        "POST",
        &[("mcp-protocol-version", LEGACY)],
        list.clone().into_bytes(),
    )
    .await
    .refusal(400)
    .await;
    let unknown_headers = [("mcp-session-id", "00112233445566778899aabbccddeeff")];
    let unknown = send(addr, "POST", &unknown_headers, list.clone().into_bytes()).await;
    unknown.refusal(404).await;
    // A protocol header other than the session's version: 400.
    let headers = [
        ("mcp-session-id", session.session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let mismatched = send(addr, "POST", &headers, list.into_bytes()).await;
    mismatched.refusal(400).await;
    // An unknown method is a JSON-RPC error, never a 404.
    let unknown_method = session.request(6, "tasks/list", json!({})).await;
    assert_eq!(unknown_method["error"]["code"], -32601);
    assert_eq!(
        session.request(7, "ping", json!({})).await["result"],
        json!({})
    );
    // Lists lose the members only 2026-07-28 has.
    let tools = session.request(8, "tools/list", json!({})).await;
    schema::assert_legacy_valid("ListToolsResult", &tools["result"]);
    for member in ["resultType", "ttlMs", "cacheScope"] {
        assert!(tools["result"].get(member).is_none(), "{member}");
    }
    assert_eq!(tools["result"]["tools"][0]["name"], "deploy");
    // DELETE ends the session.
    assert_eq!(session.delete().await, 204);
    let gone = session
        .post(&json!({"jsonrpc": "2.0", "id": 9, "method": "ping"}))
        .await;
    gone.refusal(404).await;
    assert_eq!(session.delete().await, 404);
}

#[tokio::test]
async fn subscribed_resources_are_announced_on_the_standalone_stream() {
    let server = handlers::fixture_server();
    let running = client::start(server.clone()).await;
    let session = Client::open(running.addr).await;
    let headers = [
        ("mcp-session-id", session.session.as_str()),
        ("mcp-protocol-version", LEGACY),
    ];
    let mut standalone = send(running.addr, "GET", &headers, Vec::new()).await;
    assert_eq!(standalone.status, 200);
    assert!(standalone.is_event_stream());
    let subscribed = session
        .request(2, "resources/subscribe", json!({"uri": "test://readme"}))
        .await;
    assert_eq!(subscribed["result"], json!({}));
    server.notify_resource_updated("test://other");
    server.notify_resource_updated("test://readme");
    let update = standalone.next_message().await.unwrap();
    schema::assert_legacy_valid("ResourceUpdatedNotification", &update);
    assert_eq!(update["params"]["uri"], "test://readme");
    server.notify_tools_list_changed();
    let changed = standalone.next_message().await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    session
        .request(3, "resources/unsubscribe", json!({"uri": "test://readme"}))
        .await;
    server.notify_resource_updated("test://readme");
    server.notify_prompts_list_changed();
    let next = standalone.next_message().await.unwrap();
    assert_eq!(next["method"], "notifications/prompts/list_changed");
    // Ending the session ends its streams.
    assert_eq!(session.delete().await, 204);
    assert_eq!(standalone.next_message().await, None);
}

/// Eviction alone: sessions idle for an hour cannot expire during the test, so the one
/// refused was pushed out by the table's bound, and it is the least recently active one.
#[tokio::test]
async fn at_the_maximum_the_least_recently_active_idle_session_gives_way() {
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .session_idle_timeout(Duration::from_secs(3600))
        .max_sessions(2)
        .build();
    let running = client::start(server.clone()).await;
    let first = Client::open(running.addr).await;
    let second = Client::open(running.addr).await;
    // `first` becomes the more recently active of the two.
    assert_eq!(
        first.request(1, "ping", json!({})).await["result"],
        json!({})
    );
    let third = Client::open(running.addr).await;
    assert_eq!(server.legacy_sessions(), 2);
    let evicted = second
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    evicted.refusal(404).await;
    for (id, kept) in [(3, &first), (4, &third)] {
        assert_eq!(
            kept.request(id, "ping", json!({})).await["result"],
            json!({})
        );
    }
}

/// Expiry alone: the table is far from its bound, so nothing is evicted. Waiting three times
/// the idle timeout cannot come short of it, however slow the machine.
#[tokio::test]
async fn an_idle_session_expires() {
    const IDLE: Duration = Duration::from_millis(300);
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .session_idle_timeout(IDLE)
        .build();
    let running = client::start(server.clone()).await;
    let idle = Client::open(running.addr).await;
    tokio::time::sleep(IDLE * 3).await;
    let expired = idle
        .post(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
        .await;
    expired.refusal(404).await;
    assert_eq!(server.legacy_sessions(), 0, "the expired session is gone");
}

#[tokio::test]
async fn a_session_belongs_to_the_subject_that_opened_it() {
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .subject(|parts| {
            parts
                .headers
                .get("x-user")
                .and_then(|value| value.to_str().ok())
                .map(str::to_owned)
        })
        .build();
    let running = client::start(server).await;
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let opened = send(
        running.addr,
        "POST",
        &[("x-user", "ada")],
        body.to_string().into_bytes(),
    )
    .await;
    let id = opened.header("mcp-session-id").unwrap().to_owned();
    let initialized = opened.message().await;
    schema::assert_legacy_valid("InitializeResult", &initialized["result"]);
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let own = send(
        running.addr,
        "POST",
        &[("x-user", "ada"), ("mcp-session-id", &id)],
        ping.clone().into_bytes(),
    )
    .await;
    assert_eq!(own.status, 200);
    assert_eq!(own.message().await["result"], json!({}));
    let other = send(
        running.addr,
        "POST",
        &[("x-user", "eve"), ("mcp-session-id", &id)],
        ping.into_bytes(),
    )
    .await;
    other.refusal(404).await;
}

#[tokio::test]
async fn get_and_delete_refuse_a_protocol_version_other_than_the_sessions() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let id = session.session.as_str();
    for method in ["GET", "DELETE"] {
        for version in ["2025-06-18", "2026-07-28", "1999-01-01", "not a version"] {
            let headers = [("mcp-session-id", id), ("mcp-protocol-version", version)];
            let refused = send(running.addr, method, &headers, Vec::new())
                .await
                .refusal(400)
                .await;
            assert_eq!(refused["error"]["code"], -32600, "{method} {version}");
        }
    }
    // Nothing was opened or ended: with the session's version, both are served.
    let headers = [("mcp-session-id", id), ("mcp-protocol-version", LEGACY)];
    let standalone = send(running.addr, "GET", &headers, Vec::new()).await;
    assert_eq!(standalone.status, 200);
    assert!(standalone.is_event_stream());
    drop(standalone);
    let ended = send(running.addr, "DELETE", &headers, Vec::new()).await;
    assert_eq!(ended.status, 204);
    assert_eq!(session.delete().await, 404, "the session has ended");
}

#[tokio::test]
async fn initialize_is_refused_with_503_while_every_session_is_busy() {
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .max_sessions(1)
        .build();
    let running = client::start(server.clone()).await;
    let busy = Client::open(running.addr).await;
    let headers = [
        ("mcp-session-id", busy.session.as_str()),
        ("mcp-protocol-version", LEGACY),
    ];
    // An open standalone stream keeps its session busy: it may not give way.
    let standalone = send(running.addr, "GET", &headers, Vec::new()).await;
    assert_eq!(standalone.status, 200);
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}});
    let refused = send(running.addr, "POST", &[], body.to_string().into_bytes()).await;
    assert!(refused.header("mcp-session-id").is_none());
    let refused = refused.refusal(503).await;
    assert_eq!(refused["id"], 0);
    assert_eq!(refused["error"]["code"], -32603);
    assert_eq!(server.legacy_sessions(), 1);
    assert_eq!(
        busy.request(1, "ping", json!({})).await["result"],
        json!({})
    );
    // Once the busy session ends, there is room again.
    assert_eq!(busy.delete().await, 204);
    drop(standalone);
    let next = Client::open(running.addr).await;
    assert_eq!(
        next.request(2, "ping", json!({})).await["result"],
        json!({})
    );
}

#[tokio::test]
async fn a_dropped_call_stream_cancels_the_call_and_forgets_its_question() {
    let server = deploy::server(1);
    let running = client::start(server.clone()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": "api"}}});
    let mut stream = session.post(&call).await;
    assert!(stream.is_event_stream());
    let question = stream.next_message().await.unwrap();
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(server.legacy_requests_waiting(), 1);
    // The client goes away while the question waits: the call is dropped with its question.
    drop(stream);
    let forgotten = async {
        while server.legacy_requests_waiting() > 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), forgotten)
        .await
        .expect("the dropped call's question is forgotten");
    // A late answer goes nowhere, and the session goes on.
    let late = json!({"jsonrpc": "2.0", "id": question["id"], "result": legacy::accept(
        json!({"environment": "staging", "replicas": 1}))});
    assert_eq!(session.post(&late).await.status, 202);
    let staged = session
        .call(2, "deploy", json!({"service": "web"}), |request| {
            assert_eq!(request["params"]["message"], "Where should web go?");
            legacy::accept(json!({"environment": "staging", "replicas": 2}))
        })
        .await;
    assert!(
        staged
            .text()
            .starts_with("Deployed 2 replicas of web to Staging"),
        "{}",
        staged.text()
    );
    assert_eq!(server.legacy_requests_waiting(), 0);
}

/// A call's question goes out with its form's fields in the order the form type declares them
/// (`environment`, `replicas`, `reason`), as the stateless era sends them and as clients show
/// them; it and the call's result keep their text, escapes included.
#[tokio::test]
async fn a_calls_question_and_result_keep_their_text() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call",
        "params": {"name": "deploy", "arguments": {"service": "é \"web\""}}});
    let mut stream = session.post(&call).await;
    assert!(stream.is_event_stream());
    let question = stream.next_event_text().await.unwrap();
    assert_eq!(
        question,
        concat!(
            r#"{"jsonrpc":"2.0","id":0,"method":"elicitation/create","params":{"mode":"form","#,
            r#""message":"Where should é \"web\" go?","requestedSchema":{"type":"object","#,
            r#""properties":{"environment":{"type":"string","#,
            r#""description":"Where the service goes.","oneOf":[{"const":"staging","#,
            r#""title":"staging"},{"const":"production","title":"Production (live)"}],"#,
            r#""default":"staging"},"replicas":{"type":"integer","#,
            r#""description":"How many instances to run.","minimum":1,"maximum":12,"default":2},"#,
            r#""reason":{"type":"string","description":"Why, for the change log.","#,
            r#""maxLength":200}},"required":["environment","replicas"]}}}"#
        )
    );
    let answer = json!({"jsonrpc": "2.0", "id": 0,
        "result": legacy::accept(json!({"environment": "staging", "replicas": 3}))});
    assert_eq!(session.post(&answer).await.status, 202);
    let result = stream.next_event_text().await.unwrap();
    assert_eq!(
        result,
        concat!(
            r#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"#,
            r#""text":"Deployed 3 replicas of é \"web\" to Staging.","type":"text"}]}}"#
        )
    );
    assert_eq!(stream.next_event_text().await, None);
}

/// Says which capabilities the call sees, as JSON.
#[mcp_runtime::tool]
async fn declared(cx: mcp_runtime::Cx) -> mcp_runtime::ToolResult {
    Ok(mcp_runtime::text(
        serde_json::to_string(cx.capabilities()).unwrap_or_default(),
    ))
}

/// Sessions whose clients declared the same things share one copy of them: each still sees
/// its own declaration, and a session that declared otherwise is not mistaken for them.
#[tokio::test]
async fn sessions_that_declared_the_same_each_keep_their_capabilities() {
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .tool(declared)
        .build();
    let running = client::start(server).await;
    let both = json!({"elicitation": {"form": {}, "url": {}}});
    let (first, _) = Client::open_with(running.addr, LEGACY, both.clone()).await;
    let (second, _) = Client::open_with(running.addr, LEGACY, both.clone()).await;
    let (without, _) = Client::open_with(running.addr, LEGACY, json!({"roots": {}})).await;
    for (id, session) in [(1, &first), (2, &second)] {
        let seen = session.call(id, "declared", json!({}), |_| json!({})).await;
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(seen.text()).unwrap(),
            both
        );
        let confirmed = session
            .call(
                id + 10,
                "confirm_deploy",
                json!({}),
                |_| json!({"action": "accept", "content": {"ok": true}}),
            )
            .await;
        assert_eq!(confirmed.requests().len(), 1, "{confirmed:?}");
        assert_eq!(confirmed.text(), "Deployment confirmed.");
    }
    let seen = without.call(3, "declared", json!({}), |_| json!({})).await;
    assert_eq!(seen.text(), r#"{"roots":{}}"#);
    let refused = without
        .call(13, "confirm_deploy", json!({}), |_| {
            panic!("a client without elicitation is asked nothing")
        })
        .await;
    assert!(refused.requests().is_empty(), "{refused:?}");
    assert_eq!(
        refused.response["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}}),
        "{}",
        refused.response
    );
}
