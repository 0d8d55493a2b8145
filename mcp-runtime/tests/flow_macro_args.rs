//! Questions among the arguments of the standard macros that evaluate each argument once, in
//! the order written (`format!`, `println!`, `write!`, `vec!`, ...): as an argument of a call,
//! the question is asked first where every argument before it only reads, and the code
//! between two questions runs once.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, run_keyed, word, yes};

/// A question in `format!`, in the handler's last expression.
#[tool]
async fn greeted(cx: Cx) -> ToolResult {
    Ok(text(format!(
        "Hello {}",
        cx.elicit::<Word>("Who?").await?.word
    )))
}

#[tokio::test]
async fn a_question_in_format_in_the_last_expression_is_asked_once() {
    let tester = FlowTester::tool(greeted);
    let (keys, round) = run_keyed(tester, &[word("ada")]).await;
    assert_eq!(round.text(), Some("Hello ada"));
    assert_eq!(keys, ["elicit"]);
}

static PRINTED: AtomicU32 = AtomicU32::new(0);

/// Two questions in one `format!`, one by name, after a local it reads and code that must run
/// once; the `let` names the first.
#[tool]
async fn two_in_one(args: Args, cx: Cx) -> ToolResult {
    let count = args.start;
    PRINTED.fetch_add(1, Ordering::SeqCst);
    let line = format!(
        "{count}: {} then {last}",
        cx.elicit::<Word>("First?").await?.word,
        last = cx.elicit::<Word>("Last?").await?.word,
    );
    PRINTED.fetch_add(10, Ordering::SeqCst);
    Ok(text(line))
}

#[tokio::test]
async fn two_questions_in_one_format_are_asked_in_the_order_written() {
    PRINTED.store(0, Ordering::SeqCst);
    let tester = FlowTester::tool(two_in_one).arguments(args(3, &[]));
    let (keys, round) = run_keyed(tester, &[word("ada"), word("grace")]).await;
    assert_eq!(round.text(), Some("3: ada then grace"));
    assert_eq!(keys, ["line", "elicit"]);
    assert_eq!(
        PRINTED.load(Ordering::SeqCst),
        11,
        "each side of the questions ran once"
    );
}

/// A question in a `println!` statement, and in `write!` and `vec!` inside a `for` loop.
#[tool]
async fn written(args: Args, cx: Cx) -> ToolResult {
    println!("asked for {}", cx.elicit::<Word>("Name?").await?.word);
    let mut out = String::new();
    let mut picks = Vec::new();
    for item in &args.items {
        write!(
            out,
            "[{item}={}]",
            cx.elicit::<Yes>(format!("{item}?")).await?.ok
        )
        .map_err(|_| Refusal::Declined)?;
        picks = vec![cx.elicit::<Word>("Why?").await?.word, item.clone()];
    }
    Ok(text(format!("{out} {picks:?}")))
}

#[tokio::test]
async fn questions_in_println_write_and_vec_resume_where_they_stand() {
    let done = answered(
        written,
        args(0, &["a", "b"]),
        &[word("ada"), yes(true), word("x"), yes(false), word("y")],
    )
    .await;
    assert_eq!(done, "[a=true][b=false] [\"y\", \"b\"]");
}

/// A sub-flow awaited in `format!`.
#[elicit]
async fn named(cx: &Cx) -> Result<String, Refusal> {
    let answer: Word = cx.elicit("Name?").await?;
    Ok(answer.word.to_uppercase())
}

#[tool]
async fn shouted(args: Args, cx: Cx) -> ToolResult {
    let greeting = format!("{} {}!", args.start, named(&cx).await?);
    Ok(text(greeting))
}

#[tokio::test]
async fn a_sub_flow_in_format_is_awaited_first() {
    let done = answered(shouted, args(2, &[]), &[word("ada")]).await;
    assert_eq!(done, "2 ADA!");
}

/// A width and a precision that a format spec names (`{:>width$}`), from locals set before a
/// question: they travel like any local a format string names.
#[tool]
async fn padded(args: Args, cx: Cx) -> ToolResult {
    let width = args.start as usize;
    let places = args.items.len();
    let sure: Yes = cx.elicit("Pad?").await?;
    let ratio = if sure.ok { 2.0 / 3.0 } else { 0.5 };
    Ok(text(format!("[{:>width$}] [{ratio:.places$}]", sure.ok)))
}

#[tokio::test]
async fn widths_and_precisions_a_format_spec_names_travel() {
    let done = answered(padded, args(6, &["a", "b", "c"]), &[yes(true)]).await;
    assert_eq!(done, "[  true] [0.667]");
}
