//! `FlowTester::explore` walks every path of a flow: it finds planted bugs, with answers that
//! reproduce them in a `script` test, combines the questions of one round under a cap, keeps
//! to its bounds, and compares the points reached with the handler's flow graph.

#![allow(deprecated)] // reason: sampling is deprecated on the wire, yet served

use std::collections::BTreeSet;
use std::sync::OnceLock;

use mcp_runtime::graph::{Ask, AskKind, FlowGraph, Node, Point};
use mcp_runtime::protocol::{CallToolResult, CreateMessageRequestParams, Tool};
use mcp_runtime::server::{BoxFuture, HandlerResult, Request, ToolHandler};
use mcp_runtime::testing::{Ending, Explore, FindingKind, FlowTester};
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, Json, Refusal, ToolResult, text, tool};
use serde_json::{Value, json};

/// How many machines, and whether to start them now.
#[derive(ElicitForm)]
struct Plan {
    /// Machines to provision.
    #[form(minimum = 1, maximum = 5, default = 2)]
    size: u32,
    /// Start them at once?
    now: bool,
}

/// A yes or no.
#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

/// What `provision` reports.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Provisioned {
    /// Machines started: at most 4, says the schema, though the form allows 5.
    #[schemars(range(max = 4))]
    started: u32,
}

/// Two planted bugs: a decline falls back on a saved plan that is never there (`unwrap` on
/// `None`), and a plan of 5 machines breaks the `outputSchema`, which allows 4.
#[tool]
async fn provision(cx: Cx) -> ToolResult<Json<Provisioned>> {
    let saved: Option<u32> = None;
    let plan = match cx.elicit::<Plan>("How many machines?").key("plan").await {
        Ok(plan) => plan,
        Err(Refusal::Declined) => Plan {
            size: saved.unwrap(),
            now: false,
        },
        Err(Refusal::Cancelled) => Plan {
            size: 0,
            now: false,
        },
    };
    if !plan.now {
        return Ok(Json(Provisioned { started: 0 }));
    }
    let confirm: Confirm = cx.elicit("Start them now?").await?;
    let started = if confirm.ok { plan.size } else { 0 };
    Ok(Json(Provisioned { started }))
}

/// The reproduction the explorer prints for the panic, pasted below as a test.
const PANIC_REPRODUCTION: &str = r#"let rounds = tester
    .script([
        json!({"plan":{"action":"decline"}}),
    ])
    .await;
let last = rounds.last().and_then(|round| round.error());
assert_eq!(last.map(|error| error.code.0), Some(-32603));"#;

/// The reproduction the explorer prints for the broken schema, pasted below as a test.
const SCHEMA_REPRODUCTION: &str = r#"let rounds = tester
    .script([
        json!({"plan":{"action":"accept","content":{"now":true,"size":5}}}),
        json!({"confirm":{"action":"accept","content":{"ok":true}}}),
    ])
    .await;
// `script` panics: the result does not match the `outputSchema`"#;

#[tokio::test]
async fn planted_bugs_are_found_with_the_answers_that_reproduce_them() {
    let report = FlowTester::tool(provision).explore(&Explore::new()).await;
    let findings = report.findings();
    assert_eq!(findings.len(), 2, "{report}");

    let FindingKind::Panic(message) = findings[0].kind() else {
        panic!("the first finding is the panic: {report}");
    };
    assert!(
        message.contains("called `Option::unwrap()` on a `None` value"),
        "{message}"
    );
    assert_eq!(
        findings[0].path().answers(),
        [json!({"plan": {"action": "decline"}})]
    );
    assert_eq!(findings[0].reproduction(), PANIC_REPRODUCTION);

    let FindingKind::OutputSchema(violation) = findings[1].kind() else {
        panic!("the second finding is the broken schema: {report}");
    };
    assert!(violation.contains("must be <=4, but got 5"), "{violation}");
    assert_eq!(findings[1].reproduction(), SCHEMA_REPRODUCTION);

    // The summary a failing test prints holds both, reproductions included.
    let shown = report.to_string();
    assert!(shown.contains("findings: 2"), "{shown}");
    assert!(
        shown.contains(PANIC_REPRODUCTION.lines().nth(2).unwrap()),
        "{shown}"
    );
    // Everything else ended well: cancel, the other sizes, and the refused out-of-bounds ones.
    assert!(
        report.reached(&["plan"]) && report.reached(&["confirm"]),
        "{report}"
    );
    assert_eq!(
        report.unreached().map(|points| points.len()),
        Some(0),
        "{report}"
    );
    let reasked = report
        .paths()
        .iter()
        .filter(|path| *path.ending() == Ending::Reasked)
        .count();
    assert_eq!(reasked, 2, "size 0 and size 6 are asked again: {report}");
}

/// [`PANIC_REPRODUCTION`], pasted.
#[tokio::test]
async fn the_panic_reproduces_in_a_script() {
    let tester = FlowTester::tool(provision);
    let rounds = tester.script([json!({"plan":{"action":"decline"}})]).await;
    let last = rounds.last().and_then(|round| round.error());
    assert_eq!(last.map(|error| error.code.0), Some(-32603));
}

