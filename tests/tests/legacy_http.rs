//! Legacy (2025-11-25) sessions over Streamable HTTP: the handshake, the session rules, and
//! the same compiled flows driven through server-to-client requests on the call's stream.
//! Every message a test sees is checked against the 2025-11-25 schema.

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

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use legacy::{Client, LEGACY, accept, send};
use mcp_runtime::protocol::LoggingLevel;
use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

/// Deploys `service` to staging with `replicas`, answering the one question it asks.
async fn stage(session: &Client, id: u64, service: &str, replicas: u32) -> legacy::Exchange {
    let staged = session
        .call(id, "deploy", json!({"service": service}), |_| {
            target("staging", replicas)
        })
        .await;
    assert_eq!(
        staged.text(),
        format!("Deployed {replicas} replicas of {service} to Staging (release).")
    );
    staged
}

fn target(environment: &str, replicas: u32) -> Value {
    accept(json!({"environment": environment, "replicas": replicas, "reason": "release"}))
}

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
    let missing = send(
        addr,
        "POST",
        &[("mcp-protocol-version", LEGACY)],
        list.clone().into_bytes(),
    )
    .await;
    assert_eq!(missing.status, 400);
    let unknown_headers = [("mcp-session-id", "00112233445566778899aabbccddeeff")];
    let unknown = send(addr, "POST", &unknown_headers, list.clone().into_bytes()).await;
    assert_eq!(unknown.status, 404);
    // A protocol header other than the session's version: 400.
    let headers = [
        ("mcp-session-id", session.session.as_str()),
        ("mcp-protocol-version", "2025-06-18"),
    ];
    let mismatched = send(addr, "POST", &headers, list.into_bytes()).await;
    assert_eq!(mismatched.status, 400);
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
    assert_eq!(gone.status, 404);
    assert_eq!(session.delete().await, 404);
}

