//! Handler bodies that write no type for the locals they carry across a question: the
//! compiler infers each carried local's type inside the step function, as it would in a plain
//! `async fn`. Each shape runs round by round through the server's own dispatch; the last
//! test checks that the shape fingerprint follows the types the compiler chose.

#![allow(clippy::needless_pass_by_value)]

use std::collections::{BTreeMap, HashMap};

use mcp_runtime::state::{INVALID_STATE_MESSAGE, Signer};
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, elicit, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Mode, Word, Yes, finish, word, yes};

fn args() -> serde_json::Value {
    json!({ "items": ["ant", "bee", "cat"], "start": 4 })
}

fn bounds(items: &[String]) -> (usize, usize) {
    let lengths = items.iter().map(String::len);
    (
        lengths.clone().min().unwrap_or(0),
        lengths.max().unwrap_or(0),
    )
}

#[tool]
async fn arithmetic(args: Args, cx: Cx) -> ToolResult {
    let total = args.start + 1;
    let half = f64::from(total) / 2.0;
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{total} {half}")))
}

#[tool]
async fn collected_after_the_question(cx: Cx) -> ToolResult {
    // `seen`'s element type is settled only by the push after the question.
    let mut seen = Vec::new();
    let first: Word = cx.elicit("First?").await?;
    seen.push(first.word);
    let second: Word = cx.elicit("Second?").await?;
    seen.push(second.word);
    Ok(text(seen.join("+")))
}

#[tool]
async fn tuple_pattern(args: Args, cx: Cx) -> ToolResult {
    let (lo, hi) = bounds(&args.items);
    let (count, first) = (args.items.len(), args.items[0].clone());
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{lo}..{hi} {count} {first}")))
}

#[tool]
async fn turbofish_question(cx: Cx) -> ToolResult {
    let name = cx.elicit::<Word>("Name?").await?;
    let _go = cx.elicit::<Yes>("Go?").await?;
    Ok(text(name.word))
}

#[tool]
async fn let_else_then_another(cx: Cx) -> ToolResult {
    let Ok(name) = cx.elicit::<Word>("Name?").await else {
        return Ok(text("no name"));
    };
    let shout = name.word.to_uppercase();
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{} {shout}", name.word)))
}

#[tool]
async fn struct_pattern(cx: Cx) -> ToolResult {
    let Word { word } = cx.elicit("Word?").await?;
    let Yes { ok } = cx.elicit("Sure?").await?;
    let _again: Yes = cx.elicit("Again?").await?;
    Ok(text(format!("{word} {ok}")))
}

#[tool]
async fn values_json_cannot_hold(cx: Cx) -> ToolResult {
    let mut best = f64::INFINITY;
    let huge = i128::MIN;
    let mut grid = BTreeMap::new();
    grid.insert((1_u8, 2_u8), f64::NAN);
    let candidates = [3.5, 1.25];
    for candidate in candidates {
        let _take: Yes = cx.elicit(format!("{candidate}?")).await?;
        best = best.min(candidate);
    }
    let nan = grid[&(1, 2)].is_nan();
    Ok(text(format!("{best} {huge} {nan}")))
}

#[tool]
async fn closure_result(args: Args, cx: Cx) -> ToolResult {
    let double = |x: u32| x * 2;
    let doubled = double(args.start);
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(doubled.to_string()))
}

#[tool]
async fn shadowed_in_an_inner_block(cx: Cx) -> ToolResult {
    let label = String::from("outer");
    let mut total = 0;
    {
        let _go: Yes = cx.elicit("Inner?").await?;
        let label = 5;
        total += label;
    }
    Ok(text(format!("{label} {total}")))
}

#[tool]
async fn if_let_binding(args: Args, cx: Cx) -> ToolResult {
    if let Some(first) = args.items.first().cloned() {
        let _go: Yes = cx.elicit("Go?").await?;
        return Ok(text(first));
    }
    Ok(text("empty"))
}

