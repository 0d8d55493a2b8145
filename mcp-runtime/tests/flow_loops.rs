//! Questions inside loops: `loop`, `while`, `while let`, `for`, with break, continue, labels
//! and early return.

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[derive(Debug, ElicitForm)]
struct Item {
    #[form(min_length = 1)]
    name: String,
    more: bool,
}

#[derive(Debug, ElicitForm)]
struct Guess {
    number: i64,
}

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

/// Collects items until the user says there are no more.
#[tool]
async fn collect(cx: Cx) -> ToolResult {
    let mut items: Vec<String> = Vec::new();
    loop {
        let item: Item = cx.elicit(format!("Item {}?", items.len() + 1)).await?;
        items.push(item.name);
        if !item.more {
            break;
        }
    }
    Ok(text(items.join(",")))
}

#[tokio::test]
async fn a_loop_collects_across_rounds() {
    let tester = FlowTester::tool(collect);
    let rounds = tester
        .script([
            json!({"item": accept(json!({"name": "a", "more": true}))}),
            json!({"item": accept(json!({"name": "b", "more": true}))}),
            json!({"item": accept(json!({"name": "c", "more": false}))}),
        ])
        .await;
    assert_eq!(rounds.len(), 4);
    let message = serde_json::to_value(&rounds[2].requests().unwrap()["item"]).unwrap();
    assert_eq!(message["params"]["message"], "Item 3?");
    assert_eq!(rounds[3].text(), Some("a,b,c"), "{}", rounds[3]);
    // The collected items travel in the state: it grows with them.
    assert!(rounds[2].state_size() > rounds[1].state_size());

    // A loop of one round.
    let once = tester
        .script([json!({"item": accept(json!({"name": "only", "more": false}))})])
        .await;
    assert_eq!(once[1].text(), Some("only"), "{}", once[1]);
}

/// Asks until the guess passes a business check, with `continue` and a value from `break`.
#[tool]
async fn guess(cx: Cx) -> ToolResult {
    let mut tries: u32 = 0;
    let found: i64 = 'asking: loop {
        tries += 1;
        let guess: Guess = cx.elicit("Guess an even number above 10").await?;
        if guess.number % 2 != 0 {
            continue 'asking;
        }
        if guess.number <= 10 {
            continue;
        }
        break guess.number;
    };
    Ok(text(format!("{found} after {tries} tries")))
}

#[tokio::test]
async fn continue_and_break_with_value() {
    let rounds = FlowTester::tool(guess)
        .script([
            json!({"guess": accept(json!({"number": 3}))}),
            json!({"guess": accept(json!({"number": 4}))}),
            json!({"guess": accept(json!({"number": 12}))}),
        ])
        .await;
    assert_eq!(rounds[3].text(), Some("12 after 3 tries"), "{}", rounds[3]);
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Names {
    names: Vec<String>,
}

/// Confirms each name in turn; `for` over an owned collection and over a range.
#[tool]
async fn confirm_each(args: Names, cx: Cx) -> ToolResult {
    let names: Vec<String> = args.names;
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        let keep: Confirm = cx.elicit(format!("Keep {name}?")).await?;
        if keep.ok {
            kept.push(name);
        }
    }
    let rounds: u32 = 2;
    let mut total: u32 = 0;
    for round in 0..rounds {
        let more: Confirm = cx.elicit(format!("Bonus {round}?")).key("bonus").await?;
        if more.ok {
            total += round + 1;
        }
    }
    Ok(text(format!("{} +{total}", kept.join(","))))
}

#[tokio::test]
async fn for_loops_carry_their_position() {
    let tester = FlowTester::tool(confirm_each).arguments(json!({"names": ["x", "y", "z"]}));
    let yes = json!({"keep": accept(json!({"ok": true}))});
    let no = json!({"keep": accept(json!({"ok": false}))});
    let bonus = json!({"bonus": accept(json!({"ok": true}))});
    let rounds = tester
        .script([yes.clone(), no, yes, bonus.clone(), bonus])
        .await;
    let message = |i: usize, key: &str| {
        serde_json::to_value(&rounds[i].requests().unwrap()[key]).unwrap()["params"]["message"]
            .clone()
    };
    assert_eq!(message(1, "keep"), "Keep y?");
    assert_eq!(message(2, "keep"), "Keep z?");
    assert_eq!(message(3, "bonus"), "Bonus 0?");
    assert_eq!(message(4, "bonus"), "Bonus 1?");
    assert_eq!(rounds[5].text(), Some("x,z +3"), "{}", rounds[5]);

    // Zero iterations ask nothing in that loop.
    let empty = FlowTester::tool(confirm_each).arguments(json!({"names": []}));
    assert_eq!(empty.start().await.questions(), ["bonus"]);
}

