//! Ordinary Rust in handler bodies: shapes a plain `async fn` accepts, each compiled by the
//! macro and run round by round, with the code between two questions run once.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Word, Yes, finish, run_keyed, word, yes};

/// Items declared in the body before a question, used after it.
#[tool]
async fn items_before_a_question(cx: Cx) -> ToolResult {
    use std::fmt::Write as _;
    const PREFIX: &str = "got";
    fn shout(word: &str) -> String {
        word.to_uppercase()
    }
    struct Tally {
        count: usize,
    }
    let asked: Word = cx.elicit("A word?").await?;
    let tally = Tally {
        count: asked.word.len(),
    };
    let mut out = String::new();
    write!(out, "{PREFIX} {} ({})", shout(&asked.word), tally.count)?;
    Ok(text(out))
}

#[tokio::test]
async fn items_declared_before_a_question_are_in_scope_after_it() {
    let done = finish(FlowTester::tool(items_before_a_question), &[word("hi")]).await;
    assert_eq!(done, "got HI (2)");
}

static MOVED_RUNS: AtomicU32 = AtomicU32::new(0);

/// A local moved before a question and assigned again after it.
#[tool]
async fn moved_then_reassigned(cx: Cx) -> ToolResult {
    let mut label: String = String::from("first");
    MOVED_RUNS.fetch_add(1, Ordering::SeqCst);
    drop(label);
    let asked: Word = cx.elicit("A word?").await?;
    label = asked.word;
    Ok(text(label))
}

#[tokio::test]
async fn a_local_moved_before_a_question_can_be_assigned_after_it() {
    let done = finish(FlowTester::tool(moved_then_reassigned), &[word("second")]).await;
    assert_eq!(done, "second");
    assert_eq!(
        MOVED_RUNS.load(Ordering::SeqCst),
        1,
        "code before the question ran once"
    );
}

/// The same binding name, under the same key, in two arms that cannot both run.
#[tool]
async fn same_key_in_exclusive_arms(cx: Cx) -> ToolResult {
    let first: Yes = cx.elicit("Formal?").await?;
    match first.ok {
        true => {
            let answer: Word = cx.elicit("Your title?").await?;
            Ok(text(format!("Dear {}", answer.word)))
        }
        false => {
            let answer: Word = cx.elicit("Your nickname?").await?;
            Ok(text(format!("Hey {}", answer.word)))
        }
    }
}

#[tokio::test]
async fn exclusive_arms_may_ask_under_the_same_key() {
    let formal = finish(
        FlowTester::tool(same_key_in_exclusive_arms),
        &[yes(true), word("Doctor")],
    )
    .await;
    assert_eq!(formal, "Dear Doctor");
    let casual = finish(
        FlowTester::tool(same_key_in_exclusive_arms),
        &[yes(false), word("Bo")],
    )
    .await;
    assert_eq!(casual, "Hey Bo");
}

/// An outer binding shadowed inside a block that asks, used after the block.
#[tool]
async fn shadowed_in_an_inner_block(cx: Cx) -> ToolResult {
    let name: String = String::from("outer");
    let inner_len: usize = {
        let name: Word = cx.elicit("A word?").await?;
        name.word.len()
    };
    Ok(text(format!("{name} {inner_len}")))
}

#[tokio::test]
async fn an_outer_binding_survives_a_shadowing_inner_block() {
    let done = finish(FlowTester::tool(shadowed_in_an_inner_block), &[word("abc")]).await;
    assert_eq!(done, "outer 3");
}

/// A macro after a question naming a local where it is not a use: a `tracing` field name,
/// and a field after `.`. The local itself could not travel (an `Instant`), so the macro
/// must not take it for a use.
#[tool]
async fn macro_field_named_like_a_local(cx: Cx) -> ToolResult {
    let status = std::time::Instant::now();
    let _ = status.elapsed();
    let asked: Word = cx.elicit("A word?").await?;
    tracing::info!(status = %asked.word, "answered");
    let summary = format!("{}", asked.word.len());
    let shown = format!("{word} {summary}", word = asked.word);
    Ok(text(shown))
}

#[tokio::test]
async fn a_macro_field_named_like_a_local_is_not_a_use() {
    let done = finish(
        FlowTester::tool(macro_field_named_like_a_local),
        &[word("go")],
    )
    .await;
    assert_eq!(done, "go 2");
}

/// `let ... else` whose pattern binds from an answer: the answer's key is the one name the
/// pattern binds, and the `else` runs on a refusal.
#[tool]
async fn let_else_on_an_answer(cx: Cx) -> ToolResult {
    let Ok(asked) = cx.elicit::<Word>("A word?").await else {
        return Ok(text("declined"));
    };
    let asked: Word = asked;
    let sure: Yes = cx.elicit(format!("Keep {}?", asked.word)).await?;
    Ok(text(format!("{} {}", asked.word, sure.ok)))
}

