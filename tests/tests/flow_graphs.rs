//! Flow graphs as users read them: rendered for real handlers (the examples'), gathered by the
//! server, shown in the README, and in agreement with what the handlers do when driven through
//! the real dispatch path.

use std::collections::BTreeSet;

use mcp_examples::{deploy, order, release, tracker};
use mcp_runtime::graph::{ExitKind, FlowGraph, Node, NodeId};
use mcp_runtime::server::{Server, ToolHandler};
use mcp_runtime::testing::{FlowTester, Round, ServerTester, accept, decline};
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde_json::{Value, json};

#[test]
fn a_one_question_tool_renders_as_mermaid() {
    let graph = deploy::confirm_deploy()
        .flow_graph()
        .expect("it asks, so it has a graph");
    let expected = r##"flowchart TD
    start(["start"])
    p0["0: confirm, form Confirm<br/>#quot;Deploy to production?#quot;"]
    x0(["refused"])
    x1(["end"])
    start --> p0
    p0 --> x0
    p0 --> x1
"##;
    assert_eq!(graph.to_mermaid(), expected);
}

#[test]
fn a_one_question_tool_renders_as_versioned_json() {
    let graph = deploy::confirm_deploy()
        .flow_graph()
        .expect("it asks, so it has a graph");
    let expected = json!({
        "version": 1,
        "nodes": [
            {"kind": "start"},
            {"kind": "point", "number": 0, "keys": ["confirm"], "in_loop": false, "carried": [],
             "questions": [{
                "key": "confirm", "kind": "form", "message": "\"Deploy to production?\"",
                "form_type": "Confirm",
                "schema": {"type": "object", "properties": {
                    "ok": {"type": "boolean", "description": "Go ahead?"}
                }, "required": ["ok"]}
             }]},
            {"kind": "exit", "number": 0, "way": "refusal"},
            {"kind": "exit", "number": 1, "way": "tail"}
        ],
        "edges": [
            {"from": "start", "to": {"point": 0}, "kind": "straight"},
            {"from": {"point": 0}, "to": {"exit": 0}, "kind": "branch"},
            {"from": {"point": 0}, "to": {"exit": 1}, "kind": "straight"}
        ]
    });
    assert_eq!(graph.to_json(), expected);
    // Written from the types, the version comes first.
    let text = serde_json::to_string(graph).expect("a graph serialises");
    assert!(text.starts_with(r#"{"version":1,"nodes":"#), "{text}");
}

#[test]
fn a_server_gathers_the_graphs_of_the_handlers_that_ask() {
    let server = release::register(deploy::register(Server::builder())).build();
    let graphs = server.flow_graphs();
    // `deployments` asks nothing: it has no graph.
    let tools: Vec<&str> = graphs.tools.keys().map(String::as_str).collect();
    assert_eq!(tools, ["confirm_deploy", "deploy", "release"]);
    assert!(graphs.prompts.is_empty() && graphs.resources.is_empty());
    assert_eq!(
        graphs.tools["deploy"],
        deploy::deploy().flow_graph().expect("deploy asks")
    );
    let json = graphs.to_json();
    assert_eq!(json["version"], 1);
    assert_eq!(
        json["tools"]["release"]["nodes"][1]["keys"],
        json!(["approval"])
    );
    let mermaid = graphs.to_mermaid();
    assert!(mermaid.starts_with("flowchart TD\n    subgraph g0[\"tool confirm_deploy\"]\n"));
    assert!(mermaid.contains("    subgraph g2[\"tool release\"]\n        g2_start([\"start\"])\n"));
}

/// A yes or no.
#[derive(ElicitForm)]
struct Sure {
    /// Sure?
    ok: bool,
}

/// Asks one form twice.
#[tool]
async fn twice(cx: Cx) -> ToolResult {
    let first: Sure = cx.elicit("First?").await?;
    let second: Sure = cx.elicit("Second?").await?;
    Ok(text(format!("{} {}", first.ok, second.ok)))
}

#[test]
fn a_form_asked_at_two_points_shows_its_schema_at_both() {
    let graph = twice().flow_graph().expect("it asks");
    let json = graph.to_json();
    let schema = json!({"type": "object", "properties": {
        "ok": {"type": "boolean", "description": "Sure?"}
    }, "required": ["ok"]});
    for node in [1, 2] {
        let question = &json["nodes"][node]["questions"][0];
        assert_eq!(question["form_type"], "Sure", "{json}");
        assert_eq!(question["schema"], schema, "{json}");
    }
}

/// The Mermaid blocks of the README's "Flow graphs" section, in order.
fn readme_graphs() -> Vec<String> {
    let readme = include_str!("../../README.md");
    let section = readme
        .split("\n## Flow graphs\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("the README has a `Flow graphs` section");
    section
        .split("```mermaid\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_readme_shows_the_deploy_and_order_graphs_as_they_are() {
    let deploy = deploy::deploy()
        .flow_graph()
        .expect("deploy asks")
        .to_mermaid();
    let order = order::order()
        .flow_graph()
        .expect("order asks")
        .to_mermaid();
    assert_eq!(readme_graphs(), [deploy, order]);
}

/// The point whose keys the round asks (a sub-flow's questions are asked under its call's key:
/// `placed.answer` is point `placed`'s).
fn point_asked(graph: &FlowGraph, round: &Round) -> u32 {
    let asked = round.questions();
    let point = graph.points().find(|point| {
        asked.iter().all(|key| {
            point.keys.iter().any(|own| {
                key == own || (point.is_sub_flow() && key.starts_with(&format!("{own}.")))
            })
        })
    });
    point
        .unwrap_or_else(|| panic!("no point of the graph asks {asked:?}"))
        .number
}

/// Checks the rounds of one run against `graph`: each round that stops stops at a point the
/// last one steps to (a sub-flow's rounds stay at its call), and the last leaves by an edge
/// to an exit, one of `ways` where given. Returns the points reached.
fn walk(graph: &FlowGraph, rounds: &[Round], ways: &[ExitKind]) -> Vec<u32> {
    let mut at = NodeId::Start;
    let mut reached = Vec::new();
    for round in rounds {
        if round.state().is_none() {
            let exits: Vec<ExitKind> = graph
                .edges_from(at)
                .filter_map(|edge| match graph.node(edge.to) {
                    Some(Node::Exit(exit)) => Some(exit.way),
                    _ => None,
                })
                .collect();
            assert!(
                exits
                    .iter()
                    .any(|way| ways.is_empty() || ways.contains(way)),
                "from {at:?} the run ends, but the graph leads to the exits {exits:?} only; \
                 expected one of {ways:?}: {round}"
            );
            return reached;
        }
        let point = point_asked(graph, round);
        let stays =
            at == NodeId::Point(point) && graph.point(point).is_some_and(|p| p.is_sub_flow());
        assert!(
            stays || graph.steps_to(at, NodeId::Point(point)),
            "the run steps from {at:?} to point {point}, which the graph has no edge for"
        );
        at = NodeId::Point(point);
        reached.push(point);
    }
    panic!(
        "the run did not end: {:?}",
        rounds.last().map(ToString::to_string)
    );
}

fn every_point(graph: &FlowGraph) -> BTreeSet<u32> {
    graph.points().map(|point| point.number).collect()
}

fn accepted(key: &str, content: Value) -> Value {
    json!({ key: accept(content) })
}

fn declined(key: &str) -> Value {
    json!({ key: decline() })
}

#[tokio::test]
async fn deploy_runs_along_its_graph() {
    let tester = ServerTester::new(deploy::register(Server::builder()).build());
    let graph = deploy::deploy().flow_graph().expect("deploy asks");
    let production = accepted(
        "target",
        json!({"environment": "production", "replicas": 3}),
    );
    let staging = accepted("target", json!({"environment": "staging", "replicas": 2}));
    let runs = [
        (vec![staging], vec![ExitKind::Tail]),
        (
            vec![production.clone(), accepted("confirm", json!({"ok": true}))],
            vec![ExitKind::Tail],
        ),
        (
            vec![
                production.clone(),
                accepted("confirm", json!({"ok": false})),
            ],
            vec![ExitKind::Return],
        ),
        (
            vec![production, declined("confirm")],
            vec![ExitKind::Refused],
        ),
        (vec![declined("target")], vec![ExitKind::Refused]),
    ];
    let mut reached = BTreeSet::new();
    for (answers, ways) in runs {
        let tool = tester.tool("deploy").arguments(json!({"service": "api"}));
        reached.extend(walk(graph, &tool.script(answers).await, &ways));
    }
    assert_eq!(reached, every_point(graph));

    let graph = deploy::confirm_deploy()
        .flow_graph()
        .expect("confirm_deploy asks");
    for answer in [
        accepted("confirm", json!({"ok": true})),
        declined("confirm"),
    ] {
        let rounds = tester.tool("confirm_deploy").script([answer]).await;
        assert_eq!(walk(graph, &rounds, &[]), [0]);
    }
}

#[tokio::test]
async fn order_runs_along_its_graph_round_its_loop_and_into_its_sub_flow() {
    let graph = order::order().flow_graph().expect("order asks");
    let item = |more: bool| {
        accepted(
            "item",
            json!({"product": "tea", "quantity": 2, "more": more}),
        )
    };
    let placed = |ok: bool| accepted("placed.answer", json!({"ok": ok}));
    let runs = [
        (
            vec![item(true), item(true), item(false), placed(true)],
            ExitKind::Tail,
        ),
        (vec![item(false), placed(false)], ExitKind::Return),
        (
            vec![item(false), declined("placed.answer")],
            ExitKind::Refused,
        ),
        (vec![item(true), declined("item")], ExitKind::Refused),
    ];
    let mut reached = BTreeSet::new();
    for (answers, way) in runs {
        let rounds = FlowTester::tool(order::order).script(answers).await;
        let points = walk(graph, &rounds, &[way]);
        reached.extend(points);
    }
    assert_eq!(reached, every_point(graph));
    // The loop's way back is an edge of its own.
    assert!(graph.steps_to(NodeId::Point(0), NodeId::Point(0)));
}

#[tokio::test(start_paused = true)]
async fn release_runs_along_its_graph() {
    let graph = release::release().flow_graph().expect("release asks");
    let approval = |approve: bool| accepted("approval", json!({"approve": approve}));
    let publish = |publish: bool| accepted("publish", json!({"publish": publish}));
    let runs = [
        (vec![approval(true), publish(true)], ExitKind::Tail),
        (vec![approval(true), publish(false)], ExitKind::Return),
        (vec![approval(false)], ExitKind::Return),
        (vec![declined("approval")], ExitKind::Refused),
    ];
    let mut reached = BTreeSet::new();
    for (answers, way) in runs {
        let tool = FlowTester::tool(release::release).arguments(json!({"version": "1.0"}));
        reached.extend(walk(graph, &tool.script(answers).await, &[way]));
    }
    assert_eq!(reached, every_point(graph));
}

#[tokio::test]
async fn the_tracker_runs_along_its_graphs() {
    let tester = ServerTester::new(tracker::register(Server::builder()).build());
    let graph = tracker::create_issue()
        .flow_graph()
        .expect("create_issue asks");
    let details = accepted(
        "details",
        json!({"title": "Crash on save", "priority": "urgent"}),
    );
    let urgency = accepted("urgency", json!({"priority": "low"}));
    let runs = [
        (json!({"labels": ["bug"]}), details),
        (json!({"title": "Slow start", "labels": ["bug"]}), urgency),
    ];
    let mut reached = BTreeSet::new();
    for (arguments, answer) in runs {
        let tool = tester.tool("create_issue").arguments(arguments);
        reached.extend(walk(graph, &tool.script([answer]).await, &[]));
    }
    assert_eq!(reached, every_point(graph));

    let graph = tracker::close_issues()
        .flow_graph()
        .expect("close_issues asks");
    for (answer, way) in [
        (
            accepted("answer", json!({"close": false})),
            ExitKind::Return,
        ),
        (accepted("answer", json!({"close": true})), ExitKind::Tail),
    ] {
        let tool = tester
            .tool("close_issues")
            .arguments(json!({"label": "bug"}));
        assert_eq!(walk(graph, &tool.script([answer]).await, &[way]), [0]);
    }
}