/// `while` and `while let` with an early return and nested loops.
#[tool]
async fn nested(cx: Cx) -> ToolResult {
    let mut queue: Vec<u8> = vec![1, 2];
    let mut log: Vec<String> = Vec::new();
    while let Some(n) = queue.pop() {
        let n: u8 = n;
        let mut inner: u8 = 0;
        while inner < n {
            inner += 1;
            let ok: Confirm = cx.elicit(format!("{n}.{inner}?")).await?;
            if !ok.ok {
                return Ok(text(format!("stopped at {n}.{inner}")));
            }
            log.push(format!("{n}.{inner}"));
        }
    }
    Ok(text(log.join(" ")))
}

#[tokio::test]
async fn nested_while_loops_and_early_return() {
    let ok = json!({"ok": accept(json!({"ok": true}))});
    let rounds = FlowTester::tool(nested)
        .script([ok.clone(), ok.clone(), ok.clone()])
        .await;
    assert_eq!(rounds[3].text(), Some("2.1 2.2 1.1"), "{}", rounds[3]);
    let stop = json!({"ok": accept(json!({"ok": false}))});
    let rounds = FlowTester::tool(nested).script([ok, stop]).await;
    assert_eq!(rounds[2].text(), Some("stopped at 2.2"));
}

/// Never stops asking: ends at the round bound.
#[tool(max_rounds = 3)]
async fn forever(cx: Cx) -> ToolResult {
    loop {
        let _ok: Confirm = cx.elicit("Again?").key("again").await?;
    }
}

#[tokio::test]
async fn a_flow_that_never_stops_meets_the_round_bound() {
    let again = json!({"again": accept(json!({"ok": true}))});
    let rounds = FlowTester::tool(forever)
        .script([again.clone(), again.clone(), again.clone(), again])
        .await;
    assert_eq!(rounds[2].questions(), ["again"]);
    let error = rounds[3].error().unwrap_or_else(|| panic!("{}", rounds[3]));
    assert!(error.message.contains("more than 3"), "{}", error.message);
}

/// Questions whose answers are what a `break` carries out of a loop and of a labelled block.
#[tool]
async fn break_values(args: Names, cx: Cx) -> ToolResult {
    let mut looked = 0;
    let found = loop {
        let Some(name) = args.names.get(looked).cloned() else {
            break String::from("none");
        };
        looked += 1;
        if name.starts_with('x') {
            break cx.elicit::<Item>(format!("About {name}?")).await?.name;
        }
    };
    let sure = 'sure: {
        let left = args.names.len() - looked;
        if left > 0 {
            break 'sure cx
                .elicit::<Confirm>(format!("Sure, with {left} left?"))
                .await?
                .ok;
        }
        false
    };
    Ok(text(format!("{found} after {looked}, sure: {sure}")))
}

#[tokio::test]
async fn a_question_gives_the_value_a_break_carries_out() {
    // No binding takes either answer: each is asked under its method's name.
    let item = json!({"elicit": accept(json!({"name": "kept", "more": false}))});
    let sure = json!({"elicit_2": accept(json!({"ok": true}))});
    let rounds = FlowTester::tool(break_values)
        .arguments(json!({"names": ["a", "xb", "xc"]}))
        .script([item, sure])
        .await;
    assert_eq!(rounds[0].questions(), ["elicit"], "{}", rounds[0]);
    assert_eq!(rounds[1].questions(), ["elicit_2"], "{}", rounds[1]);
    assert_eq!(rounds[2].text(), Some("kept after 2, sure: true"));
    let rounds = FlowTester::tool(break_values)
        .arguments(json!({"names": ["a"]}))
        .script([])
        .await;
    assert_eq!(rounds[0].text(), Some("none after 1, sure: false"));
}
