//! `FlowTester::complete_with`: a whole flow through the loop legacy sessions run, each
//! question answered by a closure, every round through the server's own dispatch.

use mcp_runtime::protocol::InputRequest;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Count {
    #[form(minimum = 1, maximum = 9)]
    count: u32,
}

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

/// Asks a count, then a confirmation.
#[tool]
async fn order(cx: Cx) -> ToolResult {
    let amount: Count = cx.elicit("How many?").await?;
    let sure: Sure = cx.elicit(format!("Order {}?", amount.count)).await?;
    Ok(text(if sure.ok {
        format!("Ordered {}.", amount.count)
    } else {
        "Nothing ordered.".to_owned()
    }))
}

fn message(request: &InputRequest) -> String {
    let InputRequest::Elicit(params) = request else {
        panic!("only elicitations are asked")
    };
    serde_json::to_value(params).unwrap()["message"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn every_question_is_answered_until_the_flow_completes() {
    let mut asked = Vec::new();
    let done = FlowTester::tool(order)
        .complete_with(|key, request| {
            asked.push((key.to_owned(), message(request)));
            match key {
                "amount" => json!({"action": "accept", "content": {"count": 3}}),
                _ => json!({"action": "accept", "content": {"ok": true}}),
            }
        })
        .await;
    assert_eq!(done.text(), Some("Ordered 3."));
    assert_eq!(
        asked,
        [
            ("amount".to_owned(), "How many?".to_owned()),
            ("sure".to_owned(), "Order 3?".to_owned())
        ]
    );
}

#[tokio::test]
async fn an_invalid_answer_is_asked_again_and_a_decline_ends_the_flow() {
    let mut counts = vec![json!(12), json!(2)].into_iter();
    let mut messages = Vec::new();
    let declined = FlowTester::tool(order)
        .complete_with(|key, request| {
            messages.push(message(request));
            match key {
                "amount" => {
                    json!({"action": "accept", "content": {"count": counts.next().unwrap()}})
                }
                _ => json!({"action": "decline"}),
            }
        })
        .await;
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[1].contains("count"), "{}", messages[1]);
    let text = declined.text().unwrap();
    assert!(text.contains("declined"), "{text}");
}

#[tokio::test]
async fn a_client_without_the_capability_fails_the_flow() {
    let failed = FlowTester::tool(order)
        .capabilities(json!({"sampling": {}}))
        .complete_with(|_, _| Value::Null)
        .await;
    assert_eq!(failed.error().map(|error| error.code.0), Some(-32021));
}