#[tool]
async fn same_name_in_two_arms(args: Args, cx: Cx) -> ToolResult {
    let picked = match args.start {
        0 => {
            let base = "zero".to_owned();
            let pick: Word = cx.elicit("A?").await?;
            format!("{base}-{}", pick.word)
        }
        _ => {
            let base = args.start * 10;
            let pick: Word = cx.elicit("B?").await?;
            format!("{base}-{}", pick.word)
        }
    };
    Ok(text(picked))
}

#[tool]
async fn moved_then_reassigned(cx: Cx) -> ToolResult {
    let mut label = String::from("draft");
    drop(label);
    let answer: Word = cx.elicit("Label?").await?;
    label = answer.word;
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(label))
}

#[tool]
async fn partial_annotation(cx: Cx) -> ToolResult {
    let evens: Vec<_> = (0..10).filter(|n| n % 2 == 0).collect();
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{evens:?}")))
}

#[tool]
async fn carried_enum_and_option(args: Args, cx: Cx) -> ToolResult {
    let mode = if args.start > 3 {
        Mode::Slow(args.start)
    } else {
        Mode::Fast
    };
    let missing = args.items.get(9).cloned();
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{mode:?} {missing:?}")))
}

#[tool]
async fn integer_fallback_in_a_loop(cx: Cx) -> ToolResult {
    let mut asked = 0;
    loop {
        let more: Yes = cx.elicit("More?").await?;
        asked += 1;
        if !more.ok {
            break;
        }
    }
    Ok(text(asked.to_string()))
}

#[tool]
async fn counts_in_a_map(cx: Cx) -> ToolResult {
    let mut counts = HashMap::new();
    for _ in 0..3 {
        let w: Word = cx.elicit("Word?").await?;
        *counts.entry(w.word).or_insert(0) += 1;
    }
    let mut pairs: Vec<_> = counts.into_iter().collect();
    pairs.sort();
    Ok(text(format!("{pairs:?}")))
}