#[tokio::test]
async fn let_else_binds_from_an_answer_and_diverges_on_a_refusal() {
    let tester = || FlowTester::tool(let_else_on_an_answer);
    let round = tester().start().await;
    assert_eq!(round.questions(), ["asked"], "{round}");
    let done = finish(tester(), &[word("kept"), yes(true)]).await;
    assert_eq!(done, "kept true");
    let declined = tester()
        .start()
        .await
        .answer(json!({"asked": {"action": "decline"}}))
        .await;
    assert_eq!(declined.text(), Some("declined"), "{declined}");
}

/// An answer destructured with a struct pattern, and two answers with a tuple pattern.
#[tool]
async fn destructured_answers(cx: Cx) -> ToolResult {
    let Word { word } = cx.elicit("A word?").await?;
    let word: String = word;
    let (first, second) = (cx.elicit("First?"), cx.elicit("Second?")).await;
    let (first, second): (Yes, Yes) = (first?, second?);
    let last: Yes = cx.elicit("Last?").await?;
    Ok(text(format!(
        "{word} {} {} {}",
        first.ok, second.ok, last.ok
    )))
}

#[tokio::test]
async fn answers_destructured_by_patterns_travel_on() {
    let round = FlowTester::tool(destructured_answers).start().await;
    assert_eq!(round.questions(), ["word"], "{round}");
    let round = round.answer(json!({"word": word("w")})).await;
    let mut asked = round.questions().to_vec();
    asked.sort_unstable();
    assert_eq!(asked, ["first", "second"], "{round}");
    let round = round
        .answer(json!({"first": yes(true), "second": yes(false)}))
        .await;
    assert_eq!(round.questions(), ["last"], "{round}");
    let done = round.answer(json!({"last": yes(true)})).await;
    assert_eq!(done.text(), Some("w true false true"), "{done}");
}

/// How many times the body of the literal-range loop below ran before its question.
static RANGE_BODY: AtomicU32 = AtomicU32::new(0);

/// A `for` loop over a literal range that asks in every turn.
#[tool]
async fn for_over_a_literal_range(cx: Cx) -> ToolResult {
    let mut kept: Vec<u32> = Vec::new();
    for turn in 0..3 {
        RANGE_BODY.fetch_add(1, Ordering::SeqCst);
        let keep: Yes = cx.elicit(format!("Keep {turn}?")).await?;
        if keep.ok {
            kept.push(turn);
        }
    }
    Ok(text(format!("{kept:?}")))
}

#[tokio::test]
async fn a_loop_over_a_literal_range_asks_once_per_turn() {
    let done = finish(
        FlowTester::tool(for_over_a_literal_range),
        &[yes(true), yes(false), yes(true)],
    )
    .await;
    assert_eq!(done, "[0, 2]");
    assert_eq!(RANGE_BODY.load(Ordering::SeqCst), 3, "each turn ran once");
}

/// An `if let` binding used after a question inside its block.
#[tool]
async fn if_let_binding_after_a_question(cx: Cx) -> ToolResult {
    let found: Option<u32> = "42".parse().ok();
    if let Some(n) = found {
        let n: u32 = n;
        let sure: Yes = cx.elicit(format!("Use {n}?")).await?;
        return Ok(text(format!("{n} {}", sure.ok)));
    }
    Ok(text("none"))
}

#[tokio::test]
async fn an_if_let_binding_crosses_a_question() {
    let done = finish(
        FlowTester::tool(if_let_binding_after_a_question),
        &[yes(true)],
    )
    .await;
    assert_eq!(done, "42 true");
}

/// A body whose last statement returns, so the body itself never completes, with a question
/// before it in a loop. It compiles under `clippy -D warnings` with no allowance of its own.
#[tool]
async fn every_way_out_returns(cx: Cx) -> ToolResult {
    let mut tries = 0;
    loop {
        tries += 1;
        let sure: Yes = cx.elicit(format!("Try {tries}?")).await?;
        if sure.ok {
            return Ok(text(format!("yes on try {tries}")));
        }
        if tries == 3 {
            break;
        }
    }
    return Ok(text("never sure"));
}

#[tokio::test]
async fn a_body_that_only_returns_resumes_and_returns() {
    let tester = || FlowTester::tool(every_way_out_returns);
    let done = finish(tester(), &[yes(false), yes(true)]).await;
    assert_eq!(done, "yes on try 2");
    let done = finish(tester(), &[yes(false), yes(false), yes(false)]).await;
    assert_eq!(done, "never sure");
}

static LET_ELSE_RUNS: AtomicU32 = AtomicU32::new(0);

/// A question inside a `let ... else` block, which returns; the `let` binds on the other way.
#[tool]
async fn asks_in_let_else(cx: Cx) -> ToolResult {
    let given: Word = cx.elicit("A number?").await?;
    let Ok(number) = given.word.parse::<u32>() else {
        LET_ELSE_RUNS.fetch_add(1, Ordering::SeqCst);
        let retry: Yes = cx
            .elicit(format!("`{}` is no number; give up?", given.word))
            .await?;
        return Ok(text(if retry.ok { "gave up" } else { "kept going" }));
    };
    let sure: Yes = cx.elicit(format!("{number}?")).await?;
    Ok(text(format!("{number} {}", sure.ok)))
}