#[tokio::test]
async fn deploy_runs_its_rounds_through_server_to_client_requests() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let staged = stage(&session, 1, "api", 3).await;
    let asked = staged.requests();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0]["method"], "elicitation/create");
    assert_eq!(asked[0]["params"]["message"], "Where should api go?");
    schema::assert_legacy_valid("ElicitRequest", asked[0]);
    assert!(staged.response["result"].get("resultType").is_none());
    schema::assert_legacy_valid("CallToolResult", &staged.response["result"]);

    let mut answers = vec![target("production", 2), accept(json!({"ok": true}))].into_iter();
    let shipped = session
        .call(2, "deploy", json!({"service": "web"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(
        shipped.text(),
        "Deployed 2 replicas of web to Production (release)."
    );
    let messages: Vec<&Value> = shipped
        .requests()
        .iter()
        .map(|r| &r["params"]["message"])
        .collect();
    assert_eq!(
        messages,
        [
            "Where should web go?",
            "Ship 2 replicas of web to production?"
        ]
    );
    // Every question travels under its own id.
    let ids: Vec<&Value> = shipped.requests().iter().map(|r| &r["id"]).collect();
    assert_ne!(ids[0], ids[1]);

    let mut answers = vec![target("production", 2), accept(json!({"ok": false}))].into_iter();
    let kept = session
        .call(3, "deploy", json!({"service": "web"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(kept.text(), "Nothing deployed.");
}

#[tokio::test]
async fn decline_and_cancel_end_the_call_through_the_handler() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    for (action, said) in [("decline", "declined"), ("cancel", "cancelled")] {
        let ended = session
            .call(
                1,
                "deploy",
                json!({"service": "api"}),
                |_| json!({"action": action}),
            )
            .await;
        assert!(ended.text().contains(said), "{}", ended.text());
        assert!(ended.response["result"].get("isError").is_none());
    }
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_with_its_reasons() {
    let running = client::start(deploy::server(1)).await;
    let session = Client::open(running.addr).await;
    let mut answers = vec![target("staging", 99), target("staging", 4)].into_iter();
    let done = session
        .call(1, "deploy", json!({"service": "api"}), |_| {
            answers.next().unwrap()
        })
        .await;
    assert_eq!(
        done.text(),
        "Deployed 4 replicas of api to Staging (release)."
    );
    let asked = done.requests();
    assert_eq!(asked.len(), 2);
    let again = asked[1]["params"]["message"].as_str().unwrap();
    assert!(again.contains("replicas"), "{again}");
}

static BEFORE: AtomicUsize = AtomicUsize::new(0);
static BETWEEN: AtomicUsize = AtomicUsize::new(0);
static AFTER: AtomicUsize = AtomicUsize::new(0);

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

/// Counts the code around two questions.
#[tool]
async fn counted(cx: Cx) -> ToolResult {
    BEFORE.fetch_add(1, Ordering::SeqCst);
    let first: Yes = cx.elicit("first?").await?;
    BETWEEN.fetch_add(1, Ordering::SeqCst);
    let second: Yes = cx.elicit("second?").await?;
    AFTER.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!("{} {}", first.ok, second.ok)))
}

static CANCELLED_AFTER: AtomicUsize = AtomicUsize::new(0);

/// Counts the code after its question, for the cancellation test alone.
#[tool]
async fn cancellable(cx: Cx) -> ToolResult {
    let answer: Yes = cx.elicit("sure?").await?;
    CANCELLED_AFTER.fetch_add(1, Ordering::SeqCst);
    Ok(text(format!("answered {}", answer.ok)))
}

/// Logs at two levels, then asks once.
#[tool]
async fn chatty(cx: Cx) -> ToolResult {
    cx.log(LoggingLevel::Debug, "debug detail");
    cx.log(LoggingLevel::Info, json!({"step": "started"}));
    let answer: Yes = cx.elicit("go on?").await?;
    Ok(text(format!("answered {}", answer.ok)))
}

fn own_server() -> Server {
    Server::builder()
        .name("legacy")
        .tool(counted)
        .tool(cancellable)
        .tool(chatty)
        .tool(deploy_tools::deploy)
        .input_timeout(Duration::from_millis(300))
        .build()
}

use mcp_examples::deploy as deploy_tools;

#[tokio::test]
async fn code_between_two_questions_runs_once() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let done = session
        .call(1, "counted", json!({}), |_| accept(json!({"ok": true})))
        .await;
    assert_eq!(done.text(), "true true");
    assert_eq!(
        (
            BEFORE.load(Ordering::SeqCst),
            BETWEEN.load(Ordering::SeqCst),
            AFTER.load(Ordering::SeqCst)
        ),
        (1, 1, 1)
    );
}

#[tokio::test]
async fn log_messages_follow_the_session_level_and_precede_the_result() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let quiet = session
        .call(1, "chatty", json!({}), |_| accept(json!({"ok": true})))
        .await;
    assert!(
        quiet
            .messages
            .iter()
            .all(|m| m["method"] != "notifications/message")
    );
    let set = session
        .request(2, "logging/setLevel", json!({"level": "info"}))
        .await;
    assert_eq!(set["result"], json!({}));
    let logged = session
        .call(3, "chatty", json!({}), |_| accept(json!({"ok": true})))
        .await;
    let logs: Vec<&Value> = logged
        .messages
        .iter()
        .filter(|m| m["method"] == "notifications/message")
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    assert_eq!(logs[0]["params"]["level"], "info");
    assert_eq!(logs[0]["params"]["data"], json!({"step": "started"}));
    assert_eq!(logged.text(), "answered true");
}

#[tokio::test]
async fn concurrent_calls_on_one_session_see_only_their_own_answers() {
    let running = client::start(deploy::server(1)).await;
    let session = std::sync::Arc::new(Client::open(running.addr).await);
    let calls: Vec<_> = [("api", 3), ("web", 5)]
        .into_iter()
        .enumerate()
        .map(|(index, (service, replicas))| {
            let session = std::sync::Arc::clone(&session);
            tokio::spawn(async move {
                let exchange = session
                    .call(
                        index as u64 + 10,
                        "deploy",
                        json!({"service": service}),
                        |request| {
                            let message = request["params"]["message"].as_str().unwrap();
                            assert!(message.contains(service), "{service} got {message}");
                            target("staging", replicas)
                        },
                    )
                    .await;
                (service, replicas, exchange)
            })
        })
        .collect();
    for call in calls {
        let (service, replicas, exchange) = call.await.unwrap();
        assert_eq!(
            exchange.text(),
            format!("Deployed {replicas} replicas of {service} to Staging (release).")
        );
    }
}

#[tokio::test]
async fn a_cancelled_call_ends_without_an_answer_and_the_session_goes_on() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 40, "method": "tools/call",
        "params": {"name": "cancellable", "arguments": {}}});
    let mut stream = session.post(&call).await;
    assert!(stream.is_event_stream());
    let question = stream.next_event().await.unwrap();
    assert_eq!(question["method"], "elicitation/create");
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 40, "reason": "changed my mind"}});
    assert_eq!(session.post(&cancel).await.status, 202);
    assert_eq!(
        stream.next_event().await,
        None,
        "no answer for a cancelled call"
    );
    // A late answer to the cancelled call's question is accepted and goes nowhere.
    let late =
        json!({"jsonrpc": "2.0", "id": question["id"], "result": accept(json!({"ok": true}))});
    assert_eq!(session.post(&late).await.status, 202);
    stage(&session, 41, "api", 1).await;
    assert_eq!(CANCELLED_AFTER.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_client_that_never_answers_fails_the_call_after_the_timeout() {
    let running = client::start(own_server()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 50, "method": "tools/call",
        "params": {"name": "chatty", "arguments": {}}});
    let mut stream = session.post(&call).await;
    let question = stream.next_event().await.unwrap();
    assert_eq!(question["method"], "elicitation/create");
    let failed = stream.next_event().await.unwrap();
    assert_eq!(failed["id"], 50);
    assert_eq!(failed["error"]["code"], -32603);
    assert!(
        failed["error"]["message"]
            .as_str()
            .unwrap()
            .contains("did not answer")
    );
}

