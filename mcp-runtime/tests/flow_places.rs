//! Questions whose answers go straight into a place or a value rather than a `let`: assigned
//! (`total += ask(..).await?`, `stats.asked = ..`, `counts[0] |= ..`), passed first to a call
//! or to a method of a place (`Some(..)`, `names.push(..)`), first in a tuple or a struct
//! literal, or on the right of an operator whose left only reads (`base + ..`, `n > 3 &&
//! ..`). Nothing of the statement runs before the question, so the flow resumes at the
//! question with the place restored, and the rest of the statement runs once, with the answer.
//! An operand before the question that runs code (`greet(greeting(), ..)`, or the receiver
//! of a method the question is an argument of) runs once, before it, and its value travels
//! across it.

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};
use serde::{Deserialize, Serialize};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, run_keyed, word, yes};

/// A sub-flow that asks for a word and gives its length.
#[elicit]
async fn length(cx: &Cx, what: String) -> Result<u32, Refusal> {
    let answer: Word = cx.elicit(what).await?;
    Ok(u32::try_from(answer.word.len()).unwrap_or(u32::MAX))
}

/// A compound assignment of a sub-flow's result, in a `for` loop.
#[tool]
async fn summed(args: Args, cx: Cx) -> ToolResult {
    let mut total = args.start;
    for item in &args.items {
        total += length(&cx, format!("A word for {item}?")).await?;
    }
    Ok(text(total.to_string()))
}

#[tokio::test]
async fn a_compound_assignment_of_a_sub_flow_adds_each_answer_once() {
    let tester = FlowTester::tool(summed).arguments(args(100, &["a", "b", "c"]));
    let (keys, round) = run_keyed(tester, &[word("xy"), word("abcd"), word("z")]).await;
    assert_eq!(round.text(), Some("107"));
    assert_eq!(keys, ["total.answer", "total.answer", "total.answer"]);
}

/// Counters a flow keeps in a struct of its own.
#[derive(Serialize, Deserialize, Default)]
struct Tally {
    asked: u32,
    yes: u32,
    last: bool,
}

/// Answers assigned to fields, to an element and through compound operators, with code
/// between the questions that must run once.
#[tool]
async fn into_fields(args: Args, cx: Cx) -> ToolResult {
    let mut tally = Tally::default();
    let mut flags = [0u32; 2];
    let mut runs = 0;
    while tally.asked < args.start {
        runs += 1;
        tally.asked += 1;
        tally.last = cx
            .elicit::<Yes>(format!("Question {}?", tally.asked))
            .await?
            .ok;
        tally.yes += u32::from(tally.last);
        flags[1] |= cx.elicit::<Yes>("Flag?").await?.ok as u32;
        flags[0] = flags[0].max(tally.yes);
    }
    Ok(text(format!(
        "{}/{} last {} flags {flags:?} runs {runs}",
        tally.yes, tally.asked, tally.last
    )))
}

#[tokio::test]
async fn answers_assigned_to_fields_and_elements_resume_at_their_questions() {
    let tester = FlowTester::tool(into_fields).arguments(args(2, &[]));
    let answers = [yes(true), yes(false), yes(false), yes(true)];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(round.text(), Some("1/2 last false flags [1, 1] runs 2"));
    assert_eq!(keys, ["last", "flags", "last", "flags"]);
    let done = answered(into_fields, args(0, &[]), &[]).await;
    assert_eq!(done, "0/0 last false flags [0, 0] runs 0");
}

/// What a flow keeps of each item.
#[derive(Serialize, Deserialize)]
struct Entry {
    size: usize,
    item: String,
}

/// Answers passed first to a method of a local, to a call, and first in a struct literal and
/// a tuple.
#[tool]
async fn gathered(args: Args, cx: Cx) -> ToolResult {
    let mut names = Vec::new();
    let mut entries = Vec::new();
    for item in &args.items {
        names.push(cx.elicit::<Word>(format!("A name for {item}?")).await?.word);
        entries.push(Entry {
            size: cx.elicit::<Word>("A size?").await?.word.len(),
            item: item.clone(),
        });
    }
    let extra = if args.start > 0 {
        Some(cx.elicit::<Yes>("Extra?").await?.ok)
    } else {
        None
    };
    let (last, count) = (cx.elicit::<Word>("Last?").await?.word, names.len());
    let sizes: Vec<String> = entries
        .iter()
        .map(|entry| format!("{}:{}", entry.item, entry.size))
        .collect();
    Ok(text(format!(
        "{names:?} {sizes:?} {extra:?} {last} {count}"
    )))
}

