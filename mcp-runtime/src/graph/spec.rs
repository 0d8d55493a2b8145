//! The graph as the macros write it: one JSON text and a table of its forms' schemas, read
//! into a [`FlowGraph`] once, when the graph is first asked for.
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

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use serde::Deserialize;

use super::steps::{Step, edges};
use super::{Ask, AskKind, Carried, Exit, ExitKind, FlowGraph, Node, Point};
use crate::protocol::ElicitRequestedSchema;

/// How a handler's graph reads the schema of one form it names: `None` where the type is no
/// form (see `SchemaProbe`).
pub type Schema = Option<fn() -> &'static ElicitRequestedSchema>;

/// The schemas of a handler's forms, by the number an [`AskSpec`] gives each.
type Schemas<'a> = &'a [Schema];

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

/// The graph `text` describes, whose forms' schemas `schemas` gives by their numbers: read
/// the first time it is asked for, and kept.
///
/// A handler's method is this one call, of a literal and an array of constants passed by
/// value: the handler's crate compiles no `static`, no cell and no reader of its own, and no
/// table either: the same array behind a reference is promoted to a constant of the handler's
/// own, holding its forms' functions, which cost each handler's build about 0.2 to 0.3 M
/// instructions more. This function is compiled once per crate and length.
pub fn graph<const N: usize>(
    text: &'static str,
    schemas: [Schema; N],
) -> Option<&'static FlowGraph> {
    read(text, &schemas)
}

/// The graph of `graph`, read the first time it is asked for and kept here, by what it is
/// read from: a graph is a function of its text and its schemas' functions, so two handlers
/// with equal keys share a graph that is the same for both, and a key seen at two addresses (a
/// literal or a function compiled twice) is read twice into equal graphs. Either way the
/// answer is the same; the map holds at most one graph per handler compiled into the program.
fn read(text: &'static str, schemas: Schemas<'_>) -> Option<&'static FlowGraph> {
    type Read = BTreeMap<(&'static str, Vec<usize>), Option<&'static FlowGraph>>;
    static READ: Mutex<Read> = Mutex::new(BTreeMap::new());
    let key = (
        text,
        schemas
            .iter()
            .map(|schema| schema.map_or(0, |schema| schema as usize))
            .collect(),
    );
    if let Some(read) = READ
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .get(&key)
    {
        return *read;
    }
    // Read outside the lock: a form's schema is built on first use, by the form's own code.
    let read = match serde_json::from_str::<Spec>(text) {
        Ok(spec) => Some(spec.read(schemas)),
        Err(error) => {
            tracing::error!(%error, "a flow graph the macro wrote does not read; it is left out");
            None
        }
    };
    let mut kept = READ.lock().unwrap_or_else(PoisonError::into_inner);
    *kept
        .entry(key)
        .or_insert_with(|| read.map(|graph| &*Box::leak(Box::new(graph))))
}

impl Spec {
    /// The graph these records describe.
    fn read(self, schemas: Schemas<'_>) -> FlowGraph {
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
    fn read(self, schemas: Schemas<'_>) -> Ask {
        let mut ask = Ask::new(self.key, self.kind);
        ask.message = self.message;
        ask.call = self.call;
        if let Some((name, n)) = self.form {
            let schema = usize::try_from(n).ok().and_then(|n| schemas.get(n));
            ask = ask.form(name, schema.copied().flatten().map(|schema| schema()));
        }
        ask
    }
}

#[cfg(test)]
mod tests {
    use std::sync::OnceLock;

    use super::super::{EdgeKind, NodeId};
    use super::*;

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
        let graph = graph(TEXT, []).expect("the text reads");
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
        let again = super::graph(TEXT, []).expect("the text reads");
        assert!(std::ptr::eq(graph, again), "read once");
    }

    fn schema_named(name: &str) -> ElicitRequestedSchema {
        ElicitRequestedSchema {
            schema: Some(name.to_owned()),
            ..ElicitRequestedSchema::default()
        }
    }

    fn first() -> &'static ElicitRequestedSchema {
        static SCHEMA: OnceLock<ElicitRequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| schema_named("first"))
    }

    fn second() -> &'static ElicitRequestedSchema {
        static SCHEMA: OnceLock<ElicitRequestedSchema> = OnceLock::new();
        SCHEMA.get_or_init(|| schema_named("second"))
    }

    /// The schema of the point's form, by its number in the table the handler gives.
    fn schema_shown(schemas: Schemas<'_>) -> Option<&'static str> {
        let graph = read(TEXT, schemas).expect("the text reads");
        let ask = &graph.point(0).expect("point 0").questions[0];
        ask.schema.and_then(|schema| schema.schema.as_deref())
    }

    #[test]
    fn a_form_shows_the_schema_its_number_names() {
        assert_eq!(schema_shown(&[Some(first)]), Some("first"));
        assert_eq!(schema_shown(&[Some(second), Some(first)]), Some("second"));
        // A type that is no form, and a number past the table (a type the graph cannot reach).
        assert_eq!(schema_shown(&[None]), None);
        assert_eq!(schema_shown(&[]), None);
    }

    #[test]
    fn graphs_are_kept_by_their_text_and_schemas() {
        let one = graph(TEXT, [Some(first)]).expect("the text reads");
        let other = graph(TEXT, [Some(second)]).expect("the text reads");
        assert!(!std::ptr::eq(one, other), "another schema, another graph");
        let again = graph(TEXT, [Some(first)]).expect("the text reads");
        assert!(
            std::ptr::eq(one, again),
            "the same text and schemas, read once"
        );
    }

    #[test]
    fn a_text_that_does_not_read_gives_no_graph() {
        let unknown_member = r#"{"points": [], "exits": [], "steps": [], "sub_points": [],
            "branch_exits": [], "nodes": []}"#;
        assert!(graph(unknown_member, []).is_none());
        assert!(graph(&TEXT[..TEXT.len() / 2], []).is_none());
    }
}
