//! Borrows that a question separates from their use, had again where the flow resumes rather
//! than carried: pattern bindings of `if let`, `while let` and `match` arms that borrow what
//! they match, `let` locals that borrow a place (`args.name.trim()`, `&args.items[0]`,
//! `items.first()`, `items.last_mut()`), what the context's accessors give (`cx.state()`,
//! `cx.subject()`), and string literals whose name is bound more than once. Each flow runs
//! round by round through the server's own dispatch.

#![allow(clippy::needless_pass_by_value)]

use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::state::INVALID_STATE_MESSAGE;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ToolResult, text, tool};
use serde::Deserialize;
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Word, Yes, finish, run, word, yes};

#[derive(Deserialize, schemars::JsonSchema)]
struct Named {
    name: Option<String>,
    items: Vec<String>,
}

fn named(name: Option<&str>, items: &[&str]) -> serde_json::Value {
    json!({ "name": name, "items": items })
}

#[tool]
async fn if_let_borrow(args: Named, cx: Cx) -> ToolResult {
    let mut count = 0;
    if let Some(name) = &args.name {
        let w: Word = cx.elicit(format!("A word for {name}?")).await?;
        count += w.word.len() + name.len();
    }
    Ok(text(format!("{count}")))
}

#[tokio::test]
async fn an_if_let_binding_that_borrows_is_matched_again() {
    let tester = || FlowTester::tool(if_let_borrow);
    let round = tester().arguments(named(Some("ada"), &[])).start().await;
    let asked = round.requests().map(|requests| format!("{requests:?}"));
    assert!(
        asked.is_some_and(|asked| asked.contains("A word for ada?")),
        "{round}"
    );
    let done = finish(tester().arguments(named(Some("ada"), &[])), &[word("four")]).await;
    assert_eq!(done, "7");
    let done = finish(tester().arguments(named(None, &[])), &[]).await;
    assert_eq!(done, "0");
}

#[tool]
async fn match_arm_borrow(args: Named, cx: Cx) -> ToolResult {
    let mut said = Vec::new();
    match args.items.first() {
        Some(first) if first.len() > 1 => {
            let ok: Yes = cx.elicit(format!("Keep {first}?")).key("keep").await?;
            said.push(format!("{first}={}", ok.ok));
        }
        Some(short) => said.push(format!("short {short}")),
        None => said.push("none".to_owned()),
    }
    match (args.items.last(), &args.name) {
        (Some(last), Some(name)) => {
            let w: Word = cx.elicit(format!("{name}, after {last}?")).await?;
            said.push(format!("{name}:{last}:{}", w.word));
        }
        _ => said.push("no pair".to_owned()),
    }
    Ok(text(said.join(" ")))
}

#[tokio::test]
async fn a_match_arm_binding_that_borrows_is_matched_again() {
    let tester =
        |name, items: &[&str]| FlowTester::tool(match_arm_borrow).arguments(named(name, items));
    let done = finish(tester(Some("bo"), &["ant", "cat"]), &[yes(true), word("w")]).await;
    assert_eq!(done, "ant=true bo:cat:w");
    let done = finish(tester(None, &["a"]), &[]).await;
    assert_eq!(done, "short a no pair");
    let done = finish(tester(Some("bo"), &[]), &[]).await;
    assert_eq!(done, "none no pair");
}

#[tool]
async fn let_borrows(args: Named, cx: Cx) -> ToolResult {
    let name = args.name.as_deref().unwrap_or("anon").trim();
    let first = &args.items[0];
    let ok: Yes = cx.elicit(format!("Deploy {name}?")).await?;
    let w: Word = cx.elicit(format!("A word for {first}?")).await?;
    Ok(text(format!("{name} {first} {} {}", ok.ok, w.word)))
}