#[tokio::test]
async fn answers_passed_first_to_calls_and_literals_resume_at_their_questions() {
    let tester = FlowTester::tool(gathered).arguments(args(1, &["a", "b"]));
    let answers = [
        word("x"),
        word("long"),
        word("y"),
        word("ab"),
        yes(true),
        word("end"),
    ];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(
        round.text(),
        Some(r#"["x", "y"] ["a:4", "b:2"] Some(true) end 2"#)
    );
    assert_eq!(
        keys,
        ["names", "size", "names", "size", "elicit", "elicit_2"]
    );
    let done = answered(gathered, args(0, &[]), &[word("z")]).await;
    assert_eq!(done, "[] [] None z 0");
}

/// Questions on the right of operators: one that takes its left by value (a `String`'s `+`),
/// arithmetic, a comparison, and `&&`, which asks only when its left holds.
#[tool]
async fn operators(args: Args, cx: Cx) -> ToolResult {
    let prefix = args.items.concat();
    let base = args.start;
    let mut runs = 0;
    runs += 1;
    let named = prefix + &cx.elicit::<Word>("A word?").await?.word;
    runs += 1;
    let total = base * 2 + u32::try_from(cx.elicit::<Word>("Another?").await?.word.len())?;
    let same = total == u32::try_from(cx.elicit::<Word>("Guess?").await?.word.len())?;
    let more = total > 3 && cx.elicit::<Yes>("More?").await?.ok;
    Ok(text(format!("{named} {total} {same} {more} runs {runs}")))
}

#[tokio::test]
async fn questions_on_the_right_of_operators_resume_with_the_left_read_again() {
    let tester = FlowTester::tool(operators).arguments(args(1, &["a", "b"]));
    let answers = [word("cd"), word("xyz"), word("12345"), yes(true)];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(round.text(), Some("abcd 5 true true runs 2"));
    assert_eq!(keys, ["named", "total", "same", "more"]);
    // `&&` does not ask when its left is false.
    let tester = FlowTester::tool(operators).arguments(args(0, &[]));
    let (keys, round) = run_keyed(tester, &[word(""), word("ab"), word("")]).await;
    assert_eq!(round.text(), Some(" 2 false false runs 2"));
    assert_eq!(keys, ["named", "total", "same"]);
}

/// Questions passed to what takes a local by value (`Option::unwrap_or`) or borrows it
/// exclusively (a `String`'s `+=`): the local is moved or borrowed only after the question.
#[tool]
async fn taken_after(args: Args, cx: Cx) -> ToolResult {
    let fallback = args.items.first().cloned();
    let chosen = fallback.unwrap_or(cx.elicit::<Word>("A word?").await?.word);
    let mut line = chosen.clone();
    line += &cx.elicit::<Word>("More?").await?.word;
    Ok(text(format!("{chosen} {line}")))
}

#[tokio::test]
async fn a_local_taken_by_value_after_a_question_is_carried_to_it() {
    let done = answered(taken_after, args(0, &["a"]), &[word("x"), word("y")]).await;
    assert_eq!(done, "a ay");
    let done = answered(taken_after, args(0, &[]), &[word("x"), word("y")]).await;
    assert_eq!(done, "x xy");
}

/// Questions in the collection a `for` loop iterates: of a loop that asks nothing, and of one
/// that asks in its body (which then iterates a local holding the collection).
#[tool]
async fn iterated(cx: Cx) -> ToolResult {
    let mut upper = 0;
    for c in cx.elicit::<Word>("A word?").await?.word.chars() {
        if c.is_uppercase() {
            upper += 1;
        }
    }
    let mut kept = Vec::new();
    for word in cx
        .elicit::<Word>("Some words?")
        .await?
        .word
        .split(',')
        .map(str::to_owned)
        .collect::<Vec<_>>()
    {
        if cx.elicit::<Yes>(format!("Keep {word}?")).await?.ok {
            kept.push(word);
        }
    }
    Ok(text(format!("{upper} {kept:?}")))
}

#[tokio::test]
async fn a_question_in_what_a_for_loop_iterates_is_asked_once() {
    let tester = FlowTester::tool(iterated);
    let answers = [word("AbC"), word("x,y,z"), yes(true), yes(false), yes(true)];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(round.text(), Some(r#"2 ["x", "z"]"#));
    assert_eq!(
        keys,
        ["elicit", "elicit_2", "elicit_3", "elicit_3", "elicit_3"]
    );
}

/// Questions after arguments or elements that only read: a local moved into the call after
/// the question, a tuple whose first element is a local, and two questions in one call, asked
/// in the order written.
#[tool]
async fn after_readers(args: Args, cx: Cx) -> ToolResult {
    let mut lengths = std::collections::BTreeMap::new();
    let mut seen = Vec::new();
    for item in &args.items {
        let name = item.to_uppercase();
        lengths.insert(
            name,
            cx.elicit::<Word>(format!("{item}?")).await?.word.len(),
        );
        let label = item.clone();
        seen.push((label, cx.elicit::<Yes>("Seen?").await?.ok));
    }
    let limit = args.start;
    let most = std::cmp::max(limit, u32::try_from(lengths.len())?);
    let joined = join(
        cx.elicit::<Word>("First?").await?.word,
        cx.elicit::<Word>("Second?").await?.word,
    );
    Ok(text(format!("{lengths:?} {seen:?} {most} {joined}")))
}

fn join(first: String, second: String) -> String {
    format!("{first}+{second}")
}

#[tokio::test]
async fn questions_after_operands_that_only_read_are_asked_in_order() {
    let tester = FlowTester::tool(after_readers).arguments(args(1, &["a", "b"]));
    let answers = [
        word("xyz"),
        yes(true),
        word("w"),
        yes(false),
        word("one"),
        word("two"),
    ];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(
        round.text(),
        Some(r#"{"A": 3, "B": 1} [("a", true), ("b", false)] 2 one+two"#)
    );
    assert_eq!(
        keys,
        ["lengths", "seen", "lengths", "seen", "joined", "elicit"]
    );
}

static STAMPS: AtomicU32 = AtomicU32::new(0);

/// What a flow notes of a choice.
#[derive(Debug, Serialize, Deserialize)]
struct Note {
    label: String,
    sure: bool,
    count: u32,
}

/// A number that says how often it was asked for.
fn stamp() -> u32 {
    STAMPS.fetch_add(1, Ordering::SeqCst) + 1
}

/// Operands that run code before a question: an argument, an element in a loop, a field, the
/// left of `+` and of `||`.
#[tool]
async fn code_first(args: Args, cx: Cx) -> ToolResult {
    let line = join(stamp().to_string(), cx.elicit::<Word>("First?").await?.word);
    let mut picks = Vec::new();
    for item in &args.items {
        picks = vec![
            item.clone(),
            cx.elicit::<Word>(format!("Why {item}?")).await?.word,
        ];
    }
    let entry = Note {
        label: format!("#{}", stamp()),
        sure: cx.elicit::<Yes>("Sure?").await?.ok,
        count: args.start,
    };
    let joined = args.items.join(",") + &cx.elicit::<Word>("More?").await?.word;
    let asked = args.items.is_empty() || cx.elicit::<Yes>("Really?").await?.ok;
    Ok(text(format!("{line} {picks:?} {entry:?} {joined} {asked}")))
}

#[tokio::test]
async fn operands_that_run_code_before_a_question_run_once_and_travel() {
    STAMPS.store(0, Ordering::SeqCst);
    let tester = FlowTester::tool(code_first).arguments(args(4, &["a", "b"]));
    let answers = [
        word("x"),
        word("p"),
        word("q"),
        yes(true),
        word("z"),
        yes(false),
    ];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(
        round.text(),
        Some("1+x [\"b\", \"q\"] Note { label: \"#2\", sure: true, count: 4 } a,bz false")
    );
    assert_eq!(STAMPS.load(Ordering::SeqCst), 2, "each operand ran once");
    assert_eq!(keys, ["line", "picks", "picks", "sure", "joined", "asked"]);
    let done = answered(code_first, args(0, &[]), &[word("x"), yes(false), word("")]).await;
    assert_eq!(
        done,
        "3+x [] Note { label: \"#4\", sure: false, count: 0 }  true"
    );
}

static GREETINGS: AtomicU32 = AtomicU32::new(0);

/// The receiver of a method a question is an argument of: a value a call makes, and a borrow
/// of an argument, which is taken again where the flow resumes.
#[tool]
async fn receivers(args: Args, cx: Cx) -> ToolResult {
    let count = GREETINGS.fetch_add(1, Ordering::SeqCst) + 1;
    let shout =
        format!("HELLO #{count}").replace("HELLO", &cx.elicit::<Word>("Greeting?").await?.word);
    let first = args.items[0]
        .trim()
        .replace('x', &cx.elicit::<Word>("Instead of x?").await?.word);
    Ok(text(format!("{shout} {first}")))
}

#[tokio::test]
async fn the_receiver_of_a_method_runs_before_its_question_once() {
    GREETINGS.store(0, Ordering::SeqCst);
    let tester = FlowTester::tool(receivers).arguments(args(0, &[" axa "]));
    let (keys, round) = run_keyed(tester, &[word("hi"), word("y")]).await;
    assert_eq!(round.text(), Some("hi #1 aya"));
    assert_eq!(keys, ["shout", "first"]);
    assert_eq!(
        GREETINGS.load(Ordering::SeqCst),
        1,
        "the code before the questions ran once"
    );
}
