//! Straight-line and branching flows, end to end through the testing driver.

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};
use serde_json::json;

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Environment {
    Staging,
    #[choice(title = "Production (live)")]
    Production,
}

#[derive(Debug, ElicitForm)]
struct Target {
    environment: Environment,
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u32,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct DeployArgs {
    service: String,
}

/// How often the code between the two questions ran, per service (tests run in parallel,
/// each with its own service).
static BETWEEN: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

fn ran_between(service: &str) -> usize {
    let counts = BETWEEN.lock().unwrap();
    counts
        .as_ref()
        .and_then(|c| c.get(service))
        .copied()
        .unwrap_or(0)
}

/// Deploy the service.
#[tool]
async fn deploy(args: DeployArgs, cx: Cx) -> ToolResult {
    let target: Target = cx
        .elicit(format!("Where should {} go?", args.service))
        .await?;
    *BETWEEN
        .lock()
        .unwrap()
        .get_or_insert_with(HashMap::new)
        .entry(args.service.clone())
        .or_default() += 1;
    if target.environment == Environment::Production {
        let confirm: Confirm = cx
            .elicit(format!("Ship {} replicas to production?", target.replicas))
            .await?;
        if !confirm.ok {
            return Ok(text("Nothing deployed."));
        }
    }
    Ok(text(format!(
        "Deployed {} replicas of {}.",
        target.replicas, args.service
    )))
}

fn accept(content: serde_json::Value) -> serde_json::Value {
    json!({"action": "accept", "content": content})
}

#[tokio::test]
async fn staging_takes_one_question() {
    let tester = FlowTester::tool(deploy).arguments(json!({"service": "api"}));
    let first = tester.start().await;
    assert_eq!(first.questions(), ["target"]);
    let second = first
        .answer(json!({"target": accept(json!({"environment": "staging", "replicas": 3}))}))
        .await;
    assert_eq!(
        second.text(),
        Some("Deployed 3 replicas of api."),
        "{second}"
    );
}

#[tokio::test]
async fn production_asks_again_and_carries_the_target() {
    let tester = FlowTester::tool(deploy).arguments(json!({"service": "web"}));
    let first = tester.start().await;
    let second = first
        .answer(json!({"target": accept(json!({"environment": "production", "replicas": 5}))}))
        .await;
    assert_eq!(second.questions(), ["confirm"], "{second}");
    let third = second
        .answer(json!({"confirm": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(third.text(), Some("Deployed 5 replicas of web."), "{third}");
    // The code between the two questions ran once, not once per round.
    assert_eq!(ran_between("web"), 1);
    let declined = second
        .answer(json!({"confirm": {"action": "decline"}}))
        .await;
    assert!(declined.text().unwrap().contains("declined"), "{declined}");
}

static MESSAGES: Mutex<usize> = Mutex::new(0);

fn counted(message: &str) -> String {
    *MESSAGES.lock().unwrap() += 1;
    message.to_owned()
}

/// A question whose message counts how often it is built.
#[tool]
async fn counting(cx: Cx) -> ToolResult {
    let confirm: Confirm = cx.elicit(counted("Go?")).await?;
    Ok(text(format!("{}", confirm.ok)))
}

#[tokio::test]
async fn a_question_is_built_only_when_it_is_asked() {
    let tester = FlowTester::tool(counting);
    let first = tester.start().await;
    assert_eq!(*MESSAGES.lock().unwrap(), 1);
    let missing = tester.send(first.state(), Some(json!({"other": {}}))).await;
    assert_eq!(missing.questions(), ["confirm"]);
    assert_eq!(missing.unasked(), ["other"]);
    assert_eq!(*MESSAGES.lock().unwrap(), 2, "asked again, so built again");
    let done = first
        .answer(json!({"confirm": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(done.text(), Some("true"));
    assert_eq!(
        *MESSAGES.lock().unwrap(),
        2,
        "the answering round does not build it"
    );
}