#[tool]
async fn enumerated_items(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    let numbered: Vec<_> = args.items.iter().cloned().enumerate().collect();
    for (i, item) in numbered {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if keep.ok {
            kept.push(format!("{i}:{item}"));
        }
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn while_accumulator(cx: Cx) -> ToolResult {
    let mut acc = String::new();
    while acc.len() < 6 {
        let w: Word = cx.elicit("Piece?").await?;
        acc.push_str(&w.word);
    }
    Ok(text(acc))
}

#[elicit]
async fn confirm_total(cx: &Cx, base: u32) -> Result<u32, mcp_runtime::Refusal> {
    let doubled = base * 2;
    let sure: Yes = cx.elicit(format!("{doubled}?")).await?;
    Ok(if sure.ok { doubled } else { base })
}

#[tool]
async fn untyped_in_and_around_a_sub_flow(args: Args, cx: Cx) -> ToolResult {
    let names = args.items.join("/");
    let total = confirm_total(&cx, args.start).await?;
    Ok(text(format!("{names} {total}")))
}

#[tool]
async fn string_literals(cx: Cx) -> ToolResult {
    // A `&'static str` cannot be read back from a state: a local bound once to a literal is
    // declared again where the flow resumes, at the top level and inside a branch.
    // A name bound to a literal in two blocks is declared again in each.
    let env = "prod";
    let _go: Yes = cx.elicit(format!("Deploy to {env}?")).await?;
    let regions = ["eu", "us"];
    let zone = "outer";
    let mut seen = String::new();
    {
        let zone = "inner";
        let _here: Yes = cx.elicit(format!("In {zone}?")).await?;
        seen.push_str(zone);
    }
    if regions.contains(&"eu") {
        let label: &str = "sure";
        let _again: Yes = cx.elicit("Sure?").await?;
        return Ok(text(format!("{env} {label} {regions:?} {zone} {seen}")));
    }
    Ok(text(env))
}

#[tokio::test]
async fn carried_locals_need_no_written_type() {
    fn t<M>(handler: impl mcp_runtime::server::IntoToolHandler<M>) -> FlowTester {
        FlowTester::tool(handler).arguments(args())
    }
    let cases: Vec<(FlowTester, Vec<serde_json::Value>, &str)> = vec![
        (t(arithmetic), vec![yes(true)], "5 2.5"),
        (
            FlowTester::tool(collected_after_the_question),
            vec![word("a"), word("b")],
            "a+b",
        ),
        (t(tuple_pattern), vec![yes(true)], "3..3 3 ant"),
        (
            FlowTester::tool(turbofish_question),
            vec![word("ada"), yes(true)],
            "ada",
        ),
        (
            FlowTester::tool(let_else_then_another),
            vec![word("ada"), yes(true)],
            "ada ADA",
        ),
        (
            FlowTester::tool(struct_pattern),
            vec![word("w"), yes(false), yes(true)],
            "w false",
        ),
        (
            FlowTester::tool(values_json_cannot_hold),
            vec![yes(true), yes(true)],
            "1.25 -170141183460469231731687303715884105728 true",
        ),
        (t(closure_result), vec![yes(true)], "8"),
        (
            FlowTester::tool(shadowed_in_an_inner_block),
            vec![yes(true)],
            "outer 5",
        ),
        (t(if_let_binding), vec![yes(true)], "ant"),
        (t(same_name_in_two_arms), vec![word("x")], "40-x"),
        (
            FlowTester::tool(moved_then_reassigned),
            vec![word("final"), yes(true)],
            "final",
        ),
        (
            FlowTester::tool(partial_annotation),
            vec![yes(true)],
            "[0, 2, 4, 6, 8]",
        ),
        (t(carried_enum_and_option), vec![yes(true)], "Slow(4) None"),
        (
            FlowTester::tool(integer_fallback_in_a_loop),
            vec![yes(true), yes(true), yes(false)],
            "3",
        ),
        (
            FlowTester::tool(counts_in_a_map),
            vec![word("x"), word("y"), word("x")],
            "[(\"x\", 2), (\"y\", 1)]",
        ),
        (
            t(enumerated_items),
            vec![yes(true), yes(false), yes(true)],
            "0:ant,2:cat",
        ),
        (
            FlowTester::tool(while_accumulator),
            vec![word("abc"), word("de"), word("fgh")],
            "abcdefgh",
        ),
        (
            t(untyped_in_and_around_a_sub_flow),
            vec![yes(true)],
            "ant/bee/cat 8",
        ),
        (
            FlowTester::tool(string_literals),
            vec![yes(true), yes(true), yes(true)],
            "prod sure [\"eu\", \"us\"] outer inner",
        ),
    ];
    for (tester, answers, expected) in cases {
        assert_eq!(finish(tester, &answers).await, expected);
    }
}

/// Two builds of one tool, alike token for token but for a literal's suffix: the compiler
/// carries `count` as a `u32` in one and a `u64` in the other. (`count` is computed, not a
/// bare literal, which would be declared again on resume rather than carried.)
#[tool(name = "counted")]
async fn counted_as_u32(cx: Cx) -> ToolResult {
    let count = u32::from(3_u8);
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(count.to_string()))
}

#[tool(name = "counted")]
async fn counted_as_u64(cx: Cx) -> ToolResult {
    let count = u64::from(3_u8);
    let _go: Yes = cx.elicit("Go?").await?;
    Ok(text(count.to_string()))
}

#[tool(name = "counted")]
async fn counted_as_u32_reworded(cx: Cx) -> ToolResult {
    let count = u32::from(3_u8);
    let _go: Yes = cx.elicit("Shall we?").await?;
    Ok(text(format!("{count}!")))
}

#[tokio::test]
async fn the_shape_follows_the_types_the_compiler_chose() {
    let signer = Signer::random().unwrap();
    let first = FlowTester::tool(counted_as_u32)
        .signer(signer.clone())
        .start()
        .await;
    let state = first.state().expect("a state").to_owned();
    let answer = json!({ "_go": yes(true) });

    let same = FlowTester::tool(counted_as_u32_reworded).signer(signer.clone());
    let done = same.send(Some(&state), Some(answer.clone())).await;
    assert_eq!(done.text(), Some("3!"), "{done}");

    let other = FlowTester::tool(counted_as_u64).signer(signer);
    let refused = other.send(Some(&state), Some(answer)).await;
    let error = refused.error().unwrap_or_else(|| panic!("{refused}"));
    assert_eq!(error.code.0, -32602);
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
}
