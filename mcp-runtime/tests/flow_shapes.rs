//! States across builds: the flow's shape fingerprint decides whether a state minted by
//! another build is used, refused or restarts the flow.
//!
//! Each handler below stands for one build of the tool `versioned`: they share its name, so a
//! state minted by one verifies on the others (same binding, same key) and only the shape
//! tells them apart.

use mcp_runtime::state::{INVALID_STATE_MESSAGE, Signer};
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(Debug, ElicitForm)]
struct Name {
    name: String,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

/// The first build.
#[tool(name = "versioned")]
async fn build_one(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who?").await?;
    let sure: Confirm = cx.elicit(format!("Sure, {}?", who.name)).await?;
    Ok(text(format!("{} {}", who.name, sure.ok)))
}

/// Same shape: other message text, other code between the questions.
#[tool(name = "versioned")]
async fn build_one_reworded(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("What is your name?").await?;
    let length = who.name.chars().count();
    assert!(length > 0, "a name was given");
    let sure: Confirm = cx.elicit(format!("Really, {}?", who.name)).await?;
    Ok(text(format!("{} {} (v1.1)", who.name, sure.ok)))
}

/// Another shape: a new local travels across the second question.
#[tool(name = "versioned")]
async fn build_two(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who?").await?;
    let greeting: String = format!("Hello {}", who.name);
    let sure: Confirm = cx.elicit("Sure?").await?;
    Ok(text(format!("{greeting} {}", sure.ok)))
}

/// Another shape that opts into restarting.
#[tool(name = "versioned", on_new_shape = "restart")]
async fn build_two_restarting(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who?").await?;
    let greeting: String = format!("Hello {}", who.name);
    let sure: Confirm = cx.elicit("Sure?").await?;
    Ok(text(format!("{greeting} {}", sure.ok)))
}

/// A build that asks nothing any more.
#[tool(name = "versioned")]
async fn build_asking_nothing() -> ToolResult {
    Ok(text("nothing to ask"))
}

/// The same, opting into restarting.
#[tool(name = "versioned", on_new_shape = "restart")]
async fn build_asking_nothing_restarting() -> ToolResult {
    Ok(text("nothing to ask"))
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn states_survive_a_build_of_the_same_shape_and_nothing_else() {
    let signer = Signer::random().unwrap();
    let old = FlowTester::tool(build_one).signer(signer.clone());
    let second = old
        .script([json!({"who": accept(json!({"name": "Ada"}))})])
        .await
        .pop()
        .unwrap();
    let state = second.state().unwrap().to_owned();
    let answer = json!({"sure": accept(json!({"ok": true}))});

    // A redeploy that only reworded messages and changed code between the questions.
    let reworded = FlowTester::tool(build_one_reworded).signer(signer.clone());
    let done = reworded.send(Some(&state), Some(answer.clone())).await;
    assert_eq!(done.text(), Some("Ada true (v1.1)"), "{done}");

    // A redeploy that changed what travels: refused like any invalid state.
    let reshaped = FlowTester::tool(build_two).signer(signer.clone());
    let refused = reshaped.send(Some(&state), Some(answer.clone())).await;
    let error = refused.error().unwrap_or_else(|| panic!("{refused}"));
    assert_eq!(error.code.0, -32602);
    assert_eq!(error.message, INVALID_STATE_MESSAGE);

    // The same change with `on_new_shape = "restart"`: back to the first question, with the
    // answers meant for the old build left unused.
    let restarting = FlowTester::tool(build_two_restarting).signer(signer.clone());
    let restarted = restarting.send(Some(&state), Some(answer.clone())).await;
    assert_eq!(restarted.questions(), ["who"], "{restarted}");

    // A build that asks nothing has no state to open: the driver refuses it there, or runs the
    // body from its start.
    let plain = FlowTester::tool(build_asking_nothing).signer(signer.clone());
    let refused = plain.send(Some(&state), Some(answer.clone())).await;
    let error = refused.error().unwrap_or_else(|| panic!("{refused}"));
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
    let plain = FlowTester::tool(build_asking_nothing_restarting).signer(signer);
    let restarted = plain.send(Some(&state), Some(answer)).await;
    assert_eq!(restarted.text(), Some("nothing to ask"), "{restarted}");
}
