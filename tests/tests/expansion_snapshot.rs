//! The committed expansion snapshot of `#[tool]` (`mcp-macros/tests/snapshots/deploy.expanded.rs`)
//! is compared with the macro's output as text by `mcp-macros`; here it is compiled as code in
//! the context the snapshot's input names, so a snapshot that no longer type-checks against the
//! runtime fails the build, and run, so it must behave as the macro's own output does.

use mcp_runtime::testing::FlowTester;
use serde_json::{Value, json};

/// The snapshot, as code.
#[allow(
    unreachable_pub,
    reason = "the snapshot's items are `pub`, as the macro makes them"
)]
mod expanded {
    use mcp_examples::deploy::{Confirm, DeployArgs, Environment, Target};
    use mcp_runtime::{Cx, ToolResult, text};

    include!("../../mcp-macros/tests/snapshots/deploy.expanded.rs");
}

/// The snapshot's input, through the macro.
#[allow(
    unreachable_pub,
    reason = "the snapshot's input is `pub`, as a handler usually is"
)]
mod macro_made {
    use mcp_examples::deploy::{Confirm, DeployArgs, Environment, Target};
    use mcp_runtime::{Cx, ToolResult, text, tool};

    include!("../../mcp-macros/tests/snapshots/deploy.input.rs");
}

fn accept(content: Value) -> Value {
    json!({ "action": "accept", "content": content })
}

/// Each round of a run answering `answers`, as the client sees it: the questions asked, or
/// the text of the result.
async fn run(tester: FlowTester, answers: &[Value]) -> Vec<String> {
    let rounds = tester
        .arguments(json!({ "service": "api" }))
        .script(answers.iter().cloned())
        .await;
    rounds
        .iter()
        .map(|round| match round.requests() {
            Some(requests) if round.state().is_some() => {
                serde_json::to_string(requests).expect("questions serialise")
            }
            _ => round.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn the_compiled_snapshot_runs_as_the_macro_output_does() {
    let production =
        json!({ "target": accept(json!({ "environment": "production", "replicas": 3 })) });
    let staging = json!({ "target": accept(json!({ "environment": "staging", "replicas": 2 })) });
    let paths = [
        vec![
            production.clone(),
            json!({ "confirm": accept(json!({ "ok": true })) }),
        ],
        vec![
            production,
            json!({ "confirm": accept(json!({ "ok": false })) }),
        ],
        vec![staging],
    ];
    for answers in paths {
        let snapshot = run(FlowTester::tool(expanded::deploy), &answers).await;
        let made = run(FlowTester::tool(macro_made::deploy), &answers).await;
        assert_eq!(snapshot, made);
        assert_eq!(snapshot.len(), answers.len() + 1, "{snapshot:?}");
    }
    let done = FlowTester::tool(expanded::deploy)
        .arguments(json!({ "service": "api" }))
        .script([
            json!({ "target": accept(json!({ "environment": "production", "replicas": 3 })) }),
            json!({ "confirm": accept(json!({ "ok": true })) }),
        ])
        .await;
    assert_eq!(done[2].text(), Some("Deployed 3 replicas of api."));
}
