//! Everyday Rust around questions, written without a type on any local: destructuring and
//! compound assignments whose right asks, answers used through `Result`'s methods or matched
//! in an `if let` or a `match` scrutinee, `let` chains with a question after a `let`, loops
//! over a string's characters, an array, a reversed range, a borrowed map and a clone,
//! sub-flows destructured and called in a loop, items declared in the body, and a flow of
//! forty rounds. Each runs round by round through the server's own dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, declined, word, yes};

#[elicit]
async fn word_and_sure(cx: &Cx) -> Result<(String, bool), Refusal> {
    let said = cx.elicit::<Word>("Word?").await?;
    let sure = cx.elicit::<Yes>(format!("Sure of {}?", said.word)).await?;
    Ok((said.word, sure.ok))
}

/// Calls of [`slot`]: the left of an assignment whose right asks runs once.
static SLOTS: AtomicU32 = AtomicU32::new(0);

fn slot() -> usize {
    SLOTS.fetch_add(1, Ordering::SeqCst) as usize % 3
}

#[tool]
async fn assigned(cx: Cx) -> ToolResult {
    let (mut said, mut sure) = (String::new(), false);
    (said, sure) = word_and_sure(&cx).await?;
    let mut pair = [false; 2];
    [pair[0], pair[1]] = [
        cx.elicit::<Yes>("First?").await?.ok,
        cx.elicit::<Yes>("Second?").await?.ok,
    ];
    _ = cx.elicit::<Yes>("Noted?").await?;
    let mut words = vec![String::new(); 3];
    words[slot()] = cx.elicit::<Word>("Slotted?").await?.word;
    (sure, said) = (!sure, cx.elicit::<Word>("Last?").await?.word);
    Ok(text(format!("{said} {sure} {pair:?} {words:?}")))
}