#[tokio::test]
async fn a_question_in_a_let_else_block_resumes_there() {
    let tester = || FlowTester::tool(asks_in_let_else);
    let done = finish(tester(), &[word("x"), yes(true)]).await;
    assert_eq!(done, "gave up");
    assert_eq!(
        LET_ELSE_RUNS.load(Ordering::SeqCst),
        1,
        "the else block ran once"
    );
    let done = finish(tester(), &[word("7"), yes(false)]).await;
    assert_eq!(done, "7 false");
}

/// A `let ... else` in a loop whose `else` asks, then `continue`s or `break`s.
#[tool]
async fn let_else_in_a_loop(cx: Cx) -> ToolResult {
    let mut found = Vec::new();
    for word in ["ab", "", "cd", ""] {
        let Some(first) = word.chars().next() else {
            let go_on: Yes = cx.elicit("An empty word; go on?").await?;
            if go_on.ok {
                continue;
            }
            break;
        };
        let keep: Yes = cx.elicit(format!("Keep {first}?")).await?;
        if keep.ok {
            found.push(first);
        }
    }
    Ok(text(found.into_iter().collect::<String>()))
}

#[tokio::test]
async fn a_let_else_block_that_asks_continues_or_breaks_its_loop() {
    let tester = || FlowTester::tool(let_else_in_a_loop);
    let done = finish(tester(), &[yes(true), yes(true), yes(true), yes(true)]).await;
    assert_eq!(done, "ac");
    let done = finish(tester(), &[yes(false), yes(false)]).await;
    assert_eq!(done, "");
}

/// Answers used at once through a field or a method: the `let` still names each question.
#[tool]
async fn answers_used_through_a_field(cx: Cx) -> ToolResult {
    let name = cx.elicit::<Word>("A name?").await?.word;
    let shout = cx.elicit::<Yes>(format!("Shout {name}?")).await?.ok;
    let length = cx.elicit::<Word>("Another?").await?.word.len() as u64;
    Ok(text(if shout {
        format!("{} {length}", name.to_uppercase())
    } else {
        format!("{name} {length}")
    }))
}

#[tokio::test]
async fn the_binding_an_answer_flows_into_names_its_question() {
    let answers = [word("ada"), yes(true), word("four")];
    let (keys, round) = run_keyed(FlowTester::tool(answers_used_through_a_field), &answers).await;
    assert_eq!(keys, ["name", "shout", "length"]);
    assert_eq!(round.text(), Some("ADA 4"));
}

/// A shadowed answer and two loops binding their answers under one name: each question is
/// asked under a key of its own, the later ones numbered apart.
#[tool]
async fn answers_under_one_name(cx: Cx) -> ToolResult {
    let answer: Yes = cx.elicit("First?").await?;
    let first = answer.ok;
    let answer: Yes = cx.elicit("Second?").await?;
    let mut kept = 0;
    for word in ["a", "b"] {
        let ok: Yes = cx.elicit(format!("Keep {word}?")).await?;
        kept += u32::from(ok.ok);
    }
    for word in ["c"] {
        let ok: Yes = cx.elicit(format!("And {word}?")).await?;
        kept += u32::from(ok.ok);
    }
    Ok(text(format!("{first} {} {kept}", answer.ok)))
}

#[tokio::test]
async fn a_binding_name_used_again_asks_under_a_numbered_key() {
    let answers = [yes(true), yes(false), yes(true), yes(true), yes(false)];
    let (keys, round) = run_keyed(FlowTester::tool(answers_under_one_name), &answers).await;
    assert_eq!(keys, ["answer", "answer_2", "ok", "ok", "ok_2"]);
    assert_eq!(round.text(), Some("true false 2"));
}

/// Questions whose answers no binding names: awaited as a statement, in a `while` condition
/// and in an `if` condition. Each is asked under its method's name, numbered apart.
#[tool]
async fn unnamed_questions(cx: Cx) -> ToolResult {
    cx.elicit::<Yes>("Ready?").await?;
    let mut count = 0;
    while cx.elicit::<Yes>(format!("More than {count}?")).await?.ok {
        count += 1;
    }
    if cx.elicit::<Yes>("Double?").await?.ok {
        count *= 2;
    }
    Ok(text(count.to_string()))
}

#[tokio::test]
async fn questions_no_binding_names_ask_under_their_method_s_name() {
    let answers = [yes(true), yes(true), yes(true), yes(false), yes(true)];
    let (keys, round) = run_keyed(FlowTester::tool(unnamed_questions), &answers).await;
    assert_eq!(
        keys,
        ["elicit", "elicit_2", "elicit_2", "elicit_2", "elicit_3"]
    );
    assert_eq!(round.text(), Some("4"));
}
