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

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[tokio::test]
async fn filing_and_closing_an_issue_announce_it_to_its_listeners() {
    let running = client::start(server()).await;
    let addr = running.addr;
    let tools = tools(addr).await;
    let mut first = client::listen(
        addr,
        json!("issue-1"),
        json!({"resourceSubscriptions": ["tracker://issues/1"]}),
    )
    .await;
    let mut second = client::listen(
        addr,
        json!("issue-2"),
        json!({"resourceSubscriptions": ["tracker://issues/2"]}),
    )
    .await;
    first.next().await;
    second.next().await;
    for title in ["Checkout times out", "Cart loses items"] {
        let filed = call(
            addr,
            &tools,
            json!({"name": "create_issue", "arguments": {
                "title": title, "priority": "urgent", "labels": ["checkout"]
            }}),
        )
        .await;
        assert_eq!(filed["resultType"], "complete", "{filed}");
    }
    let updated = first.next().await;
    schema::assert_valid("ResourceUpdatedNotification", &updated);
    assert_eq!(updated["params"]["uri"], "tracker://issues/1", "{updated}");
    assert_eq!(updated["params"]["_meta"][SUBSCRIPTION_ID], "issue-1");
    let updated = second.next().await;
    assert_eq!(updated["params"]["uri"], "tracker://issues/2", "{updated}");

    // Closing (after the confirmation) announces each issue it closed.
    let close = json!({"label": "checkout"});
    let confirm = call(
        addr,
        &tools,
        json!({"name": "close_issues", "arguments": close, "_meta": elicitation_meta()}),
    )
    .await;
    let closed = call(
        addr,
        &tools,
        json!({
            "name": "close_issues",
            "arguments": close,
            "_meta": elicitation_meta(),
            "requestState": confirm["requestState"],
            "inputResponses": {"answer": {"action": "accept", "content": {"close": true}}},
        }),
    )
    .await;
    assert_eq!(closed["structuredContent"], json!({"closed": [1, 2]}));
    assert_eq!(first.next().await["params"]["uri"], "tracker://issues/1");
    assert_eq!(second.next().await["params"]["uri"], "tracker://issues/2");
}

#[tokio::test]
async fn an_admin_switches_a_tool_off_and_on_and_listeners_hear_of_it() {
    let running = client::start(server()).await;
    let addr = running.addr;
    let all = tools(addr).await;
    let mut stream = client::listen(addr, json!(1), json!({"toolsListChanged": true})).await;
    stream.next().await;
    let switch = |enabled: bool| json!({"name": "set_tool_enabled", "arguments": {"name": "close_issues", "enabled": enabled}});
    let off = call(addr, &all, switch(false)).await;
    assert_eq!(off["structuredContent"], json!({"changed": true}), "{off}");
    let changed = stream.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert!(!tools(addr).await.contains_key("close_issues"));
    let refused = client::call(
        addr,
        json!(3),
        "tools/call",
        json!({"name": "close_issues", "arguments": {"label": "x"}}),
    )
    .await
    .json();
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    // Already off: nothing changes, nothing is announced.
    let again = call(addr, &all, switch(false)).await;
    assert_eq!(again["structuredContent"], json!({"changed": false}));
    let on = call(addr, &all, switch(true)).await;
    assert_eq!(on["structuredContent"], json!({"changed": true}));
    let changed = stream.next().await;
    assert_eq!(changed["method"], "notifications/tools/list_changed");
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID], 1);
    assert!(tools(addr).await.contains_key("close_issues"));
    // The switch cannot turn itself off, nor name a tool that does not exist.
    let itself = json!({"name": "set_tool_enabled",
                        "arguments": {"name": "set_tool_enabled", "enabled": false}});
    assert_eq!(call(addr, &all, itself).await["isError"], true);
}
