//! A binding that hides the local of its name while reading it (`let name = name.trim();`,
//! `for line in &lines { let line = line.trim(); .. }`, a sub-flow's `let question =
//! question.trim();`, `let args = &args.items;`, `let spare = &spare.0;` on a `State(spare)`),
//! or one under `#[cfg]` that may be compiled out, with questions after it: the hidden local
//! travels, and the borrow of it is taken again where the flow resumes. These check the
//! values, the keys the questions are asked under, what a macro that names a hidden local
//! prints, and that code between two questions runs once. Each flow runs round by round
//! through the server's own dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::sync::Arc;

use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, Refusal, State, ToolResult, elicit, text, tool};
use serde::{Deserialize, Serialize};

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, finish, run_keyed, word, yes};

#[tool]
async fn greet_trimmed(cx: Cx) -> ToolResult {
    let name = cx.elicit::<Word>("Name?").await?.word;
    let name = name.trim();
    let sure: Yes = cx.elicit(format!("Greet {name}?")).await?;
    let name = name.strip_suffix('!').unwrap_or(name);
    let loud: Yes = cx.elicit("Loud?").await?;
    let greeting = format!("Hello, {name}");
    Ok(text(match (sure.ok, loud.ok) {
        (true, true) => greeting.to_uppercase(),
        (true, false) => greeting,
        (false, _) => "Bye".to_owned(),
    }))
}

#[tokio::test]
async fn a_let_that_trims_the_local_it_hides_crosses_questions() {
    let tester = FlowTester::tool(greet_trimmed);
    let answers = [word("  Ada! "), yes(true), yes(false)];
    let (keys, round) = run_keyed(tester, &answers).await;
    // The first answer is asked under the name the user gave it, not a renamed one.
    assert_eq!(keys, ["name", "sure", "loud"]);
    assert_eq!(round.text(), Some("Hello, Ada"));
    let tester = FlowTester::tool(greet_trimmed);
    let (_, round) = run_keyed(tester, &[word(" Bo "), yes(true), yes(true)]).await;
    assert_eq!(round.text(), Some("HELLO, BO"));
}

#[tool]
async fn tally_lines(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for line in &args.items {
        let line = line.trim();
        let keep: Yes = cx.elicit(format!("Keep {line}?")).await?;
        if keep.ok {
            kept.push(line.to_owned());
        }
    }
    let mut seen = Vec::new();
    if let Some(first) = args.items.first() {
        let first = first.trim_start_matches(' ');
        let again: Yes = cx.elicit(format!("Again {first}?")).await?;
        seen.push(format!("{first}:{}", again.ok));
    }
    Ok(text(format!("{} / {}", kept.join(","), seen.join(","))))
}

#[tokio::test]
async fn loop_and_pattern_bindings_hidden_by_their_trimmed_selves_cross_questions() {
    let done = answered(
        tally_lines,
        args(0, &[" a ", "b", " c"]),
        &[yes(true), yes(false), yes(true), yes(true)],
    )
    .await;
    assert_eq!(done, "a,c / a :true");
}

#[derive(Serialize, Deserialize)]
struct Echo {
    n: u32,
}

#[tool]
async fn shorthand(args: Args, cx: Cx) -> ToolResult {
    let n = args.start;
    let echo = Echo { n };
    let n = n * 2;
    let Echo { n: first } = echo;
    let nick = args.items.first().cloned();
    let label = match nick.as_deref() {
        Some(nick) => {
            let sure: Yes = cx.elicit(format!("Call them {nick}?")).await?;
            if sure.ok {
                nick.to_owned()
            } else {
                "anon".to_owned()
            }
        }
        None => "nobody".to_owned(),
    };
    let Echo { n } = Echo { n: n + first };
    let n = n + 1;
    let last: Word = cx.elicit("Last?").await?;
    Ok(text(format!("{label} {n} {}", last.word)))
}

#[tokio::test]
async fn shorthand_fields_and_match_arms_hiding_their_scrutinee_cross_questions() {
    let done = answered(shorthand, args(3, &["zed"]), &[yes(true), word("w")]).await;
    assert_eq!(done, "zed 10 w");
    let done = answered(shorthand, args(1, &[]), &[word("w")]).await;
    assert_eq!(done, "nobody 4 w");
}

/// Asks `question`, trimmed, and says what was answered.
#[elicit]
async fn ask_trimmed(cx: &Cx, question: String) -> Result<String, Refusal> {
    let question = question.trim();
    let answer: Yes = cx.elicit(question.to_owned()).await?;
    let again: Yes = cx.elicit(format!("Sure about {question}?")).await?;
    Ok(format!("{question}={}", answer.ok && again.ok))
}

