//! Parameters bound `mut`: what a handler changes in its arguments before a question is what
//! it reads after, though the request gives the arguments again each round, and a sub-flow's
//! `mut` argument changes as a local does. Each flow runs round by round through the server's
//! own dispatch.

use mcp_runtime::{Cx, Refusal, ToolResult, elicit, text, tool};
use serde::{Deserialize, Serialize};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, word, yes};

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct Items {
    items: Vec<String>,
}

#[tool]
async fn sort_then_ask(mut args: Items, cx: Cx) -> ToolResult {
    args.items.sort();
    let sure: Yes = cx.elicit(format!("Keep {}?", args.items.join(","))).await?;
    if !sure.ok {
        args.items.clear();
    }
    let last: Word = cx.elicit("Add?").await?;
    args.items.push(last.word);
    Ok(text(args.items.join(",")))
}

#[tokio::test]
async fn a_mutable_arguments_struct_keeps_its_changes_across_questions() {
    let arguments = json!({"items": ["b", "c", "a"]});
    let done = answered(sort_then_ask, arguments.clone(), &[yes(true), word("d")]).await;
    assert_eq!(done, "a,b,c,d");
    let done = answered(sort_then_ask, arguments, &[yes(false), word("d")]).await;
    assert_eq!(done, "d");
}

#[tool]
async fn destructured(Args { mut items, start }: Args, cx: Cx) -> ToolResult {
    items.retain(|item| !item.is_empty());
    let mut count = start;
    for item in &items {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        count += u32::from(keep.ok);
    }
    items.push(count.to_string());
    let last: Word = cx.elicit("Last?").await?;
    Ok(text(format!("{} {}", items.join(","), last.word)))
}

#[tokio::test]
async fn a_mutable_binding_in_a_destructured_argument_keeps_its_changes() {
    let answers = [yes(true), yes(false), word("w")];
    let done = answered(destructured, args(5, &["a", "", "b"]), &answers).await;
    assert_eq!(done, "a,b,6 w");
}

/// Asks `question` with a mark added, then again with the answer appended.
#[elicit]
async fn ask_marked(cx: &Cx, mut question: String) -> Result<String, Refusal> {
    question.push('?');
    let first: Word = cx.elicit(question.clone()).await?;
    question.push_str(&first.word);
    let again: Word = cx.elicit(format!("{question}!")).await?;
    question.push_str(&again.word);
    Ok(question)
}

#[tool]
async fn marked(cx: Cx) -> ToolResult {
    let first = ask_marked(&cx, "tea".to_owned()).await?;
    let second = ask_marked(&cx, "milk".to_owned()).await?;
    Ok(text(format!("{first} {second}")))
}

#[tokio::test]
async fn a_sub_flows_mutable_argument_keeps_its_changes() {
    let answers = [word("a"), word("b"), word("c"), word("d")];
    let done = answered(marked, json!({}), &answers).await;
    assert_eq!(done, "tea?ab milk?cd");
}

/// Asks about `q`, marked, then trimmed and hidden by what it becomes.
#[elicit]
async fn ask_hidden(cx: &Cx, mut q: String, n: u32) -> Result<String, Refusal> {
    q.push('?');
    let q = q.trim();
    let first: Word = cx.elicit(format!("{q}{n}")).await?;
    let q = format!("{q}{}", first.word);
    let again: Word = cx.elicit(q.clone()).await?;
    Ok(format!("{q}{}", again.word))
}

#[derive(Serialize, Deserialize, schemars::JsonSchema)]
struct Start {
    start: u32,
}

#[tool]
async fn bumped(mut args: Start, cx: Cx) -> ToolResult {
    let asked = ask_hidden(&cx, " t ".to_owned(), args.start).await?;
    args.start += 1;
    let args = args.start;
    let sure: Yes = cx.elicit(format!("Bumped to {args}?")).await?;
    Ok(text(format!("{asked} {args} {}", sure.ok)))
}

#[tokio::test]
async fn mutable_parameters_hidden_by_what_they_become_keep_their_changes() {
    let answers = [word("a"), word("b"), yes(true)];
    let done = answered(bumped, json!({"start": 3}), &answers).await;
    assert_eq!(done, "t ?ab 4 true");
}
