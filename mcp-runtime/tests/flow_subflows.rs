//! `#[elicit]` sub-flows: reusable multi-round pieces, called twice, in loops, nested.

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};
use serde_json::{Value, json};

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(Debug, ElicitForm)]
struct Amount {
    #[form(minimum = 1, maximum = 100)]
    amount: u32,
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Asks the user to confirm, re-asking once if they say no by mistake.
#[elicit]
async fn confirm(cx: &Cx, what: String) -> Result<bool, Refusal> {
    let first: Confirm = cx.elicit(format!("{what}?")).await?;
    if first.ok {
        return Ok(true);
    }
    let really: Confirm = cx.elicit(format!("Really not {what}?")).await?;
    Ok(!really.ok)
}

/// Picks an amount, confirming large ones through `confirm`.
#[elicit]
async fn pick_amount(cx: &Cx) -> Result<u32, Refusal> {
    let picked: Amount = cx.elicit("How much?").await?;
    if picked.amount > 50 {
        let sure: bool = confirm(cx, format!("Spend {}", picked.amount)).await?;
        if !sure {
            return Ok(50);
        }
    }
    Ok(picked.amount)
}

/// Two confirmations through one sub-flow.
#[tool]
async fn ship(cx: Cx) -> ToolResult {
    let build: bool = confirm(&cx, "Build".to_owned()).await?;
    let deploy: bool = confirm(&cx, "Deploy".to_owned()).await?;
    Ok(text(format!("build {build}, deploy {deploy}")))
}

#[tokio::test]
async fn one_sub_flow_called_twice_keeps_its_keys_apart() {
    let tester = FlowTester::tool(ship);
    let first = tester.start().await;
    assert_eq!(first.questions(), ["build.first"]);
    let second = first
        .answer(json!({"build.first": accept(json!({"ok": false}))}))
        .await;
    assert_eq!(second.questions(), ["build.really"], "{second}");
    let third = second
        .answer(json!({"build.really": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(third.questions(), ["deploy.first"], "{third}");
    // An answer under the first call's key does not answer the second call.
    let stale = json!({"build.first": accept(json!({"ok": true}))});
    let stale = tester.send(third.state(), Some(stale)).await;
    assert_eq!(stale.questions(), ["deploy.first"]);
    assert_eq!(stale.unasked(), ["build.first"]);
    let done = third
        .answer(json!({"deploy.first": accept(json!({"ok": true}))}))
        .await;
    assert_eq!(done.text(), Some("build false, deploy true"), "{done}");
}

/// A sub-flow in a loop, which itself calls a sub-flow.
#[tool]
async fn budget(cx: Cx) -> ToolResult {
    let mut total: u32 = 0;
    for _ in 0..2u8 {
        let amount: u32 = pick_amount(&cx).key("amount").await?;
        total += amount;
    }
    Ok(text(format!("total {total}")))
}

#[tokio::test]
async fn sub_flows_run_in_loops_and_nest() {
    let rounds = FlowTester::tool(budget)
        .script([
            json!({"amount.picked": accept(json!({"amount": 10}))}),
            json!({"amount.picked": accept(json!({"amount": 80}))}),
            json!({"amount.sure.first": accept(json!({"ok": true}))}),
        ])
        .await;
    assert_eq!(rounds[1].questions(), ["amount.picked"]);
    assert_eq!(
        rounds[2].questions(),
        ["amount.sure.first"],
        "{}",
        rounds[2]
    );
    assert_eq!(rounds[3].text(), Some("total 90"), "{}", rounds[3]);
}

#[tokio::test]
async fn a_refusal_inside_a_sub_flow_ends_the_call() {
    let tester = FlowTester::tool(ship);
    let first = tester.start().await;
    let declined = first
        .answer(json!({"build.first": {"action": "decline"}}))
        .await;
    assert!(declined.text().unwrap().contains("declined"), "{declined}");
}

/// Asks until the answer is yes, through `pong`, which calls back into `ping`.
#[elicit]
async fn ping(cx: &Cx) -> Result<u32, Refusal> {
    let answer: Confirm = cx.elicit("Ping?").await?;
    if answer.ok {
        return Ok(1);
    }
    let back: u32 = pong(cx).await?;
    Ok(back + 1)
}

/// Calls back into `ping`.
#[elicit]
async fn pong(cx: &Cx) -> Result<u32, Refusal> {
    let back: u32 = ping(cx).await?;
    Ok(back)
}

/// Counts the pings asked.
#[tool]
async fn rally(cx: Cx) -> ToolResult {
    let pings: u32 = ping(&cx).await?;
    Ok(text(pings.to_string()))
}

#[tokio::test]
async fn sub_flows_calling_each_other_nest_their_states_one_level_per_call() {
    let mut round = FlowTester::tool(rally).start().await;
    let mut keys = Vec::new();
    for ok in [false, false, true] {
        let [key] = round.questions()[..] else {
            panic!("one question: {round}");
        };
        keys.push(key.to_owned());
        let key = key.to_owned();
        round = round
            .answer(json!({ key: accept(json!({"ok": ok})) }))
            .await;
    }
    assert_eq!(round.text(), Some("3"), "{round}");
    assert_eq!(
        keys,
        [
            "pings.answer",
            "pings.back.back.answer",
            "pings.back.back.back.back.answer"
        ]
    );
}
