//! The graph as the macros write it: one JSON text, read into a [`FlowGraph`] once, when the
//! graph is first asked for.
//!
//! A macro's graph is data the compiler only copies: a string literal costs a handler's build
//! next to nothing, where the same records written as `static` Rust values were type-checked,
//! evaluated and laid out, about a tenth of what a two-question tool cost to compile (and
//! built by calls, one builder chain per question, a quarter of it). The text is read with the
//! records below; the macro of the same release wrote it, so it always reads, and a text that
//! does not (a bug) is logged and gives no graph rather than a panic.
//!
//! ```text
//! {"points":[{"asks":[{"key":"target","kind":"form","message":"\"Where?\"","form":["Target",0]}],
//!             "in_loop":false,"carried":[["replicas","u32"]]}],
//!  "exits":[["tail","Ok(done)"]],
//!  "steps":[["start",{"point":0},false,false,[]],[{"point":0},{"exit":0},false,false,[]]],
//!  "sub_points":[],"branch_exits":[]}
//! ```

use std::sync::OnceLock;

use serde::Deserialize;

use super::steps::{Step, edges};
use super::{Ask, AskKind, Carried, Exit, ExitKind, FlowGraph, Node, Point};
use crate::protocol::ElicitRequestedSchema;

/// The schema of a handler's form `n`, as an [`AskSpec`] numbers it; `None` where its type is
/// no form. One function for the handler, not one per question: each would be compiled on its
/// own.
pub(crate) type Schemas = fn(u32) -> Option<&'static ElicitRequestedSchema>;

/// One handler's graph, as the macro writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Spec {
    /// The question points, in their numbers' order.
    points: Vec<PointSpec>,
    /// The ways out, in their numbers' order: how each leaves, and the source text of the
    /// expression it leaves with.
    exits: Vec<(ExitKind, Option<String>)>,
    /// The steps of the macro's walk, through joins.
    steps: Vec<Step>,
    /// The points that call a sub-flow.
    sub_points: Vec<u32>,
    /// The exits a condition leads to (a `?`).
    branch_exits: Vec<u32>,
}

/// One question point, as the macro writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PointSpec {
    /// What is asked there, one entry per key.
    asks: Vec<AskSpec>,
    /// Whether the point sits in a loop.
    in_loop: bool,
    /// The locals that travel from it: each one's name, and its type where one is written.
    carried: Vec<(String, Option<String>)>,
}

/// One question of a point, as the macro writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AskSpec {
    /// Its input key.
    key: String,
    /// What kind of question it is.
    kind: AskKind,
    /// The source text of its message, for a form or URL question.
    message: Option<String>,
    /// The form's type as written, and the number [`Schemas`] reads its schema by, for a form
    /// question whose type the handler names.
    form: Option<(String, u32)>,
    /// The source text of a sub-flow call.
    call: Option<String>,
}

/// The graph `text` describes, read into `graph` the first time it is asked for; `schemas`
/// reads the schemas of the forms it names.
pub fn graph(
    graph: &'static OnceLock<Option<FlowGraph>>,
    text: &'static str,
    schemas: Schemas,
) -> Option<&'static FlowGraph> {
    let read = graph.get_or_init(|| match serde_json::from_str::<Spec>(text) {
        Ok(spec) => Some(spec.read(schemas)),
        Err(error) => {
            tracing::error!(%error, "a flow graph the macro wrote does not read; it is left out");
            None
        }
    });
    read.as_ref()
}

impl Spec {
    /// The graph these records describe.
    fn read(self, schemas: Schemas) -> FlowGraph {
        let edges = edges(&self.steps, &self.sub_points, &self.branch_exits);
        let points = self.points.into_iter().zip(0u32..).map(|(point, number)| {
            let asks = point.asks.into_iter().map(|ask| ask.read(schemas));
            let mut read = Point::new(number, asks.collect());
            read.in_loop = point.in_loop;
            read.carried = (point.carried.into_iter())
                .map(|(name, ty)| Carried::new(name, ty))
                .collect();
            Node::Point(read)
        });
        let exits = (self.exits.into_iter().zip(0u32..))
            .map(|((way, source), n)| Node::Exit(Exit::new(n, way, source)));
        let nodes = std::iter::once(Node::Start)
            .chain(points)
            .chain(exits)
            .collect();
        FlowGraph::new(nodes, edges)
    }
}