/// [`SCHEMA_REPRODUCTION`], pasted.
#[tokio::test]
#[should_panic(expected = "does not match its `outputSchema`")]
async fn the_broken_schema_reproduces_in_a_script() {
    let tester = FlowTester::tool(provision);
    let rounds = tester
        .script([
            json!({"plan":{"action":"accept","content":{"now":true,"size":5}}}),
            json!({"confirm":{"action":"accept","content":{"ok":true}}}),
        ])
        .await;
    drop(rounds);
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Size {
    Small,
    Medium,
    Large,
}

#[derive(ElicitForm)]
struct Order {
    size: Size,
}

/// Two forms in one round, then the model.
#[tool]
async fn coffee(cx: Cx) -> ToolResult {
    let (order, sure) = (cx.elicit::<Order>("Size?"), cx.elicit::<Confirm>("Sure?")).await;
    let (order, sure): (Order, Confirm) = (order?, sure?);
    let reply = cx.sample(CreateMessageRequestParams::default()).await;
    Ok(text(format!(
        "{:?} {} {}",
        order.size, sure.ok, reply.model
    )))
}

#[tokio::test]
async fn the_questions_of_one_round_are_combined_up_to_the_cap() {
    let reply = |model: &str| {
        let content = json!({"type": "text", "text": "ok"});
        json!({"role": "assistant", "content": content, "model": model})
    };
    let options = Explore::new()
        .max_combinations(4)
        .sampling([reply("m1"), reply("m2")]);
    let report = FlowTester::tool(coffee).explore(&options).await;
    assert!(report.findings().is_empty(), "{report}");
    // `order`: three sizes, one that is none, decline, cancel; `sure`: both ways, decline,
    // cancel. The cap (4) is below the six answers of `order`, so each of them is tried
    // once: six combinations, not twenty-four.
    let first: Vec<&Value> = report
        .paths()
        .iter()
        .map(|path| &path.answers()[0])
        .collect();
    let combinations: BTreeSet<String> = first.iter().map(ToString::to_string).collect();
    assert_eq!(combinations.len(), 6, "{report}");
    for key in ["order", "sure"] {
        let answers: Vec<&Value> = first.iter().map(|answers| &answers[key]).collect();
        assert!(
            answers.contains(&&json!({"action": "decline"})),
            "{key}: {report}"
        );
        assert!(
            answers.contains(&&json!({"action": "cancel"})),
            "{key}: {report}"
        );
    }
    for size in ["small", "medium", "large"] {
        let content = json!({"action": "accept", "content": {"size": size}});
        assert!(
            first.iter().any(|answers| answers["order"] == content),
            "{size}"
        );
    }
    // The model's answers are the caller's, both tried.
    let texts: Vec<&str> = report
        .paths()
        .iter()
        .filter_map(|path| match path.ending() {
            Ending::Complete(result) => result.pointer("/content/0/text")?.as_str(),
            _ => None,
        })
        .collect();
    assert!(texts.iter().any(|text| text.ends_with(" m1")), "{texts:?}");
    assert!(texts.iter().any(|text| text.ends_with(" m2")), "{texts:?}");
}

/// Asks again and again while the user says so.
#[tool]
async fn again(cx: Cx) -> ToolResult {
    let mut turns = 0;
    loop {
        let more: Confirm = cx.elicit("Again?").await?;
        if !more.ok {
            break;
        }
        turns += 1;
    }
    Ok(text(format!("{turns} turns")))
}

#[tokio::test]
async fn loops_rounds_and_paths_stay_within_their_bounds() {
    let tester = FlowTester::tool(again);
    let looped = tester.explore(&Explore::new().loop_bound(2)).await;
    assert!(looped.findings().is_empty(), "{looped}");
    let stopped: Vec<_> = looped
        .paths()
        .iter()
        .filter(|path| matches!(path.ending(), Ending::LoopBound(_)))
        .collect();
    // `ok: true` twice, then the third ask is once too often.
    assert_eq!(stopped.len(), 1, "{looped}");
    assert_eq!(stopped[0].points().len(), 3, "{looped}");
    assert_eq!(looped.round_bound().count(), 0);

    let deep = tester
        .explore(&Explore::new().loop_bound(10).max_rounds(4))
        .await;
    let bound: Vec<_> = deep.round_bound().collect();
    assert_eq!(bound.len(), 1, "{deep}");
    assert_eq!(
        bound[0].answers().len(),
        3,
        "four rounds: the first and three answers"
    );
    assert!(
        deep.to_string().contains("a path at the round bound"),
        "{deep}"
    );

    let budget = tester.explore(&Explore::new().max_paths(5)).await;
    assert_eq!(budget.paths().len(), 5, "{budget}");
    assert!(budget.unexplored() > 0, "{budget}");
    assert_eq!(looped.unexplored(), 0);
}

/// `provision`, with a flow graph drawn by hand that has a point no answer leads to.
struct Drawn<H>(H);

impl<H: ToolHandler> ToolHandler for Drawn<H> {
    fn definition(&self) -> Tool {
        self.0.definition()
    }

    fn call(&self, request: Request) -> BoxFuture<'static, HandlerResult<CallToolResult>> {
        self.0.call(request)
    }

    fn flow_graph(&self) -> Option<&'static FlowGraph> {
        static GRAPH: OnceLock<FlowGraph> = OnceLock::new();
        Some(GRAPH.get_or_init(|| {
            let point = |number, key: &str| {
                Node::Point(Point::new(number, vec![Ask::new(key, AskKind::Form)]))
            };
            FlowGraph::new(
                vec![
                    Node::Start,
                    point(0, "plan"),
                    point(1, "confirm"),
                    point(2, "never"),
                ],
                Vec::new(),
            )
        }))
    }
}

#[tokio::test]
async fn points_never_reached_come_from_the_flow_graph() {
    let drawn = FlowTester::tool(Drawn(provision()))
        .explore(&Explore::new())
        .await;
    let unreached = drawn.unreached().expect("the handler has a graph");
    let numbers: Vec<u32> = unreached.iter().map(|point| point.number).collect();
    assert_eq!(numbers, [2], "{drawn}");
    assert!(drawn.to_string().contains("point 2: `never`"), "{drawn}");
}