#[tokio::test]
async fn let_locals_that_borrow_the_arguments_are_borrowed_again() {
    let tester = |name| FlowTester::tool(let_borrows).arguments(named(name, &["x", "y"]));
    let done = finish(tester(Some("  web ")), &[yes(true), word("q")]).await;
    assert_eq!(done, "web x true q");
    let done = finish(tester(None), &[yes(false), word("r")]).await;
    assert_eq!(done, "anon x false r");
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Line {
    line: String,
}

#[tool]
async fn collected_borrows(args: Line, cx: Cx) -> ToolResult {
    let words: Vec<&str> = args.line.split(' ').collect();
    let fields = args
        .line
        .split(',')
        .map(str::trim)
        .filter(|field| !field.is_empty())
        .collect::<Vec<_>>();
    let ok: Yes = cx.elicit(format!("{} words?", words.len())).await?;
    Ok(text(format!("{words:?} {fields:?} {}", ok.ok)))
}

#[tokio::test]
async fn a_collected_chain_of_borrows_is_collected_again() {
    let tester = FlowTester::tool(collected_borrows).arguments(json!({ "line": "a, b,, c" }));
    let done = finish(tester, &[yes(true)]).await;
    assert_eq!(done, r#"["a,", "b,,", "c"] ["a", "b", "c"] true"#);
}

#[tool]
async fn literals_bound_again(args: Named, cx: Cx) -> ToolResult {
    let stage = "draft";
    let _first: Yes = cx.elicit(format!("Stage {stage}?")).key("first").await?;
    let stage = "final";
    let _second: Yes = cx.elicit(format!("Stage {stage}?")).key("second").await?;
    let mut notes = vec![stage.to_owned()];
    for stage in &args.items {
        notes.push(stage.clone());
    }
    let _third: Yes = cx.elicit("Done?").key("third").await?;
    Ok(text(format!("{stage} {}", notes.join(","))))
}

#[tokio::test]
async fn a_literal_whose_name_is_bound_again_is_declared_again_where_it_stood() {
    let tester = FlowTester::tool(literals_bound_again).arguments(named(None, &["x"]));
    let mut round = tester.start().await;
    let mut asked = Vec::new();
    for key in ["first", "second", "third"] {
        asked.push(format!("{:?}", round.requests()));
        round = round.answer(json!({ key: yes(true) })).await;
    }
    assert!(asked[0].contains("Stage draft?"), "{}", asked[0]);
    assert!(asked[1].contains("Stage final?"), "{}", asked[1]);
    assert_eq!(round.text(), Some("final final,x"), "{round}");
}

#[derive(Deserialize, schemars::JsonSchema)]
enum Mode {
    Fast,
    Slow,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Choices {
    mode: Mode,
    verbose: bool,
    count: u32,
    name: Option<String>,
    items: Vec<String>,
}

#[tool]
async fn chosen_borrows(args: Choices, cx: Cx) -> ToolResult {
    let label = match args.mode {
        Mode::Fast => "fast",
        Mode::Slow => "slow",
    };
    let size = if args.count > 3 { "big" } else { "small" };
    let pick = if args.verbose {
        &args.items[0]
    } else {
        &args.items[1]
    };
    let who = match &args.name {
        Some(name) => name.as_str(),
        None => "anon",
    };
    let short = args.name.as_deref().map_or("-", |name| &name[..1]);
    let head = &args.items[..1];
    let ok: Yes = cx.elicit(format!("{label} {who}?")).await?;
    if let Some(ref name) = args.name {
        let w: Word = cx.elicit(format!("A word for {name}?")).await?;
        return Ok(text(format!(
            "{label} {size} {pick} {who} {short} {head:?} {} {name} {}",
            ok.ok, w.word
        )));
    }
    Ok(text(format!(
        "{label} {size} {pick} {who} {short} {head:?} {}",
        ok.ok
    )))
}

#[tokio::test]
async fn borrows_chosen_by_a_match_or_an_if_are_chosen_again() {
    let args = |mode: &str, name: Option<&str>| json!({ "mode": mode, "verbose": name.is_some(), "count": 5, "name": name, "items": ["x", "y"] });
    let tester = FlowTester::tool(chosen_borrows).arguments(args("Fast", Some("ada")));
    let done = finish(tester, &[yes(true), word("w")]).await;
    assert_eq!(done, r#"fast big x ada a ["x"] true ada w"#);
    let tester = FlowTester::tool(chosen_borrows).arguments(args("Slow", None));
    let done = finish(tester, &[yes(false)]).await;
    assert_eq!(done, r#"slow big y anon - ["x"] false"#);
}

#[tool]
async fn borrows_by_an_argument(args: Choices, cx: Cx) -> ToolResult {
    let index = usize::try_from(args.count).unwrap_or(usize::MAX);
    let pick = args.items.get(index).map(String::as_str);
    let first = args.items.iter().map(|item| item.as_str()).next();
    let indexed = &args.items[index];
    let ok: Yes = cx.elicit(format!("{pick:?}?")).await?;
    Ok(text(format!("{pick:?} {first:?} {indexed} {}", ok.ok)))
}

#[tokio::test]
async fn borrows_given_arguments_that_cannot_change_are_taken_again() {
    let args =
        json!({ "mode": "Fast", "verbose": false, "count": 1, "name": null, "items": ["x", "y"] });
    let tester = FlowTester::tool(borrows_by_an_argument).arguments(args);
    let done = finish(tester, &[yes(true)]).await;
    assert_eq!(done, r#"Some("y") Some("x") y true"#);
}

#[tool]
async fn ref_mut_bindings(args: Named, cx: Cx) -> ToolResult {
    let mut name = args.name;
    if let Some(ref mut given) = name {
        given.push('<');
        let suffix: Word = cx.elicit("A suffix?").await?;
        given.push_str(&suffix.word);
    }
    let mut items = args.items;
    if let [first, ..] = items.as_mut_slice() {
        let more: Word = cx.elicit("More for the first?").await?;
        first.push_str(&more.word);
    }
    Ok(text(format!("{name:?} {items:?}")))
}

#[tokio::test]
async fn ref_mut_bindings_and_a_mutable_slice_pattern_are_matched_again() {
    let tester = FlowTester::tool(ref_mut_bindings).arguments(named(Some("n"), &["a", "b"]));
    let done = finish(tester, &[word("s"), word("m")]).await;
    assert_eq!(done, r#"Some("n<s") ["am", "b"]"#);
}

/// How often `load` ran.
static LOADS: AtomicUsize = AtomicUsize::new(0);

fn load(items: &[String]) -> Vec<String> {
    LOADS.fetch_add(1, Ordering::SeqCst);
    items.iter().rev().cloned().collect()
}

#[tool]
async fn borrow_of_a_carried_local(args: Named, cx: Cx) -> ToolResult {
    let loaded = load(&args.items);
    let Some(head) = loaded.first() else {
        return Ok(text("nothing"));
    };
    let mut total = 0;
    for item in &args.items {
        let trimmed = item.trim();
        let w: Word = cx
            .elicit(format!("{trimmed} after {head}?"))
            .key("each")
            .await?;
        total += w.word.len() + trimmed.len();
    }
    Ok(text(format!("{head} {total}")))
}

#[tokio::test]
async fn a_borrow_of_a_carried_local_is_taken_again_from_it() {
    let before = LOADS.load(Ordering::SeqCst);
    let tester = FlowTester::tool(borrow_of_a_carried_local).arguments(named(None, &["a ", "bb"]));
    let done = finish(tester, &[word("1"), word("22")]).await;
    assert_eq!(done, "bb 6");
    // Three rounds, one run of `load`: the borrow is taken again from the carried `loaded`.
    assert_eq!(LOADS.load(Ordering::SeqCst) - before, 1);
    let tester = FlowTester::tool(borrow_of_a_carried_local).arguments(named(None, &[]));
    assert_eq!(finish(tester, &[]).await, "nothing");
}

#[tool]
async fn while_let_over_a_changing_stack(args: Named, cx: Cx) -> ToolResult {
    let mut stack = args.items.clone();
    let mut popped = Vec::new();
    while let Some(top) = stack.last() {
        let ok: Yes = cx.elicit(format!("Pop {top}?")).key("pop").await?;
        if !ok.ok {
            break;
        }
        popped.push(top.clone());
        stack.pop();
    }
    Ok(text(format!("{} | {}", popped.join(","), stack.join(","))))
}

#[tokio::test]
async fn a_while_let_binding_is_matched_again_against_the_carried_stack() {
    let tester =
        FlowTester::tool(while_let_over_a_changing_stack).arguments(named(None, &["a", "b", "c"]));
    let round = run(tester, &[yes(true), yes(true), yes(false)]).await;
    assert_eq!(round.text(), Some("c,b | a"), "{round}");
}

#[tool]
async fn mutable_borrow(args: Named, cx: Cx) -> ToolResult {
    let mut log = vec![format!("{} items", args.items.len())];
    let sink = &mut log;
    sink.push("asking".to_owned());
    let w: Word = cx.elicit("A word?").await?;
    sink.push(w.word);
    Ok(text(log.join(", ")))
}

#[tokio::test]
async fn a_mutable_borrow_is_taken_again_from_the_carried_local() {
    let tester = FlowTester::tool(mutable_borrow).arguments(named(None, &["a"]));
    assert_eq!(finish(tester, &[word("hi")]).await, "1 items, asking, hi");
}

#[tool]
async fn mutable_parts(args: Named, cx: Cx) -> ToolResult {
    let mut items = args.items;
    let mut name = args.name;
    if let Some(last) = items.last_mut() {
        last.push('>');
        let after: Word = cx.elicit("After the last?").await?;
        last.push_str(&after.word);
    }
    match items.get_mut(0) {
        Some(first) => {
            let before: Word = cx.elicit("Before the first?").await?;
            first.insert_str(0, &before.word);
        }
        None => items.push("none".to_owned()),
    }
    let head = items.first_mut().unwrap();
    head.push('|');
    let bar: Word = cx.elicit("After the bar?").await?;
    head.push_str(&bar.word);
    if let Some(given) = name.as_mut() {
        let suffix: Word = cx.elicit("A suffix?").await?;
        given.push_str(&suffix.word);
    }
    Ok(text(format!(
        "{} {}",
        items.join(","),
        name.unwrap_or_default()
    )))
}

#[tokio::test]
async fn mutable_parts_of_a_carried_local_are_borrowed_again_as_changed() {
    // Each `_mut` borrow changes its part before the question and after it: the part is
    // borrowed again from the carried local, which holds the change made before.
    let tester = FlowTester::tool(mutable_parts).arguments(named(Some("n"), &["a", "b"]));
    let answers = [word("1"), word("2"), word("3"), word("4")];
    assert_eq!(finish(tester, &answers).await, "2a|3,b>1 n4");
}

/// A `get` that answers once, then never again: a place that does not give the same borrow
/// twice, so the arm the flow stopped in no longer matches where it resumes.
struct Fickle(AtomicUsize);

impl Fickle {
    fn get(&self, _key: &str) -> Option<&'static str> {
        (self.0.fetch_add(1, Ordering::SeqCst) == 0).then_some("once")
    }
}

static FICKLE: Fickle = Fickle(AtomicUsize::new(0));

#[tool]
async fn fickle_match(_args: Named, cx: Cx) -> ToolResult {
    match FICKLE.get("key") {
        Some(value) => {
            let w: Word = cx.elicit(format!("{value}?")).await?;
            Ok(text(format!("{value} {}", w.word)))
        }
        None => Ok(text("gone")),
    }
}

#[tokio::test]
async fn a_pattern_that_no_longer_matches_refuses_the_state() {
    let tester = FlowTester::tool(fickle_match).arguments(named(None, &[]));
    let first = tester.start().await;
    let key = first.questions()[0].to_owned();
    let refused = first.answer(json!({ key: word("w") })).await;
    let error = refused
        .error()
        .unwrap_or_else(|| panic!("refused: {refused}"));
    assert_eq!(error.code.0, -32602, "{refused}");
    assert_eq!(error.message, INVALID_STATE_MESSAGE);
}

/// How often the code before the first question of `borrows_across_every_level` ran.
static BORROWS_BEFORE: AtomicUsize = AtomicUsize::new(0);

#[tool]
async fn borrows_across_every_level(args: Named, cx: Cx) -> ToolResult {
    BORROWS_BEFORE.fetch_add(1, Ordering::SeqCst);
    let first = args.items.first().map_or("none", String::as_str);
    let joined = args.items.join(",");
    let parts: Vec<&str> = joined.split(',').collect();
    let mut n = 0;
    let a: Yes = cx.elicit(format!("A {first}?")).await?;
    if a.ok {
        n += 1;
    }
    let b: Yes = cx.elicit("B?").await?;
    if b.ok {
        n += parts.len();
    }
    if n > 1 {
        let c: Word = cx.elicit(format!("C {}?", parts[0])).await?;
        n += c.word.len();
    }
    let d: Word = cx.elicit(format!("D {first}?")).await?;
    Ok(text(format!("{first} {n} {} {}", parts.join("|"), d.word)))
}

#[tokio::test]
async fn borrows_of_the_body_cross_every_question_after_them() {
    let before = BORROWS_BEFORE.load(Ordering::SeqCst);
    let done = finish(
        FlowTester::tool(borrows_across_every_level).arguments(named(None, &["ab", "cd"])),
        &[yes(true), yes(true), word("xyz"), word("end")],
    )
    .await;
    assert_eq!(done, "ab 6 ab|cd end");
    let done = finish(
        FlowTester::tool(borrows_across_every_level).arguments(named(None, &["q"])),
        &[yes(false), yes(false), word("fin")],
    )
    .await;
    assert_eq!(done, "q 0 q fin");
    // Two runs: the code before the first question ran once each, over all their rounds.
    assert_eq!(BORROWS_BEFORE.load(Ordering::SeqCst) - before, 2);
}

#[tool]
async fn owned_out_of_a_place(args: Named, cx: Cx) -> ToolResult {
    let name = args.name.unwrap_or_default();
    let count = args.items.len();
    let a: Yes = cx.elicit(format!("A {name}?")).await?;
    let b: Yes = cx.elicit("B?").await?;
    Ok(text(format!("{name} {count} {} {}", a.ok, b.ok)))
}

#[tokio::test]
async fn a_value_moved_out_of_a_place_travels_rather_than_being_taken_again() {
    let done = finish(
        FlowTester::tool(owned_out_of_a_place).arguments(named(Some("ada"), &["x"])),
        &[yes(true), yes(false)],
    )
    .await;
    assert_eq!(done, "ada 1 true false");
}

#[tool]
async fn closures_made_again(args: Named, cx: Cx) -> ToolResult {
    let suffix = args.items.join("");
    let decorate = |s: &str| format!("<{s}{suffix}>");
    let mut count = 0;
    let mut bump = |by: usize| count += by;
    bump(1);
    let a: Word = cx.elicit(decorate("first")).await?;
    bump(a.word.len());
    if a.word.len() > 1 {
        let b: Yes = cx.elicit("More?").await?;
        if b.ok {
            bump(100);
        }
    }
    let c: Word = cx.elicit("Last?").await?;
    Ok(text(format!("{} {count}", decorate(&c.word))))
}

#[tokio::test]
async fn closures_that_borrow_are_made_again_where_the_flow_resumes() {
    let tester = || FlowTester::tool(closures_made_again).arguments(named(None, &["x", "y"]));
    assert_eq!(
        finish(tester(), &[word("abc"), yes(true), word("end")]).await,
        "<endxy> 104"
    );
    assert_eq!(finish(tester(), &[word("a"), word("z")]).await, "<zxy> 2");
}

/// Application state, registered with the server and never serialised.
struct Greeting {
    prefix: String,
}

/// What the context's accessors give, held across questions: an `Option<State<T>>`, and the
/// caller's subject as an `Option<&str>` turned into a `&str`.
#[tool]
async fn from_the_context(cx: Cx) -> ToolResult {
    let greeting = cx.state::<Greeting>();
    let who = cx.subject().unwrap_or("anonymous");
    let name: Word = cx.elicit("Your name?").await?;
    let form = cx.supports_form_elicitation();
    let sure: Yes = cx.elicit(format!("{who} as {}?", name.word)).await?;
    let prefix = greeting
        .as_ref()
        .map_or("?", |greeting| greeting.prefix.as_str());
    Ok(text(format!(
        "{prefix} {} {who} {form} {}",
        name.word, sure.ok
    )))
}

#[tokio::test]
async fn what_the_context_gives_is_had_again_where_the_flow_resumes() {
    let tester = FlowTester::tool(from_the_context)
        .state(Greeting {
            prefix: String::from("Hello"),
        })
        .subject("ada")
        .capabilities(json!({"elicitation": {"form": {}}}));
    let round = run(tester, &[word("Ada"), yes(true)]).await;
    assert_eq!(round.text(), Some("Hello Ada ada true true"));
}
