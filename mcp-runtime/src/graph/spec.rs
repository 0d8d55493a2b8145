//! The graph as the macros write it: static records, read into a [`FlowGraph`] once, when the
//! graph is first asked for.
//!
//! A macro's graph is data the compiler only lays out: no code is compiled per node, so a
//! handler's question points cost its build little beyond the state machine they need. (The
//! same graph built by calls, one builder chain per question, took a quarter of the code a
//! question point compiled to.)

use std::sync::OnceLock;

use super::steps::{Step, edges};
use super::{Ask, AskKind, Carried, Exit, ExitKind, FlowGraph, Node, Point};
use crate::protocol::ElicitRequestedSchema;

/// One handler's graph, as the macro writes it.
#[derive(Debug)]
pub struct Spec {
    /// The question points, in their numbers' order.
    pub points: &'static [PointSpec],
    /// The ways out, in their numbers' order: how each leaves, and the source text of the
    /// expression it leaves with.
    pub exits: &'static [(ExitKind, Option<&'static str>)],
    /// The steps of the macro's walk, through joins.
    pub steps: &'static [Step],
    /// The points that call a sub-flow.
    pub sub_points: &'static [u32],
    /// The exits a condition leads to (a `?`).
    pub branch_exits: &'static [u32],
    /// The schema of form `n`, as an [`AskSpec`] numbers it; `None` where its type is no
    /// form. One function for the handler, not one per question: each would be compiled on
    /// its own.
    pub schemas: fn(u32) -> Option<&'static ElicitRequestedSchema>,
}

/// One question point, as the macro writes it.
#[derive(Debug)]
pub struct PointSpec {
    /// What is asked there, one entry per key.
    pub asks: &'static [AskSpec],
    /// Whether the point sits in a loop.
    pub in_loop: bool,
    /// The locals that travel from it: each one's name, and its type where one is written.
    pub carried: &'static [(&'static str, Option<&'static str>)],
}

/// One question of a point, as the macro writes it.
#[derive(Debug)]
pub struct AskSpec {
    /// Its input key.
    pub key: &'static str,
    /// What kind of question it is.
    pub kind: AskKind,
    /// The source text of its message, for a form or URL question.
    pub message: Option<&'static str>,
    /// The form's type as written, and the number [`Spec::schemas`] reads its schema by, for
    /// a form question whose type the handler names.
    pub form: Option<(&'static str, u32)>,
    /// The source text of a sub-flow call.
    pub call: Option<&'static str>,
}

/// The graph `spec` describes, read into `graph` the first time it is asked for.
pub fn graph(graph: &'static OnceLock<FlowGraph>, spec: &'static Spec) -> &'static FlowGraph {
    graph.get_or_init(|| spec.read())
}

impl Spec {
    /// The graph these records describe.
    fn read(&self) -> FlowGraph {
        let points = self.points.iter().zip(0u32..).map(|(point, number)| {
            let asks = point.asks.iter().map(|ask| ask.read(self.schemas));
            let mut read = Point::new(number, asks.collect());
            read.in_loop = point.in_loop;
            read.carried = point
                .carried
                .iter()
                .map(|&(name, ty)| Carried::new(name, ty.map(str::to_owned)))
                .collect();
            Node::Point(read)
        });
        let exits =
            self.exits.iter().zip(0u32..).map(|(&(way, source), n)| {
                Node::Exit(Exit::new(n, way, source.map(str::to_owned)))
            });
        let nodes = std::iter::once(Node::Start)
            .chain(points)
            .chain(exits)
            .collect();
        FlowGraph::new(nodes, edges(self.steps, self.sub_points, self.branch_exits))
    }
}

impl AskSpec {
    fn read(&self, schemas: fn(u32) -> Option<&'static ElicitRequestedSchema>) -> Ask {
        let mut ask = Ask::new(self.key, self.kind);
        ask.message = self.message.map(str::to_owned);
        ask.call = self.call.map(str::to_owned);
        if let Some((name, n)) = self.form {
            ask = ask.form(name, schemas(n));
        }
        ask
    }
}

#[cfg(test)]
mod tests {
    use super::super::steps::End;
    use super::super::{EdgeKind, NodeId};
    use super::*;

    fn no_schema(_: u32) -> Option<&'static ElicitRequestedSchema> {
        None
    }

    static SPEC: Spec = Spec {
        points: &[
            PointSpec {
                asks: &[AskSpec {
                    key: "target",
                    kind: AskKind::Form,
                    message: Some("\"Where?\""),
                    form: Some(("Target", 0)),
                    call: None,
                }],
                in_loop: false,
                carried: &[],
            },
            PointSpec {
                asks: &[AskSpec {
                    key: "check",
                    kind: AskKind::SubFlowCall,
                    message: None,
                    form: None,
                    call: Some("check(&cx)"),
                }],
                in_loop: true,
                carried: &[("replicas", Some("u32")), ("plan", None)],
            },
        ],
        exits: &[(ExitKind::Tail, Some("Ok(done)"))],
        steps: &[
            Step(End::Start, End::Point(0), false, false, &[]),
            Step(End::Point(0), End::Point(1), false, false, &["ok"]),
            Step(End::Point(1), End::Exit(0), false, false, &[]),
        ],
        sub_points: &[1],
        branch_exits: &[],
        schemas: no_schema,
    };

    #[test]
    fn the_records_read_into_the_graph_they_describe() {
        static GRAPH: OnceLock<FlowGraph> = OnceLock::new();
        let graph = graph(&GRAPH, &SPEC);
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
        assert!(
            std::ptr::eq(graph, super::graph(&GRAPH, &SPEC)),
            "read once"
        );
    }
}
