//! Answers under keys no question asked, over real HTTP: the server asks its question again
//! and tells the client which of its answers it ignored, in the result's `_meta`.

#[path = "support/client.rs"]
mod client;
#[path = "support/deploy.rs"]
mod deploy;

use mcp_runtime::server::UNASKED_INPUT_RESPONSES;
use serde_json::{Value, json};

fn params(state: Option<(&str, &str)>, answers: Option<Value>) -> Value {
    let mut params = json!({
        "name": "deploy",
        "arguments": {"service": "checkout"},
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
        },
    });
    if let Some((member, state)) = state {
        params[member] = Value::from(state);
    }
    if let Some(answers) = answers {
        params["inputResponses"] = answers;
    }
    params
}

fn target() -> Value {
    json!({"action": "accept", "content": {"environment": "production", "replicas": 3}})
}

#[tokio::test]
async fn a_misspelled_key_is_asked_again_and_named_to_the_client() {
    let running = client::start(deploy::server(7)).await;
    let first = client::call(running.addr, json!(1), "tools/call", params(None, None)).await;
    let first = first.json();
    let state = first["result"]["requestState"].as_str().expect("a state");
    assert!(
        first["result"]["_meta"]
            .get(UNASKED_INPUT_RESPONSES)
            .is_none(),
        "{first}"
    );

    let answers = json!({"targte": target()});
    let retried = params(Some(("requestState", state)), Some(answers));
    let again = client::call(running.addr, json!(2), "tools/call", retried).await;
    let again = again.json();
    let result = &again["result"];
    assert_eq!(result["resultType"], "input_required", "{again}");
    assert_eq!(
        result["inputRequests"]
            .as_object()
            .map(|asked| asked.keys().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["target"]),
        "{again}"
    );
    assert_eq!(
        result["_meta"][UNASKED_INPUT_RESPONSES],
        json!(["targte"]),
        "{again}"
    );

    // Answered under the right key, nothing is named.
    let answers = json!({"target": target()});
    let right = params(Some(("requestState", state)), Some(answers));
    let next = client::call(running.addr, json!(3), "tools/call", right).await;
    let next = next.json();
    assert_eq!(next["result"]["resultType"], "input_required", "{next}");
    assert!(
        next["result"]["inputRequests"].get("confirm").is_some(),
        "{next}"
    );
    assert!(
        next["result"]["_meta"]
            .get(UNASKED_INPUT_RESPONSES)
            .is_none(),
        "{next}"
    );
}

#[tokio::test]
async fn answers_without_their_state_start_over_and_are_named_to_the_client() {
    let running = client::start(deploy::server(7)).await;
    let first = client::call(running.addr, json!(1), "tools/call", params(None, None)).await;
    let first = first.json();
    let state = first["result"]["requestState"].as_str().expect("a state");
    let second = params(
        Some(("requestState", state)),
        Some(json!({"target": target()})),
    );
    let second = client::call(running.addr, json!(2), "tools/call", second).await;
    let second = second.json();
    let state = second["result"]["requestState"].as_str().expect("a state");

    // `requestState` misspelled: the flow starts over from its first question, and the
    // answer to the second is named as one no question asked.
    let answers = json!({"confirm": {"action": "accept", "content": {"ok": true}}});
    let lost = params(Some(("requeststate", state)), Some(answers));
    let over = client::call(running.addr, json!(3), "tools/call", lost).await;
    let over = over.json();
    let result = &over["result"];
    assert!(result["inputRequests"].get("target").is_some(), "{over}");
    assert_eq!(
        result["_meta"][UNASKED_INPUT_RESPONSES],
        json!(["confirm"]),
        "{over}"
    );
}
