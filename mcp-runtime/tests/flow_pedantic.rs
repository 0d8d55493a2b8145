//! Handlers under `clippy::pedantic`: what the macros generate around a body must not trip a
//! lint a user may turn on, so that clippy speaks only of the code as written. CI's clippy
//! runs with `-D warnings`, so a lint the expansion trips here fails it. Each flow also runs.

#![warn(clippy::pedantic)]

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

/// Asks for a word and gives its length.
#[elicit]
async fn length(cx: &Cx, what: String) -> Result<usize, Refusal> {
    let answer: Word = cx.elicit(what).await?;
    Ok(answer.word.len())
}

/// Questions in a row, in `if`s, in a loop's body (resumed together), in a `for` loop over
/// the arguments, and passed to a method, an operator and a sub-flow.
#[tool]
async fn every_shape(args: Args, cx: Cx) -> ToolResult {
    let first: Yes = cx.elicit("First?").await?;
    let mut total = usize::from(first.ok);
    if args.start > 0 {
        let second: Yes = cx.elicit("Second?").await?;
        total += usize::from(second.ok);
    }
    let mut words = Vec::new();
    loop {
        words.push(cx.elicit::<Word>("A word?").await?.word);
        if cx.elicit::<Yes>("Another?").await?.ok {
            continue;
        }
        break;
    }
    for item in &args.items {
        total += length(&cx, format!("A word for {item}?")).await?;
    }
    let base = total;
    let last = base + usize::from(cx.elicit::<Yes>("Last?").await?.ok);
    Ok(text(format!(
        "{} {last} {}",
        words.join(","),
        cx.elicit::<Word>("Sign?").await?.word
    )))
}

#[tokio::test]
async fn every_shape_runs_under_pedantic_lints() {
    let answers = [
        yes(true),
        yes(true),
        word("a"),
        yes(true),
        word("b"),
        yes(false),
        word("xyz"),
        yes(true),
        word("ok"),
    ];
    let done = answered(every_shape, args(1, &["i"]), &answers).await;
    assert_eq!(done, "a,b 6 ok");
    let tester = FlowTester::tool(every_shape).arguments(args(0, &[]));
    let answers = [yes(false), word("c"), yes(false), yes(false), word("ok")];
    let round = answers::run(tester, &answers).await;
    assert_eq!(round.text(), Some("c 0 ok"));
}

/// Asks nothing and awaits nothing: its step is its body alone.
#[tool]
async fn asks_nothing(args: Args) -> ToolResult {
    Ok(text(format!("{} items", args.items.len())))
}

#[tokio::test]
async fn a_handler_that_asks_nothing_runs_under_pedantic_lints() {
    let done = answered(asks_nothing, args(0, &["a", "b"]), &[]).await;
    assert_eq!(done, "2 items");
}