#[tool]
async fn ask_twice(cx: Cx) -> ToolResult {
    let first = ask_trimmed(&cx, "  tea ".to_owned()).await?;
    let second = ask_trimmed(&cx, " milk".to_owned()).await?;
    Ok(text(format!("{first} {second}")))
}

#[tokio::test]
async fn a_sub_flow_argument_hidden_by_its_trimmed_self_crosses_questions() {
    let tester = FlowTester::tool(ask_twice);
    let answers = [yes(true), yes(true), yes(true), yes(false)];
    let (keys, round) = run_keyed(tester, &answers).await;
    assert_eq!(
        keys,
        [
            "first.answer",
            "first.again",
            "second.answer",
            "second.again"
        ]
    );
    assert_eq!(round.text(), Some("tea=true milk=false"));
}

#[tool]
async fn push_through(cx: Cx) -> ToolResult {
    let mut item = Some(String::from("total"));
    let mut count = 0;
    if let Some(item) = item.as_mut() {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        item.push('!');
        count += u32::from(keep.ok);
    }
    let last: Word = cx.elicit("Last?").await?;
    // The hidden `item`, named only by format strings after the block.
    Ok(text(format!("{item:?}: {count} {}", last.word)))
}

#[tokio::test]
async fn a_mutable_borrow_of_the_local_it_hides_writes_through_across_questions() {
    let done = answered(push_through, serde_json::json!({}), &[yes(true), word("w")]).await;
    assert_eq!(done, "Some(\"total!\"): 1 w");
}

#[tool]
async fn first_argument(args: Args, cx: Cx) -> ToolResult {
    let start = args.start;
    let label = {
        let args = &args.items;
        let sure: Yes = cx.elicit(format!("{} items?", args.len())).await?;
        format!("{}:{}", args.join("+"), sure.ok)
    };
    let args = args.items.first().map(String::as_str).unwrap_or("none");
    let last: Word = cx.elicit(format!("After {args}?")).await?;
    Ok(text(format!("{label} {args} {start} {}", last.word)))
}

#[tokio::test]
async fn the_arguments_hidden_by_a_borrow_of_their_own_field_cross_questions() {
    let done = answered(
        first_argument,
        args(3, &["a", "b"]),
        &[yes(true), word("w")],
    )
    .await;
    assert_eq!(done, "a+b:true a 3 w");
    let done = answered(first_argument, args(0, &[]), &[yes(false), word("v")]).await;
    assert_eq!(done, ":false none 0 v");
}

/// Logs `name=value` as a `tracing` field would: the first `$name` is a key, not a use.
macro_rules! note {
    ($log:ident, $name:ident) => {
        $log.push(format!("{}={}", stringify!($name), $name))
    };
}

#[tool]
async fn noted(args: Args, cx: Cx) -> ToolResult {
    let mut log = Vec::new();
    let status = args.items.first().cloned().unwrap_or_default();
    note!(log, status);
    let status = status.trim();
    let sure: Yes = cx.elicit(format!("Use {status}?")).await?;
    let last: Word = cx.elicit("Last?").await?;
    Ok(text(format!(
        "{status} {} {} {}",
        sure.ok,
        last.word,
        log.join(";")
    )))
}

#[tokio::test]
async fn a_local_a_macro_names_keeps_its_name_and_its_hider_is_renamed() {
    let tester = FlowTester::tool(noted).arguments(args(0, &[" up "]));
    let (keys, round) = run_keyed(tester, &[yes(true), word("w")]).await;
    assert_eq!(keys, ["sure", "last"]);
    // The macro still logs the key the user wrote.
    assert_eq!(round.text(), Some("up true w status= up "));
}

#[derive(Default)]
struct Shelf(std::sync::Mutex<Vec<String>>);

#[tool]
async fn from_patterns(
    Args { items, start }: Args,
    cx: Cx,
    shelf: State<Arc<Shelf>>,
    State(spare): State<Arc<Shelf>>,
) -> ToolResult {
    let shelf = shelf.0.0.lock().map_err(|_| "poisoned")?.len();
    let items = items.first().map(String::as_str).unwrap_or("none");
    let spare = &spare.0;
    let sure: Yes = cx.elicit(format!("Shelve {items}?")).await?;
    if sure.ok {
        spare.lock().map_err(|_| "poisoned")?.push(items.to_owned());
    }
    Ok(text(format!("{items} {start} {shelf}")))
}

