//! More ordinary Rust in handler bodies, each shape compiled by the macro and run round by
//! round through the server's own dispatch: loops left by `break` (with a value, through a
//! label), early returns, `?` on other errors, other futures awaited between questions,
//! accumulators, carried enums and tuples, `if let`/`else if` chains that ask, matched
//! refusals, deferred initialisation, raw identifiers, closures after the last question.

#![allow(clippy::needless_pass_by_value)]

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, HandlerError, Refusal, ToolResult, text, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Mode, Word, Yes, declined, finish, run, word, yes};

#[derive(Serialize, Deserialize, Debug)]
struct Pair(u32, String);

#[tool]
async fn while_counter(cx: Cx) -> ToolResult {
    let mut n: u32 = 0;
    while n < 3 {
        let a: Yes = cx.elicit("More?").await?;
        if !a.ok {
            break;
        }
        n += 1;
    }
    Ok(text(n.to_string()))
}

#[tool]
async fn loop_break_value(cx: Cx) -> ToolResult {
    let mut tries: u32 = 0;
    let got: u32 = loop {
        let a: Yes = cx.elicit("Done?").await?;
        tries += 1;
        if a.ok {
            break tries * 10;
        }
    };
    Ok(text(got.to_string()))
}

#[tool]
async fn labeled_break(cx: Cx) -> ToolResult {
    let mut seen: Vec<u32> = Vec::new();
    'outer: for i in 0..3u32 {
        for j in 0..2u32 {
            let a: Yes = cx.elicit(format!("{i}.{j}?")).await?;
            if !a.ok {
                break 'outer;
            }
            seen.push(i * 10 + j);
        }
    }
    Ok(text(format!("{seen:?}")))
}

#[tool]
async fn early_return(cx: Cx) -> ToolResult {
    let a: Yes = cx.elicit("Go?").await?;
    if !a.ok {
        return Ok(text("stopped"));
    }
    let w: Word = cx.elicit("Word?").await?;
    Ok(text(w.word))
}

#[tool]
async fn try_after_question(cx: Cx) -> ToolResult {
    let w: Word = cx.elicit("Number?").await?;
    let n: u32 = w
        .word
        .parse()
        .map_err(|e| HandlerError::from(format!("{e}")))?;
    let a: Yes = cx.elicit(format!("{n}?")).await?;
    Ok(text(format!("{n} {}", a.ok)))
}

#[tool]
async fn other_awaits(cx: Cx) -> ToolResult {
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    let a: Yes = cx.elicit("Go?").await?;
    let n: u32 = async { 5u32 }.await;
    tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    let b: Yes = cx.elicit("Again?").await?;
    Ok(text(format!("{} {n} {}", a.ok, b.ok)))
}

#[tool]
async fn accumulate(cx: Cx) -> ToolResult {
    let mut words: Vec<String> = Vec::new();
    let first: Word = cx.elicit("1?").await?;
    words.push(first.word);
    let second: Word = cx.elicit("2?").await?;
    words.push(second.word);
    let third: Word = cx.elicit("3?").await?;
    words.push(third.word);
    Ok(text(words.join(" ")))
}

#[tool]
async fn carried_enums(cx: Cx) -> ToolResult {
    let mode: Mode = Mode::Slow(3);
    let pair: Pair = Pair(1, "x".into());
    let maybe: Option<String> = None;
    let list: Vec<(String, u32)> = vec![("a".into(), 1)];
    let a: Yes = cx.elicit("Go?").await?;
    Ok(text(format!(
        "{mode:?} {pair:?} {maybe:?} {list:?} {}",
        a.ok
    )))
}

#[tool]
async fn if_let_else_branches(cx: Cx) -> ToolResult {
    let found: Option<u32> = Some(1);
    let out: String = if let Some(n) = found {
        let n: u32 = n;
        let w: Word = cx.elicit(format!("Word {n}?")).await?;
        w.word
    } else {
        let y: Yes = cx.elicit("Yes?").await?;
        y.ok.to_string()
    };
    Ok(text(out))
}

#[tool]
async fn nested_everything(cx: Cx) -> ToolResult {
    let picks: Vec<u32> = vec![1, 2];
    let mut out: Vec<String> = Vec::new();
    for p in picks {
        match p {
            1 => {
                let w: Word = cx.elicit("Word?").key("w1").await?;
                out.push(w.word);
            }
            _ => {
                if p > 1 {
                    let w: Word = cx.elicit("Other?").key("w2").await?;
                    out.push(w.word.to_uppercase());
                }
            }
        }
    }
    Ok(text(out.join(",")))
}