#[tokio::test]
async fn destructuring_assignments_take_answers_and_their_left_runs_once() {
    SLOTS.store(1, Ordering::SeqCst);
    let answers = [
        word("w"),
        yes(true),
        yes(true),
        yes(false),
        yes(true),
        word("slotted"),
        word("last"),
    ];
    let out = answered(assigned, json!({}), &answers).await;
    assert_eq!(out, r#"last false [true, false] ["", "slotted", ""]"#);
    assert_eq!(SLOTS.load(Ordering::SeqCst), 2, "the left ran once");
}

#[tool]
async fn tallied(cx: Cx) -> ToolResult {
    let mut lengths = BTreeMap::new();
    let mut notes: BTreeMap<u8, String> = BTreeMap::new();
    for key in ["a", "b", "a"] {
        *lengths.entry(key.to_owned()).or_insert(0) +=
            cx.elicit::<Word>(format!("{key}?")).await?.word.len();
        *notes.entry(1).or_default() += &cx.elicit::<Word>("Note?").await?.word;
    }
    Ok(text(format!("{lengths:?} {notes:?}")))
}

#[tokio::test]
async fn compound_assignments_to_what_a_call_finds_take_answers() {
    let answers = ["xy", "n", "z", "m", "abc", "o"].map(word);
    let out = answered(tallied, json!({}), &answers).await;
    assert_eq!(out, r#"{"a": 5, "b": 1} {1: "nmo"}"#);
}

#[tool]
async fn through_results(cx: Cx) -> ToolResult {
    let first = cx.elicit::<Word>("First?").await.ok();
    let second = cx
        .elicit::<Word>("Second?")
        .await
        .map(|said| said.word)
        .unwrap_or_default();
    cx.elicit::<Yes>("Go on?").await?;
    let _ = cx.elicit::<Yes>("Whatever?").await;
    let mut out = first.map_or_else(|| "-".to_owned(), |said| said.word);
    if let Ok(Word { word }) = cx.elicit("Third?").await {
        out.push_str(&word);
    }
    match cx.elicit::<Yes>("Done?").await {
        Ok(done) if done.ok => out.push_str(" done"),
        Ok(_) => out.push_str(" not done"),
        Err(Refusal::Declined) => out.push_str(" declined"),
        Err(other) => return Err(other.into()),
    }
    Ok(text(format!("{out} [{second}]")))
}

#[tokio::test]
async fn answers_used_through_result_methods_and_matched_where_they_are_asked() {
    let answers = [
        word("a"),
        declined(),
        yes(true),
        declined(),
        word("b"),
        declined(),
    ];
    let out = answered(through_results, json!({}), &answers).await;
    assert_eq!(out, "ab declined []");
    let answers = [
        declined(),
        word("x"),
        yes(true),
        yes(true),
        declined(),
        yes(false),
    ];
    let out = answered(through_results, json!({}), &answers).await;
    assert_eq!(out, "- not done [x]");
}

#[tool]
async fn loops(args: Args, cx: Cx) -> ToolResult {
    let letters = String::from("ab");
    let mut kept = Vec::new();
    for letter in letters.chars() {
        if cx.elicit::<Yes>(format!("{letter}?")).await?.ok {
            kept.push(letter.to_string());
        }
    }
    for number in [10, 20] {
        if cx.elicit::<Yes>(format!("{number}?")).await?.ok {
            kept.push(number.to_string());
        }
    }
    let count = 2;
    for index in (0..count).rev() {
        if cx.elicit::<Yes>(format!("{index}?")).await?.ok {
            kept.push(index.to_string());
        }
    }
    let prices = BTreeMap::from([("pen".to_owned(), 2), ("ink".to_owned(), 5)]);
    for (name, price) in &prices {
        if cx.elicit::<Yes>(format!("{name}?")).await?.ok {
            kept.push(format!("{name}{price}"));
        }
    }
    for item in args.items.clone() {
        if cx.elicit::<Yes>(format!("{item}?")).await?.ok {
            kept.push(item);
        }
    }
    Ok(text(kept.join(",")))
}

#[tokio::test]
async fn loops_over_characters_arrays_reversed_ranges_borrowed_maps_and_clones() {
    let answers = [
        yes(true),
        yes(false),
        yes(true),
        yes(false),
        yes(false),
        yes(true),
        yes(true),
        yes(false),
        yes(true),
    ];
    let out = answered(loops, args(0, &["p"]), &answers).await;
    assert_eq!(out, "a,10,0,ink5,p");
}

#[elicit]
async fn pick(cx: &Cx, count: u32) -> Result<Vec<u32>, Refusal> {
    let mut picked = vec![];
    for index in 0..count {
        if cx.elicit::<Yes>(format!("Take {index}?")).await?.ok {
            picked.push(index);
        }
    }
    Ok(picked)
}

#[tool]
async fn picks(cx: Cx) -> ToolResult {
    let mut all = vec![];
    for round in 1..=2 {
        let picked = pick(&cx, round).await?;
        all.extend(picked.into_iter().map(|index| index + round * 10));
    }
    let (said, sure) = word_and_sure(&cx).await?;
    Ok(text(format!("{all:?} {said} {sure}")))
}

#[tokio::test]
async fn sub_flows_called_in_a_loop_and_destructured() {
    let answers = [yes(true), yes(false), yes(true), word("w"), yes(true)];
    let out = answered(picks, json!({}), &answers).await;
    assert_eq!(out, "[10, 21] w true");
}

#[tool]
async fn with_items(cx: Cx) -> ToolResult {
    use std::fmt::Write as _;

    const ROUNDS: usize = 2;
    static GREETING: &str = "hi";

    fn first<T: Clone>(items: &[T]) -> T {
        items[0].clone()
    }

    let mut out = String::new();
    for round in 0..ROUNDS {
        let said = cx.elicit::<Word>(format!("{GREETING} {round}")).await?;
        write!(out, "{}{round}", said.word)?;
    }
    let width = 8;
    let shown = first(&[out.clone()]);
    Ok(text(format!("[{shown:>width$}] {GREETING}")))
}

#[tokio::test]
async fn consts_statics_functions_and_imports_declared_in_the_body() {
    let out = answered(with_items, json!({}), &[word("a"), word("b")]).await;
    assert_eq!(out, "[    a0b1] hi");
}

#[tool]
async fn counted(cx: Cx) -> ToolResult {
    let mut count = 0;
    let mut last = None;
    while cx.elicit::<Yes>("More?").await?.ok {
        count += 1;
        last = Some(count * 2);
    }
    Ok(text(format!("{count} {last:?}")))
}

#[tokio::test]
async fn a_flow_of_forty_rounds() {
    let mut answers = vec![yes(true); 40];
    answers.push(yes(false));
    let out = answered(counted, json!({}), &answers).await;
    assert_eq!(out, "40 Some(80)");
}

#[tool]
async fn chained(args: Args, cx: Cx) -> ToolResult {
    let mut kept = vec![];
    if let Some(first) = args.items.first()
        && cx.elicit::<Yes>(format!("Keep {first}?")).await?.ok
    {
        kept.push(first.clone());
    }
    for item in &args.items {
        if let Some(letter) = item.chars().next()
            && letter != 'x'
            && let Ok(said) = cx.elicit::<Word>(format!("After {letter}?")).await
            && !said.word.is_empty()
        {
            let sure = cx.elicit::<Yes>(format!("{letter}{}?", said.word)).await?;
            kept.push(format!("{letter}{}{}", said.word, sure.ok));
        }
    }
    Ok(text(kept.join(",")))
}

#[tokio::test]
async fn let_chains_with_a_question_after_a_let() {
    let answers = [yes(true), word("1"), yes(false), declined()];
    let out = answered(chained, args(0, &["ab", "xy", "cd"]), &answers).await;
    assert_eq!(out, "ab,a1false");
}