#[tokio::test]
async fn names_bound_by_a_parameters_pattern_keep_them_and_their_hiders_are_renamed() {
    let shelf = Arc::new(Shelf::default());
    let tester = FlowTester::tool(from_patterns)
        .arguments(args(3, &["jar"]))
        .state(Arc::clone(&shelf));
    let done = finish(tester, &[yes(true)]).await;
    assert_eq!(done, "jar 3 0");
    let shelved = shelf.0.lock().expect("not poisoned").clone();
    assert_eq!(shelved, ["jar"]);
}

#[tool]
async fn mocked_when(args: Args, cx: Cx) -> ToolResult {
    let target = args.items.join(",");
    let sure: Yes = cx.elicit(format!("Send to {target}?")).await?;
    #[cfg(not(test))]
    let target = String::from("compiled out");
    #[cfg(test)]
    let source = format!("{} items", args.items.len());
    #[cfg(not(test))]
    let source = 0;
    Ok(text(format!("{target} {source} {}", sure.ok)))
}

#[tool]
async fn mocked_always(args: Args, cx: Cx) -> ToolResult {
    let target = args.items.join(",");
    let sure: Yes = cx.elicit(format!("Send to {target}?")).await?;
    #[cfg(test)]
    let target = String::from("local");
    Ok(text(format!("{target} {}", sure.ok)))
}

#[tokio::test]
async fn a_let_under_cfg_leaves_the_local_it_would_hide_to_the_code_after_it() {
    let arguments = args(0, &["a", "b"]);
    let kept = answered(mocked_when, arguments.clone(), &[yes(true)]).await;
    assert_eq!(kept, "a,b 2 items true");
    let hidden = answered(mocked_always, arguments, &[yes(false)]).await;
    assert_eq!(hidden, "local false");
}

#[tool]
async fn nested_names(args: Args, cx: Cx) -> ToolResult {
    let x = args.start;
    let inner = {
        let x = format!("inner {x}");
        let go: Yes = cx.elicit(format!("Go {x}?")).await?;
        format!("{x} {}", go.ok)
    };
    let x = x + 1;
    let again: Yes = cx.elicit(format!("Again {x}?")).await?;
    Ok(text(format!("{inner} / {x} {}", again.ok)))
}

#[tokio::test]
async fn two_bindings_of_one_name_in_nested_scopes_cross_a_question_apart() {
    let done = answered(nested_names, args(3, &[]), &[yes(true), yes(false)]).await;
    assert_eq!(done, "inner 3 true / 4 false");
}

#[tool]
async fn count_typed(args: Args, cx: Cx) -> ToolResult {
    let label = {
        let count: String = args.items.join(",");
        count
    };
    let count: usize = args.items.len();
    let go: Yes = cx.elicit("Count?").await?;
    Ok(text(format!("{label} {count} {}", go.ok)))
}

#[tokio::test]
async fn a_carried_local_shows_its_own_type_not_that_of_another_of_its_name() {
    use mcp_runtime::graph::Carried;
    use mcp_runtime::server::ToolHandler;

    let done = answered(count_typed, args(0, &["a", "b"]), &[yes(true)]).await;
    assert_eq!(done, "a,b 2 true");
    let handler = count_typed();
    let graph = handler.flow_graph().expect("it asks, so it has a graph");
    let point = graph.point(0).expect("the question is point 0");
    // The block's `count: String` is another binding: the carried `count` is the `usize`.
    assert_eq!(
        point.carried,
        [
            Carried::new("count", Some("usize".to_owned())),
            Carried::new("label", None)
        ]
    );
}

#[tokio::test]
async fn the_graph_shows_a_hidden_local_and_its_hider_under_the_names_written() {
    use mcp_runtime::server::ToolHandler;

    // `greet_trimmed`'s first `name` and `noted`'s second `status` are written under names of
    // their own in the step function; what the graph shows is the code as written.
    let graph = greet_trimmed()
        .flow_graph()
        .expect("it asks, so it has a graph");
    let point = graph.point(1).expect("the second question is point 1");
    assert_eq!(
        point.questions[0].message.as_deref(),
        Some("format!(\"Greet {name}?\")")
    );
    let graph = noted().flow_graph().expect("it asks, so it has a graph");
    let point = graph.point(0).expect("the first question is point 0");
    assert_eq!(
        point.questions[0].message.as_deref(),
        Some("format!(\"Use {status}?\")")
    );
    let tail = graph.exits().last().and_then(|exit| exit.source.as_deref());
    assert!(
        tail.is_some_and(|source| source.starts_with("Ok(text(format!(\"{status} {}")),
        "{tail:?}"
    );
}