#[tool]
async fn args_after(args: Args, cx: Cx) -> ToolResult {
    let a: Yes = cx.elicit("Go?").await?;
    let n = args.items.len() as u32 + args.start;
    Ok(text(format!("{n} {}", a.ok)))
}

#[tool]
async fn slice_after(cx: Cx) -> ToolResult {
    let w: Word = cx.elicit("Word?").await?;
    let first: String = w.word[..1].to_owned();
    let a: Yes = cx.elicit(format!("{first}?")).await?;
    Ok(text(format!("{} {}", w.word, a.ok)))
}

#[tool]
async fn drop_carried(cx: Cx) -> ToolResult {
    let big: Vec<u8> = vec![0; 4];
    let a: Yes = cx.elicit("Go?").await?;
    drop(big);
    Ok(text(a.ok.to_string()))
}

#[tool]
async fn batch_of_three(cx: Cx) -> ToolResult {
    let (a, b, c) = (cx.elicit("A?"), cx.elicit("B?"), cx.elicit("C?")).await;
    let (a, b, c): (Yes, Word, Yes) = (a?, b?, c?);
    let d: Yes = cx.elicit("D?").await?;
    Ok(text(format!("{} {} {} {}", a.ok, b.word, c.ok, d.ok)))
}

#[tool]
async fn refusal_matched(cx: Cx) -> ToolResult {
    let answer: Result<Word, Refusal> = cx.elicit("Word?").await;
    let shown: String = match answer {
        Ok(w) => w.word,
        Err(Refusal::Declined) => "declined".into(),
        Err(other) => format!("{other}"),
    };
    let a: Yes = cx.elicit("Ok?").await?;
    Ok(text(format!("{shown} {}", a.ok)))
}

#[tool]
#[allow(
    clippy::needless_late_init,
    reason = "the late initialisation is the shape under test"
)]
async fn deferred_init(cx: Cx) -> ToolResult {
    let x: u32;
    if "a".len() == 1 {
        x = 1;
    } else {
        x = 2;
    }
    let a: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{x} {}", a.ok)))
}

#[tool]
async fn raw_ident(cx: Cx) -> ToolResult {
    let r#type: String = "kind".into();
    let a: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{} {}", r#type, a.ok)))
}

#[tool]
async fn closure_after(cx: Cx) -> ToolResult {
    let a: Word = cx.elicit("Word?").await?;
    let b: Word = cx.elicit("Another?").await?;
    let shout = |s: &str| s.to_uppercase();
    Ok(text(format!("{} {}", shout(&a.word), b.word)))
}

#[tool]
async fn err_return(cx: Cx) -> ToolResult {
    let a: Yes = cx.elicit("Fail?").await?;
    if a.ok {
        return Err(HandlerError::from("asked to fail"));
    }
    Ok(text("fine"))
}

#[tool]
async fn match_on_answer_field(cx: Cx) -> ToolResult {
    let w: Word = cx.elicit("Which?").await?;
    let out: String = match w.word.as_str() {
        "a" => {
            let y: Yes = cx.elicit("A?").key("ya").await?;
            format!("a{}", y.ok)
        }
        "b" => {
            let y: Yes = cx.elicit("B?").key("yb").await?;
            format!("b{}", y.ok)
        }
        other => other.to_owned(),
    };
    Ok(text(out))
}

#[tool]
async fn iterate_args(args: Args, cx: Cx) -> ToolResult {
    let items: Vec<String> = args.items;
    let mut kept: Vec<String> = Vec::new();
    for item in items {
        let y: Yes = cx.elicit(format!("Keep {item}?")).await?;
        if y.ok {
            kept.push(item);
        }
    }
    Ok(text(kept.join(",")))
}

#[tool]
async fn unit_block_value(cx: Cx) -> ToolResult {
    let a: Yes = cx.elicit("Go?").await?;
    let () = {};
    let _ = a.ok;
    Ok(text("x"))
}

#[tool]
async fn tuple_local(cx: Cx) -> ToolResult {
    let (n, s): (u32, String) = (1, "x".into());
    let a: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{n}{s}{}", a.ok)))
}

#[tool]
async fn question_in_else_if(cx: Cx) -> ToolResult {
    let n: u32 = 3;
    let out: String = if n == 1 {
        "one".into()
    } else if n == 3 {
        let w: Word = cx.elicit("W?").await?;
        w.word
    } else {
        "other".into()
    };
    Ok(text(out))
}

