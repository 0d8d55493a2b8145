//! Locals declared without a value (`let label;`) and assigned later, on either side of a
//! question: a plain `async fn` accepts each of these, and so does the macro. A local that may
//! still have no value at a question is not carried; one that has it on every way there is.

#![allow(
    clippy::needless_late_init,
    reason = "late initialisation, which clippy sees in the bodies as written, is what these test"
)]

use std::sync::atomic::{AtomicU32, Ordering};

use mcp_runtime::{Cx, ToolResult, text, tool};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

/// Assigned on both sides of an `if`, one of which asks first.
#[tool]
async fn assigned_in_both_branches(args: Args, cx: Cx) -> ToolResult {
    let label: String;
    if args.start > 2 {
        let sure: Yes = cx.elicit("Big?").await?;
        label = if sure.ok { "big" } else { "small" }.to_owned();
    } else {
        label = "tiny".to_owned();
    }
    Ok(text(label))
}

#[tokio::test]
async fn a_local_assigned_in_both_branches_is_read_after_a_question_in_one() {
    let big = answered(assigned_in_both_branches, args(5, &[]), &[yes(true)]).await;
    assert_eq!(big, "big");
    let small = answered(assigned_in_both_branches, args(5, &[]), &[yes(false)]).await;
    assert_eq!(small, "small");
    let tiny = answered(assigned_in_both_branches, args(1, &[]), &[]).await;
    assert_eq!(tiny, "tiny");
}

static BETWEEN_RUNS: AtomicU32 = AtomicU32::new(0);

/// Declared before the first question, assigned between the two, read after the second.
#[tool]
async fn assigned_between_questions(args: Args, cx: Cx) -> ToolResult {
    let total;
    let double: Yes = cx.elicit("Double?").await?;
    BETWEEN_RUNS.fetch_add(1, Ordering::SeqCst);
    total = if double.ok {
        args.start * 2
    } else {
        args.start
    };
    let sure: Yes = cx.elicit(format!("Keep {total}?")).await?;
    Ok(text(format!("{total} {}", sure.ok)))
}

#[tokio::test]
async fn a_local_assigned_between_two_questions_travels_from_the_second() {
    let done = answered(
        assigned_between_questions,
        args(4, &[]),
        &[yes(true), yes(false)],
    )
    .await;
    assert_eq!(done, "8 false");
    assert_eq!(
        BETWEEN_RUNS.load(Ordering::SeqCst),
        1,
        "the assignment ran once"
    );
}

/// Assigned inside a `loop` that asks until it has an answer, and left only by the `break`
/// after the assignment.
#[tool]
async fn assigned_before_a_break(cx: Cx) -> ToolResult {
    let picked;
    let mut asked = 0;
    loop {
        asked += 1;
        let name: Word = cx.elicit("A name?").await?;
        if !name.word.is_empty() {
            picked = name.word;
            break;
        }
    }
    let sure: Yes = cx.elicit(format!("{picked}?")).await?;
    Ok(text(format!("{picked} after {asked} {}", sure.ok)))
}

#[tokio::test]
async fn a_local_assigned_before_a_loop_s_break_is_read_after_the_loop() {
    let done = answered(
        assigned_before_a_break,
        serde_json::json!({}),
        &[word(""), word(""), word("ada"), yes(true)],
    )
    .await;
    assert_eq!(done, "ada after 3 true");
}

/// Assigned before the `break` of a loop that asks twice a round: the two questions are
/// resumed together, and what the `break` assigns is had after the loop.
#[tool]
async fn assigned_before_a_break_of_two_questions(cx: Cx) -> ToolResult {
    let picked;
    let mut rounds = 0;
    'ask: loop {
        rounds += 1;
        let name: Word = cx.elicit("A name?").await?;
        let sure: Yes = cx.elicit(format!("{}?", name.word)).await?;
        if sure.ok {
            picked = name.word;
            break 'ask;
        }
    }
    let keep: Yes = cx.elicit(format!("Keep {picked}?")).await?;
    Ok(text(format!("{picked} after {rounds} {}", keep.ok)))
}

#[tokio::test]
async fn a_local_assigned_before_the_break_of_a_loop_of_two_questions_is_read_after_it() {
    let done = answered(
        assigned_before_a_break_of_two_questions,
        serde_json::json!({}),
        &[word("ada"), yes(false), word("grace"), yes(true), yes(true)],
    )
    .await;
    assert_eq!(done, "grace after 2 true");
}

/// Assigned in each `match` arm that goes on; one arm asks, one returns.
#[tool]
async fn assigned_in_match_arms(args: Args, cx: Cx) -> ToolResult {
    let mode: u32;
    match args.start {
        0 => mode = 0,
        1 => {
            let sure: Yes = cx.elicit("One?").await?;
            mode = u32::from(sure.ok) + 10;
        }
        _ => return Ok(text("many")),
    }
    let again: Yes = cx.elicit(format!("Mode {mode}?")).await?;
    Ok(text(format!("{mode} {}", again.ok)))
}

#[tokio::test]
async fn a_local_assigned_in_match_arms_travels_past_a_later_question() {
    let done = answered(
        assigned_in_match_arms,
        args(1, &[]),
        &[yes(true), yes(false)],
    )
    .await;
    assert_eq!(done, "11 false");
    let done = answered(assigned_in_match_arms, args(0, &[]), &[yes(true)]).await;
    assert_eq!(done, "0 true");
    let done = answered(assigned_in_match_arms, args(7, &[]), &[]).await;
    assert_eq!(done, "many");
}

/// Assigned in a labelled block that a `for` loop of questions may leave early.
#[tool]
async fn assigned_in_a_labelled_block(args: Args, cx: Cx) -> ToolResult {
    let chosen;
    'found: {
        for item in args.items {
            let take: Yes = cx.elicit(format!("Take {item}?")).await?;
            if take.ok {
                chosen = item;
                break 'found;
            }
        }
        chosen = "nothing".to_owned();
    }
    let sure: Yes = cx.elicit(format!("Sure about {chosen}?")).await?;
    Ok(text(format!("{chosen} {}", sure.ok)))
}

#[tokio::test]
async fn a_local_assigned_on_every_way_out_of_a_labelled_block_travels_on() {
    let items = args(0, &["a", "b", "c"]);
    let done = answered(
        assigned_in_a_labelled_block,
        items.clone(),
        &[yes(false), yes(true), yes(true)],
    )
    .await;
    assert_eq!(done, "b true");
    let done = answered(
        assigned_in_a_labelled_block,
        items,
        &[yes(false), yes(false), yes(false), yes(false)],
    )
    .await;
    assert_eq!(done, "nothing false");
}
