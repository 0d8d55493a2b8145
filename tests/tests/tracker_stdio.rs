//! The `tracker` example over stdio, in its own process: listen streams share the channel
//! with the calls, and filing an issue announces it on the stream subscribed to its URI.

#[path = "support/schema.rs"]
mod schema;
#[path = "support/stdio.rs"]
mod stdio;

use serde_json::{Value, json};

/// The next two lines: a notification and an answer, in whichever order they came.
async fn two(session: &mut stdio::Session) -> (Value, Value) {
    let first = session.read().await;
    let second = session.read().await;
    if first.get("method").is_some() {
        (first, second)
    } else {
        (second, first)
    }
}

const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

#[tokio::test]
async fn filing_an_issue_announces_it_and_switching_a_tool_changes_the_list() {
    let mut session = stdio::Session::spawn_with(&["--tracker"]);
    let listen = json!({"jsonrpc": "2.0", "id": "watch", "method": "subscriptions/listen",
    "params": {"_meta": stdio::meta(), "notifications": {
        "toolsListChanged": true, "resourceSubscriptions": ["tracker://issues/1"]
    }}});
    session.write(listen.to_string().as_bytes()).await;
    let ack = session.read().await;
    schema::assert_valid("SubscriptionsAcknowledgedNotification", &ack);
    assert_eq!(ack["params"]["_meta"][SUBSCRIPTION_ID], "watch");

    // The stream and the call share stdout, in no set order between them.
    let filed = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "_meta": stdio::meta(), "name": "create_issue",
        "arguments": {"title": "Checkout times out", "priority": "low"},
    }});
    session.write(filed.to_string().as_bytes()).await;
    let (updated, answer) = two(&mut session).await;
    schema::assert_valid("ResourceUpdatedNotification", &updated);
    assert_eq!(updated["params"]["uri"], "tracker://issues/1", "{updated}");
    assert_eq!(updated["params"]["_meta"][SUBSCRIPTION_ID], "watch");
    assert_eq!(answer["id"], 2, "{answer}");
    assert_eq!(answer["result"]["structuredContent"]["number"], 1);

    let switched = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "_meta": stdio::meta(), "name": "set_tool_enabled",
        "arguments": {"name": "list_issues", "enabled": false},
    }});
    session.write(switched.to_string().as_bytes()).await;
    let (changed, answer) = two(&mut session).await;
    assert_eq!(
        changed["method"], "notifications/tools/list_changed",
        "{changed}"
    );
    assert_eq!(changed["params"]["_meta"][SUBSCRIPTION_ID], "watch");
    assert_eq!(answer["id"], 3, "{answer}");
    let listed = session.call(json!(4), "tools/list", json!({})).await;
    let names: Vec<&str> = listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["create_issue", "close_issues", "set_tool_enabled"]);

    // The client goes away: the stream ends with the connection, and the server exits.
    let (status, rest) = session.close().await;
    assert!(status.success(), "{status}");
    assert!(rest.is_empty(), "{rest:?}");
}