impl AskSpec {
    fn read(self, schemas: Schemas) -> Ask {
        let mut ask = Ask::new(self.key, self.kind);
        ask.message = self.message;
        ask.call = self.call;
        if let Some((name, n)) = self.form {
            ask = ask.form(name, schemas(n));
        }
        ask
    }
}

#[cfg(test)]
mod tests {
    use super::super::{EdgeKind, NodeId};
    use super::*;

    fn no_schema(_: u32) -> Option<&'static ElicitRequestedSchema> {
        None
    }

    const TEXT: &str = r#"{
        "points": [
            {"asks": [{"key": "target", "kind": "form", "message": "\"Where?\"",
                       "form": ["Target", 0], "call": null}],
             "in_loop": false, "carried": []},
            {"asks": [{"key": "check", "kind": "sub_flow", "message": null, "form": null,
                       "call": "check(&cx)"}],
             "in_loop": true, "carried": [["replicas", "u32"], ["plan", null]]}
        ],
        "exits": [["tail", "Ok(done)"]],
        "steps": [
            ["start", {"point": 0}, false, false, []],
            [{"point": 0}, {"point": 1}, false, false, ["ok"]],
            [{"point": 1}, {"exit": 0}, false, false, []]
        ],
        "sub_points": [1],
        "branch_exits": []
    }"#;

    #[test]
    fn the_text_reads_into_the_graph_it_describes() {
        static GRAPH: OnceLock<Option<FlowGraph>> = OnceLock::new();
        let graph = graph(&GRAPH, TEXT, no_schema).expect("the text reads");
        let first = graph.point(0).expect("point 0");
        assert_eq!(first.keys, ["target"]);
        assert_eq!(first.questions[0].message.as_deref(), Some("\"Where?\""));
        assert_eq!(first.questions[0].form_type.as_deref(), Some("Target"));
        assert!(!first.in_loop && first.carried.is_empty());
        let second = graph.point(1).expect("point 1");
        assert!(second.in_loop && second.is_sub_flow());
        assert_eq!(
            second.carried,
            [
                Carried::new("replicas", Some("u32".to_owned())),
                Carried::new("plan", None)
            ]
        );
        assert_eq!(
            graph.exits().map(|exit| exit.way).collect::<Vec<_>>(),
            [ExitKind::Tail]
        );
        let from_first: Vec<_> = graph.edges_from(NodeId::Point(0)).collect();
        assert_eq!(from_first.len(), 1);
        assert_eq!(from_first[0].to, NodeId::Point(1));
        assert_eq!(from_first[0].condition.as_deref(), Some("ok"));
        assert_eq!(from_first[0].kind, EdgeKind::Call);
        let from_second: Vec<_> = graph.edges_from(NodeId::Point(1)).collect();
        assert_eq!(from_second.len(), 1);
        assert_eq!(
            (from_second[0].to, from_second[0].kind),
            (NodeId::Exit(0), EdgeKind::Return)
        );
        let again = super::graph(&GRAPH, TEXT, no_schema).expect("the text reads");
        assert!(std::ptr::eq(graph, again), "read once");
    }

    #[test]
    fn a_text_that_does_not_read_gives_no_graph() {
        static GRAPH: OnceLock<Option<FlowGraph>> = OnceLock::new();
        let unknown_member = r#"{"points": [], "exits": [], "steps": [], "sub_points": [],
            "branch_exits": [], "nodes": []}"#;
        assert!(graph(&GRAPH, unknown_member, no_schema).is_none());
        static CUT: OnceLock<Option<FlowGraph>> = OnceLock::new();
        assert!(graph(&CUT, &TEXT[..TEXT.len() / 2], no_schema).is_none());
    }
}
