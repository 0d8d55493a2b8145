//! `for` loops that ask questions, over collections written the way Rust is usually written:
//! a borrow, an iterator chain, an array literal, a call, a macro. A collection that gives the
//! same items when evaluated again is evaluated again on resume; any other is taken once, into
//! a list that travels in the state. Each loop runs round by round through the server's own
//! dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, finish, run, word, yes};

fn args() -> serde_json::Value {
    json!({ "items": ["ant", "bee", "cat"], "start": 2 })
}

#[tool]
async fn over_a_borrow(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for item in &args.items {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if keep.ok {
            kept.push(item.clone());
        }
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn over_an_enumerated_iter(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for (i, item) in args.items.iter().enumerate() {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if keep.ok {
            kept.push(format!("{i}:{item}"));
        }
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn over_a_filtered_chain(args: Args, cx: Cx) -> ToolResult {
    let mut renamed = Vec::new();
    for item in args
        .items
        .iter()
        .filter(|item| !item.starts_with('b'))
        .rev()
    {
        let name: Word = cx.elicit(format!("Rename {item}?")).await?;
        renamed.push(format!("{item}={}", name.word));
    }
    Ok(text(renamed.join(",")))
}

#[tool]
async fn over_the_words_of_a_string(cx: Cx) -> ToolResult {
    let line = String::from("red green blue");
    let mut picked = String::new();
    for (colour, n) in line.split(' ').zip(1..) {
        let keep: Yes = cx.elicit(format!("{n}. {colour}?")).await?;
        if keep.ok {
            picked.push_str(colour);
        }
    }
    Ok(text(picked))
}

#[tool]
async fn over_an_array_literal(cx: Cx) -> ToolResult {
    let mut total = 0;
    for step in [1, 10, 100] {
        let keep: Yes = cx.elicit(format!("Add {step}?")).await?;
        if keep.ok {
            total += step;
        }
    }
    Ok(text(total.to_string()))
}

#[tool]
async fn over_a_reversed_range(args: Args, cx: Cx) -> ToolResult {
    let mut order = Vec::new();
    for n in (0..=args.start).rev() {
        let _go: Yes = cx.elicit(format!("Count {n}?")).await?;
        order.push(n);
    }
    Ok(text(format!("{order:?}")))
}

/// How many times `load` ran: once per flow, however many rounds its loop asks over.
static LOADS: AtomicUsize = AtomicUsize::new(0);

fn load() -> Vec<String> {
    LOADS.fetch_add(1, Ordering::SeqCst);
    vec!["north".to_owned(), "south".to_owned()]
}

#[tool]
async fn over_a_call(cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for region in load() {
        let keep: Yes = cx.elicit(format!("Deploy to {region}?")).await?;
        if keep.ok {
            kept.push(region);
        }
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn over_a_macro(cx: Cx) -> ToolResult {
    let mut out = Vec::new();
    for (name, size) in vec![("small", 1_u8), ("large", 9)] {
        let pick: Yes = cx.elicit(format!("{name}?")).await?;
        out.push(format!("{name}{size}{}", pick.ok));
    }
    Ok(text(out.join(",")))
}

#[tool]
async fn over_an_owning_chain_with_labels(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    'items: for item in args.items.into_iter().map(|item| item.to_uppercase()) {
        if item.starts_with('B') {
            continue 'items;
        }
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if !keep.ok {
            break 'items;
        }
        kept.push(item);
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn over_owned_strings_from_a_macro(cx: Cx) -> ToolResult {
    let mut out = String::new();
    for name in vec![String::from("x"), String::from("y")] {
        let word: Word = cx.elicit(format!("After {name}?")).await?;
        out.push_str(&name);
        out.push_str(&word.word);
    }
    Ok(text(out))
}

fn scores() -> HashMap<String, u32> {
    (0..8).map(|n| (format!("p{n}"), n * 10)).collect()
}

#[tool]
async fn over_a_map_a_call_returns(cx: Cx) -> ToolResult {
    // The map's order is drawn when it is built; the loop takes its items once, in that
    // order, and resumes in it.
    let mut seen = Vec::new();
    let mut asked = Vec::new();
    for (player, score) in scores() {
        asked.push(player.clone());
        let _next: Yes = cx.elicit(format!("Score {player}?")).await?;
        seen.push(format!("{player}:{score}"));
    }
    Ok(text(format!("{}|{}", asked.join(","), seen.join(","))))
}

#[tokio::test]
async fn loops_over_collections_as_users_write_them() {
    fn with_args<M>(handler: impl mcp_runtime::server::IntoToolHandler<M>) -> FlowTester {
        FlowTester::tool(handler).arguments(args())
    }
    let cases: Vec<(FlowTester, Vec<serde_json::Value>, &str)> = vec![
        (
            with_args(over_a_borrow),
            vec![yes(true), yes(false), yes(true)],
            "ant,cat",
        ),
        (
            with_args(over_an_enumerated_iter),
            vec![yes(false), yes(true), yes(true)],
            "1:bee,2:cat",
        ),
        (
            with_args(over_a_filtered_chain),
            vec![word("C"), word("A")],
            "cat=C,ant=A",
        ),
        (
            FlowTester::tool(over_the_words_of_a_string),
            vec![yes(true), yes(false), yes(true)],
            "redblue",
        ),
        (
            FlowTester::tool(over_an_array_literal),
            vec![yes(true), yes(false), yes(true)],
            "101",
        ),
        (
            with_args(over_a_reversed_range),
            vec![yes(true), yes(true), yes(true)],
            "[2, 1, 0]",
        ),
        (
            FlowTester::tool(over_a_macro),
            vec![yes(false), yes(true)],
            "small1false,large9true",
        ),
        (
            with_args(over_an_owning_chain_with_labels),
            vec![yes(true), yes(false)],
            "ANT",
        ),
        (
            with_args(over_an_owning_chain_with_labels),
            vec![yes(true), yes(true)],
            "ANT,CAT",
        ),
        (
            FlowTester::tool(over_owned_strings_from_a_macro),
            vec![word("1"), word("2")],
            "x1y2",
        ),
    ];
    for (tester, answers, expected) in cases {
        assert_eq!(finish(tester, &answers).await, expected);
    }
}

#[tokio::test]
async fn each_round_asks_about_the_next_item() {
    // The question of every round names the item the loop stands at: the position and the
    // collection resume together.
    let mut round = FlowTester::tool(over_an_enumerated_iter)
        .arguments(args())
        .start()
        .await;
    for item in ["ant", "bee", "cat"] {
        let request = serde_json::to_value(&round.requests().expect("a question")["keep"])
            .expect("a request serialises");
        assert_eq!(request["params"]["message"], format!("Keep {item}?"));
        round = round.answer(json!({ "keep": yes(true) })).await;
    }
    assert_eq!(round.text(), Some("0:ant,1:bee,2:cat"));
}

#[tokio::test]
async fn a_collection_from_a_call_is_taken_once() {
    let before = LOADS.load(Ordering::SeqCst);
    let last = finish(FlowTester::tool(over_a_call), &[yes(false), yes(true)]).await;
    assert_eq!(last, "south");
    // Two rounds resumed inside the loop; `load` ran in the first only.
    assert_eq!(LOADS.load(Ordering::SeqCst) - before, 1);
}

#[tokio::test]
async fn a_map_from_a_call_resumes_in_the_order_it_was_first_taken() {
    let answers = vec![yes(true); 8];
    let round = run(FlowTester::tool(over_a_map_a_call_returns), &answers).await;
    let text = round.text().expect("a final text");
    let (asked, seen) = text.split_once('|').expect("two lists");
    // Every entry once, and each asked about in the round it was seen in.
    let order: Vec<&str> = seen
        .split(',')
        .map(|entry| entry.split(':').next().unwrap_or_default())
        .collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, ["p0", "p1", "p2", "p3", "p4", "p5", "p6", "p7"]);
    assert_eq!(asked.split(',').collect::<Vec<_>>(), order, "{text}");
}