#[tokio::test]
async fn a_while_loop_asks_until_its_condition_or_a_break() {
    let all = finish(
        FlowTester::tool(while_counter),
        &[yes(true), yes(true), yes(true)],
    )
    .await;
    assert_eq!(all, "3");
    let broke = finish(FlowTester::tool(while_counter), &[yes(true), yes(false)]).await;
    assert_eq!(broke, "1");
}

#[tokio::test]
async fn a_loop_breaks_with_a_value_after_questions() {
    let done = finish(FlowTester::tool(loop_break_value), &[yes(false), yes(true)]).await;
    assert_eq!(done, "20");
}

#[tokio::test]
async fn a_labeled_break_leaves_both_loops() {
    let answers = [yes(true), yes(true), yes(false)];
    let done = finish(FlowTester::tool(labeled_break), &answers).await;
    assert_eq!(done, "[0, 1]");
}

#[tokio::test]
async fn an_early_return_after_a_question_ends_the_flow() {
    let stopped = finish(FlowTester::tool(early_return), &[yes(false)]).await;
    assert_eq!(stopped, "stopped");
    let went_on = finish(FlowTester::tool(early_return), &[yes(true), word("on")]).await;
    assert_eq!(went_on, "on");
}

#[tokio::test]
async fn the_try_operator_on_another_error_after_a_question() {
    let done = finish(
        FlowTester::tool(try_after_question),
        &[word("7"), yes(true)],
    )
    .await;
    assert_eq!(done, "7 true");
    let failed = run(FlowTester::tool(try_after_question), &[word("seven")]).await;
    let result = failed.result().expect("a tool result");
    assert_eq!(result["isError"], true, "{failed}");
}

#[tokio::test]
async fn other_futures_are_awaited_between_questions() {
    let done = finish(FlowTester::tool(other_awaits), &[yes(true), yes(false)]).await;
    assert_eq!(done, "true 5 false");
}

#[tokio::test]
async fn an_accumulator_travels_through_three_questions() {
    let done = finish(
        FlowTester::tool(accumulate),
        &[word("a"), word("b"), word("c")],
    )
    .await;
    assert_eq!(done, "a b c");
}

