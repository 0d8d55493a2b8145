//! The `tracker` example over HTTP: its store is application state shared by every call, its
//! tools describe their behaviour, and every structured result conforms to its tool's declared
//! `outputSchema`.

#[path = "support/client.rs"]
mod client;
#[path = "support/schema.rs"]
mod schema;

use std::collections::HashMap;
use std::net::SocketAddr;

use mcp_runtime::server::Server;
use serde_json::{Value, json};

fn server() -> Server {
    mcp_examples::tracker::register(Server::builder().name("tracker")).build()
}

/// The tools of `tools/list`, by name, after checking the list against the schema.
async fn tools(addr: SocketAddr) -> HashMap<String, Value> {
    let list = client::call(addr, json!(1), "tools/list", json!({}))
        .await
        .json();
    schema::assert_valid("ListToolsResult", &list["result"]);
    list["result"]["tools"]
        .as_array()
        .expect("a list of tools")
        .iter()
        .map(|tool| (tool["name"].as_str().unwrap().to_owned(), tool.clone()))
        .collect()
}

/// Calls `name` with `params` and checks the answer: a final result valid against the
/// revision's schema whose `structuredContent` conforms to the tool's `outputSchema`.
async fn call(addr: SocketAddr, tools: &HashMap<String, Value>, params: Value) -> Value {
    let name = params["name"].as_str().unwrap().to_owned();
    let answer = client::call(addr, json!(2), "tools/call", params)
        .await
        .json();
    let result = answer["result"].clone();
    if result["resultType"] == "complete" {
        schema::assert_valid("CallToolResult", &result);
        if result.get("isError").is_none() {
            let declared = &tools[&name]["outputSchema"];
            schema::check_against(declared, &result["structuredContent"])
                .unwrap_or_else(|report| panic!("{name}: {report}\n{result}"));
        }
    }
    result
}

fn elicitation_meta() -> Value {
    let mut meta = client::meta();
    meta["io.modelcontextprotocol/clientCapabilities"] = json!({"elicitation": {"form": {}}});
    meta
}

#[tokio::test]
async fn tools_describe_their_behaviour_and_results() {
    let running = client::start(server()).await;
    let tools = tools(running.addr).await;
    assert_eq!(
        tools["close_issues"]["annotations"],
        json!({"destructiveHint": true, "idempotentHint": true, "openWorldHint": false})
    );
    assert_eq!(tools["list_issues"]["annotations"]["readOnlyHint"], true);
    assert_eq!(tools["create_issue"]["title"], "File an issue");
    for (name, tool) in &tools {
        assert_eq!(tool["outputSchema"]["type"], "object", "{name}: {tool}");
    }
}

#[tokio::test]
async fn issues_filed_with_forms_are_stored_listed_and_closed_after_confirmation() {
    let running = client::start(server()).await;
    let addr = running.addr;
    let tools = tools(addr).await;

    // Complete arguments: filed at once.
    let first = call(
        addr,
        &tools,
        json!({"name": "create_issue", "arguments": {
            "title": "Checkout times out", "priority": "urgent", "labels": ["checkout"]
        }}),
    )
    .await;
    assert_eq!(first["structuredContent"]["number"], 1, "{first}");

    // No title: the form asks for it, and the answer is what gets stored.
    let args = json!({"labels": ["checkout"]});
    let asked = call(
        addr,
        &tools,
        json!({"name": "create_issue", "arguments": args, "_meta": elicitation_meta()}),
    )
    .await;
    assert_eq!(asked["resultType"], "input_required", "{asked}");
    assert!(asked["inputRequests"]["details"].is_object(), "{asked}");
    let filed = call(
        addr,
        &tools,
        json!({
            "name": "create_issue",
            "arguments": args,
            "_meta": elicitation_meta(),
            "requestState": asked["requestState"],
            "inputResponses": {"details": {"action": "accept", "content": {
                "title": "Cart loses items", "priority": "low"
            }}},
        }),
    )
    .await;
    assert_eq!(
        filed["structuredContent"],
        json!({"number": 2, "title": "Cart loses items", "priority": "low",
               "labels": ["checkout"], "open": true}),
        "{filed}"
    );

    // Another call sees both: the store is shared application state.
    let listed = call(
        addr,
        &tools,
        json!({"name": "list_issues", "arguments": {"open_only": true}}),
    )
    .await;
    let numbers: Vec<&Value> = listed["structuredContent"]["issues"]
        .as_array()
        .unwrap()
        .iter()
        .map(|issue| &issue["number"])
        .collect();
    assert_eq!(numbers, [1, 2], "{listed}");

    // Closing asks first; a decline closes nothing and says so as an error result.
    let close = json!({"label": "checkout"});
    let confirm = call(
        addr,
        &tools,
        json!({"name": "close_issues", "arguments": close, "_meta": elicitation_meta()}),
    )
    .await;
    let message = confirm["inputRequests"]["answer"]["params"]["message"]
        .as_str()
        .unwrap_or_else(|| panic!("a confirmation: {confirm}"));
    assert!(message.contains("#1, #2"), "{message}");
    let answered = |action: Value| {
        json!({
            "name": "close_issues",
            "arguments": close,
            "_meta": elicitation_meta(),
            "requestState": confirm["requestState"],
            "inputResponses": {"answer": action},
        })
    };
    let declined = call(addr, &tools, answered(json!({"action": "decline"}))).await;
    assert_eq!(declined["isError"], true, "{declined}");
    let still_open = call(
        addr,
        &tools,
        json!({"name": "list_issues", "arguments": {"open_only": true}}),
    )
    .await;
    assert_eq!(
        still_open["structuredContent"]["issues"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let closed = call(
        addr,
        &tools,
        answered(json!({"action": "accept", "content": {"close": true}})),
    )
    .await;
    assert_eq!(
        closed["structuredContent"],
        json!({"closed": [1, 2]}),
        "{closed}"
    );

    // The resource reads one issue as the store holds it.
    let read = client::call(
        addr,
        json!(3),
        "resources/read",
        json!({"uri": "tracker://issues/2"}),
    )
    .await
    .json();
    let text = read["result"]["contents"][0]["text"].as_str().unwrap();
    let issue: Value = serde_json::from_str(text).unwrap();
    assert_eq!(issue["open"], false, "{issue}");
}
