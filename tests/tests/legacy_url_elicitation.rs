//! URL-mode elicitation on legacy (2025-11-25) sessions, over real sockets: the
//! `elicitationId` that revision requires, known to the handler before it asks;
//! `notifications/elicitation/complete` sent by the handler to the client it asked; `-32042`
//! when the call cannot reach its client and only pages are asked. Every message is checked
//! against the vendored 2025-11-25 schema. On 2026-07-28 none of these exist.

#[path = "support/client.rs"]
mod client;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use legacy::{Client, LEGACY};
use mcp_runtime::server::Server;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use schema::assert_legacy_valid;
use serde_json::{Value, json};

/// Sends the user to a page named by the elicitation's id, then says the work there is done.
#[tool]
async fn connect(cx: Cx) -> ToolResult {
    let id = cx.request().elicitation_id("link").unwrap_or_default();
    cx.elicit_url(
        "Connect your account",
        format!("https://example.com/connect?elicitation={id}"),
    )
    .key("link")
    .await?;
    let told = cx.request().notify_elicitation_complete(&id);
    Ok(text(format!("{id} {told}")))
}

fn server() -> Server {
    Server::builder().name("pages").tool(connect).build()
}

async fn url_session(addr: std::net::SocketAddr) -> Client {
    Client::open_with(
        addr,
        LEGACY,
        json!({"elicitation": {"form": {}, "url": {}}}),
    )
    .await
    .0
}

#[tokio::test]
async fn a_legacy_url_elicitation_carries_the_id_the_handler_knew_and_completes_with_it() {
    let running = client::start(server()).await;
    let session = url_session(running.addr).await;
    let exchange = session
        .call(1, "connect", json!({}), |_| json!({"action": "accept"}))
        .await;
    let [asked] = &exchange.requests()[..] else {
        panic!("one question expected: {exchange:?}");
    };
    assert_legacy_valid("ElicitRequest", asked);
    let params = &asked["params"];
    assert_eq!(params["mode"], "url");
    let id = params["elicitationId"].as_str().expect("an elicitationId");
    let (prefix, key) = id.split_once('-').unwrap();
    assert_eq!(key, "link");
    assert_eq!(prefix.len(), 16, "{id}");
    assert!(prefix.bytes().all(|b| b.is_ascii_hexdigit()), "{id}");
    assert_eq!(
        params["url"],
        format!("https://example.com/connect?elicitation={id}")
    );
    let completed: Vec<&Value> = exchange
        .messages
        .iter()
        .filter(|message| message["method"] == "notifications/elicitation/complete")
        .collect();
    let [completed] = &completed[..] else {
        panic!("one completion expected: {exchange:?}");
    };
    assert_legacy_valid("ElicitationCompleteNotification", completed);
    assert_eq!(completed["params"]["elicitationId"], id);
    assert_eq!(exchange.text(), format!("{id} true"));

    // Each call draws its own ids.
    let again = session
        .call(2, "connect", json!({}), |_| json!({"action": "accept"}))
        .await;
    assert_ne!(again.requests()[0]["params"]["elicitationId"], id);
}

#[tokio::test]
async fn a_call_that_cannot_reach_its_client_is_told_which_pages_to_open() {
    let running = client::start(server()).await;
    let session = url_session(running.addr).await;
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                      "params": {"name": "connect", "arguments": {}}});
    let headers = [
        ("Accept", "application/json"),
        ("Mcp-Session-Id", session.session.as_str()),
        ("MCP-Protocol-Version", LEGACY),
    ];
    let answer = client::send(running.addr, "POST", &headers, body.to_string().as_bytes()).await;
    assert_eq!(answer.status, 200);
    let response = answer.json();
    assert_legacy_valid("URLElicitationRequiredError", &response);
    assert_legacy_valid("JSONRPCErrorResponse", &response);
    assert_eq!(response["error"]["code"], -32042, "{response}");
    let elicitations = response["error"]["data"]["elicitations"]
        .as_array()
        .unwrap();
    assert_eq!(elicitations.len(), 1);
    let id = elicitations[0]["elicitationId"].as_str().unwrap();
    assert!(id.ends_with("-link"), "{id}");
    assert_eq!(
        elicitations[0]["url"],
        format!("https://example.com/connect?elicitation={id}")
    );

    // A client without URL mode is not told to open pages: the call is refused as before.
    let (form_only, _) =
        Client::open_with(running.addr, LEGACY, json!({"elicitation": {"form": {}}})).await;
    let headers = [
        ("Accept", "application/json"),
        ("Mcp-Session-Id", form_only.session.as_str()),
        ("MCP-Protocol-Version", LEGACY),
    ];
    let answer = client::send(running.addr, "POST", &headers, body.to_string().as_bytes()).await;
    let response = answer.json();
    assert_legacy_valid("JSONRPCErrorResponse", &response);
    assert_ne!(response["error"]["code"], -32042, "{response}");
}

#[tokio::test]
async fn on_2026_07_28_url_elicitations_have_no_id_and_nothing_is_notified() {
    let tester = FlowTester::tool(connect);
    let first = tester.start().await;
    let asked = serde_json::to_value(first.requests()).unwrap();
    assert_eq!(asked["link"]["params"]["mode"], "url", "{asked}");
    assert!(
        asked["link"]["params"].get("elicitationId").is_none(),
        "{asked}"
    );
    let done = first.answer(json!({"link": {"action": "accept"}})).await;
    assert_eq!(done.text(), Some(" false"));
}