#[tokio::test]
async fn enums_tuples_options_and_lists_are_carried() {
    let done = finish(FlowTester::tool(carried_enums), &[yes(true)]).await;
    assert_eq!(done, r#"Slow(3) Pair(1, "x") None [("a", 1)] true"#);
}

#[tokio::test]
async fn both_sides_of_an_if_let_ask() {
    let done = finish(FlowTester::tool(if_let_else_branches), &[word("w")]).await;
    assert_eq!(done, "w");
}

#[tokio::test]
async fn questions_in_blocks_in_arms_in_a_loop() {
    let round = FlowTester::tool(nested_everything).start().await;
    assert_eq!(round.questions(), ["w1"], "{round}");
    let round = round.answer(json!({"w1": word("x")})).await;
    assert_eq!(round.questions(), ["w2"], "{round}");
    let done = round.answer(json!({"w2": word("y")})).await;
    assert_eq!(done.text(), Some("x,Y"), "{done}");
}

#[tokio::test]
async fn arguments_are_read_after_a_question() {
    let tester = FlowTester::tool(args_after).arguments(json!({"items": ["a", "b"], "start": 1}));
    assert_eq!(finish(tester, &[yes(true)]).await, "3 true");
}

#[tokio::test]
async fn an_owned_slice_of_an_answer_is_used_by_the_next_question() {
    let round = FlowTester::tool(slice_after).start().await;
    let round = round.answer(json!({"w": word("hello")})).await;
    let requests = serde_json::to_value(round.requests().expect("a question")).unwrap();
    assert_eq!(requests["a"]["params"]["message"], "h?", "{round}");
    let done = round.answer(json!({"a": yes(true)})).await;
    assert_eq!(done.text(), Some("hello true"), "{done}");
}

#[tokio::test]
async fn a_carried_local_can_be_dropped_after_a_question() {
    assert_eq!(
        finish(FlowTester::tool(drop_carried), &[yes(true)]).await,
        "true"
    );
}

#[tokio::test]
async fn three_questions_asked_together_then_one_more() {
    let round = FlowTester::tool(batch_of_three).start().await;
    let mut asked = round.questions();
    asked.sort_unstable();
    assert_eq!(asked, ["a", "b", "c"], "{round}");
    let round = round
        .answer(json!({"a": yes(true), "b": word("w"), "c": yes(false)}))
        .await;
    assert_eq!(round.questions(), ["d"], "{round}");
    let done = round.answer(json!({"d": yes(true)})).await;
    assert_eq!(done.text(), Some("true w false true"), "{done}");
}

#[tokio::test]
async fn a_refusal_is_matched_and_the_flow_goes_on() {
    let done = finish(FlowTester::tool(refusal_matched), &[declined(), yes(true)]).await;
    assert_eq!(done, "declined true");
}

#[tokio::test]
async fn a_local_initialised_later_is_carried() {
    assert_eq!(
        finish(FlowTester::tool(deferred_init), &[yes(true)]).await,
        "1 true"
    );
}

#[tokio::test]
async fn a_raw_identifier_is_carried() {
    assert_eq!(
        finish(FlowTester::tool(raw_ident), &[yes(true)]).await,
        "kind true"
    );
}

#[tokio::test]
async fn a_closure_defined_after_the_last_question() {
    let done = finish(FlowTester::tool(closure_after), &[word("ab"), word("cd")]).await;
    assert_eq!(done, "AB cd");
}

#[tokio::test]
async fn an_error_returned_after_a_question() {
    let failed = run(FlowTester::tool(err_return), &[yes(true)]).await;
    let result = failed.result().expect("a tool result");
    assert_eq!(result["isError"], true, "{failed}");
    assert_eq!(
        finish(FlowTester::tool(err_return), &[yes(false)]).await,
        "fine"
    );
}

#[tokio::test]
async fn a_match_on_an_answer_asks_in_the_arm_taken() {
    let round = FlowTester::tool(match_on_answer_field).start().await;
    let round = round.answer(json!({"w": word("b")})).await;
    assert_eq!(round.questions(), ["yb"], "{round}");
    let done = round.answer(json!({"yb": yes(true)})).await;
    assert_eq!(done.text(), Some("btrue"), "{done}");
    let other = finish(FlowTester::tool(match_on_answer_field), &[word("z")]).await;
    assert_eq!(other, "z");
}

#[tokio::test]
async fn a_loop_over_the_arguments_asks_per_item() {
    let tester =
        FlowTester::tool(iterate_args).arguments(json!({"items": ["p", "q", "r"], "start": 0}));
    let done = finish(tester, &[yes(true), yes(false), yes(true)]).await;
    assert_eq!(done, "p,r");
}

#[tokio::test]
async fn a_unit_pattern_after_a_question() {
    assert_eq!(
        finish(FlowTester::tool(unit_block_value), &[yes(true)]).await,
        "x"
    );
}

#[tokio::test]
async fn a_tuple_of_locals_is_carried() {
    assert_eq!(
        finish(FlowTester::tool(tuple_local), &[yes(true)]).await,
        "1xtrue"
    );
}

#[tokio::test]
async fn a_question_in_an_else_if_branch() {
    assert_eq!(
        finish(FlowTester::tool(question_in_else_if), &[word("w")]).await,
        "w"
    );
}

/// How often each stretch of `straight_line_runs_once`'s body ran: before the first question,
/// between the first and second, between the second and third, after the third.
static STRETCHES: std::sync::Mutex<[u32; 4]> = std::sync::Mutex::new([0; 4]);

fn ran(stretch: usize) {
    STRETCHES.lock().unwrap()[stretch] += 1;
}

/// Three questions in the body's own statements, with shadowing, a `mut` local changed on
/// both sides of a question, a stretch that carries nothing, and an item declared after the
/// question that uses it.
#[tool]
async fn straight_line_runs_once(cx: Cx) -> ToolResult {
    ran(0);
    let mut total: u32 = start();
    let label: u32 = 7;
    let first: Yes = cx.elicit("First?").await?;
    ran(1);
    total += u32::from(first.ok);
    let label: String = format!("#{label}");
    let second: Word = cx.elicit(format!("Second for {label}?")).await?;
    ran(2);
    let unused_later: u32 = 99;
    assert_eq!(unused_later, 99);
    let third: Yes = cx.elicit("Third?").await?;
    ran(3);
    total += u32::from(third.ok);
    fn start() -> u32 {
        10
    }
    Ok(text(format!("{label} {} {total}", second.word)))
}

#[tokio::test]
async fn each_stretch_of_a_straight_line_flow_runs_once() {
    // The second answer is first given without its field: the question is asked again,
    // and nothing before it runs again.
    let incomplete = json!({"action": "accept", "content": {}});
    let done = finish(
        FlowTester::tool(straight_line_runs_once),
        &[yes(true), incomplete, word("w"), yes(true)],
    )
    .await;
    assert_eq!(done, "#7 w 12");
    assert_eq!(*STRETCHES.lock().unwrap(), [1, 1, 1, 1]);
}