#[tokio::test]
async fn a_flow_the_client_cannot_answer_fails_without_asking() {
    let running = client::start(deploy::server(1)).await;
    let (session, _) = Client::open_with(running.addr, LEGACY, json!({"sampling": {}})).await;
    let refused = session
        .call(1, "deploy", json!({"service": "api"}), |request| {
            panic!("nothing may be asked: {request}")
        })
        .await;
    let error = &refused.response["error"];
    assert_eq!(error["code"], -32602);
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
}

#[tokio::test]
async fn progress_travels_on_the_call_stream_before_the_result() {
    let running = client::start(handlers::fixture_server()).await;
    let session = Client::open(running.addr).await;
    let call = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "slow", "arguments": {}, "_meta": {"progressToken": "p"}}});
    let done = session.exchange(&call, |_| unreachable!()).await;
    let progress: Vec<f64> = done
        .messages
        .iter()
        .map(|message| message["params"]["progress"].as_f64().unwrap())
        .collect();
    assert_eq!(progress, [0.0, 50.0, 100.0]);
    assert_eq!(done.response["result"]["content"][0]["text"], "done");
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
    let update = standalone.next_event().await.unwrap();
    schema::assert_legacy_valid("ResourceUpdatedNotification", &update);
    assert_eq!(update["params"]["uri"], "test://readme");
    server.notify_tools_list_changed();
    let changed = standalone.next_event().await.unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    session
        .request(3, "resources/unsubscribe", json!({"uri": "test://readme"}))
        .await;
    server.notify_resource_updated("test://readme");
    server.notify_prompts_list_changed();
    let next = standalone.next_event().await.unwrap();
    assert_eq!(next["method"], "notifications/prompts/list_changed");
    // Ending the session ends its streams.
    assert_eq!(session.delete().await, 204);
    assert_eq!(standalone.next_event().await, None);
}

#[tokio::test]
async fn idle_sessions_expire_and_the_table_is_bounded() {
    let server = Server::builder()
        .tool(deploy_tools::confirm_deploy)
        .session_idle_timeout(Duration::from_millis(200))
        .max_sessions(2)
        .build();
    let running = client::start(server.clone()).await;
    let first = Client::open(running.addr).await;
    let second = Client::open(running.addr).await;
    // At the maximum, the least recently active idle session gives way.
    assert_eq!(
        first.request(1, "ping", json!({})).await["result"],
        json!({})
    );
    let third = Client::open(running.addr).await;
    assert_eq!(server.legacy_sessions(), 2);
    let evicted = second
        .post(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await;
    assert_eq!(evicted.status, 404);
    assert_eq!(
        third.request(3, "ping", json!({})).await["result"],
        json!({})
    );
    tokio::time::sleep(Duration::from_millis(400)).await;
    let expired = first
        .post(&json!({"jsonrpc": "2.0", "id": 4, "method": "ping"}))
        .await;
    assert_eq!(expired.status, 404);
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
    let ping = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let own = send(
        running.addr,
        "POST",
        &[("x-user", "ada"), ("mcp-session-id", &id)],
        ping.clone().into_bytes(),
    )
    .await;
    assert_eq!(own.status, 200);
    let other = send(
        running.addr,
        "POST",
        &[("x-user", "eve"), ("mcp-session-id", &id)],
        ping.into_bytes(),
    )
    .await;
    assert_eq!(other.status, 404);
}
