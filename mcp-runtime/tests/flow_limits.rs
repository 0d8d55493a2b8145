//! Server-wide flow limits: a flow asks at most 50 rounds by default, and
//! `ServerBuilder::flow_limits` (or `FlowTester::limits` in tests) says otherwise for every
//! handler without a `max_rounds` of its own. Through the server's own dispatch, as a
//! transport hands requests over.

use mcp_runtime::server::{FlowLimits, Outcome, RequestFacts, Server};
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ToolResult, tool};
use serde_json::{Value, json};

#[derive(ElicitForm)]
struct Again {
    ok: bool,
}

/// Asks until a bound stops it.
#[tool]
async fn forever(cx: Cx) -> ToolResult {
    loop {
        let again: Again = cx.elicit("Again?").await?;
        let _ = again.ok;
    }
}

fn again() -> Value {
    json!({"again": {"action": "accept", "content": {"ok": true}}})
}

/// Runs `forever` on `server` as a client would, answering every question, until it stops
/// asking (at most 1,000 rounds): how many rounds asked, and the last answer.
async fn rounds_until_stopped(server: &Server) -> (usize, Value) {
    let mut state: Option<String> = None;
    for asked in 0..1_000 {
        let mut params = json!({
            "name": "forever",
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            },
        });
        if let Some(state) = &state {
            params["requestState"] = json!(state);
            params["inputResponses"] = again();
        }
        let message = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
        let Outcome { body, .. } = server
            .handle(message.to_string().as_bytes(), RequestFacts::stdio())
            .finish()
            .await;
        let answer: Value = serde_json::from_slice(&body.expect("an answer")).expect("JSON");
        match answer["result"]["requestState"].as_str() {
            Some(next) => state = Some(next.to_owned()),
            None => return (asked, answer),
        }
    }
    panic!("still asking after 1,000 rounds");
}

fn assert_stopped_after(max_rounds: u32, (asked, answer): &(usize, Value)) {
    assert_eq!(*asked, max_rounds as usize, "{answer}");
    assert_eq!(answer["error"]["code"], -32603, "{answer}");
    let message = answer["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains(&format!("more than {max_rounds} times")),
        "{message}"
    );
}

#[tokio::test]
async fn a_flow_asks_at_most_50_rounds_by_default() {
    let server = Server::builder().tool(forever).build();
    assert_stopped_after(50, &rounds_until_stopped(&server).await);
}

#[tokio::test]
async fn the_servers_flow_limits_bound_every_flow() {
    let server = Server::builder()
        .tool(forever)
        .flow_limits(FlowLimits::default().with_max_rounds(3))
        .build();
    assert_stopped_after(3, &rounds_until_stopped(&server).await);
}

#[tokio::test]
async fn a_flow_tester_takes_the_same_limits() {
    let tester = FlowTester::tool(forever).limits(FlowLimits::default().with_max_rounds(4));
    let rounds = tester.script((0..10).map(|_| again())).await;
    let asked = rounds
        .iter()
        .filter(|round| round.state().is_some())
        .count();
    let last = rounds.last().expect("a round");
    let error = last.error().expect("the bound stops the flow");
    assert_eq!(asked, 4, "{last}");
    assert_eq!(error.code.0, -32603);
    assert!(
        error.message.contains("more than 4 times"),
        "{}",
        error.message
    );
}
