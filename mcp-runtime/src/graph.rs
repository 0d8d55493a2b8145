//! Flow graphs: what a multi-round handler can ask, in what order, and how it ends, as data.
//!
//! The `#[tool]`, `#[prompt]` and `#[resource]` macros know every question point of the
//! handler they compile: its input keys, what it asks, the branches and loops between points,
//! and the locals that travel in the state from each one. They hand that knowledge out as a
//! [`FlowGraph`], built from the same records that build the handler's state machine, once,
//! on first use. Read it from a handler ([`ToolHandler::flow_graph`] and its siblings) or from
//! a server, for every registered handler ([`Server::flow_graphs`]).
//!
//! A graph has three kinds of [`Node`]:
//! - the **start**, where a first round begins;
//! - one **point** per question point ([`Point`]), numbered as the runtime numbers them: a
//!   round that stops at point `n` stops at node [`NodeId::Point`]`(n)`, and the next round
//!   resumes there;
//! - one **exit** per way out ([`Exit`]): each `return`, each `?`, and the body's last value.
//!
//! An [`Edge`] joins two nodes when the handler can run from one to the other without
//! reaching another point. It says how ([`EdgeKind`]), and, where the way depends on a
//! condition, which one (its source text, shortened).
//!
//! A handler that asks nothing has no graph: its method returns `None`. A hand-written
//! handler has none either, unless it builds one ([`FlowGraph::new`]).
//!
//! Two renderings come with it: JSON ([`FlowGraph::to_json`]; the format is described there
//! and carries `"version": 1`) and a Mermaid `flowchart` ([`FlowGraph::to_mermaid`]).
//!
//! [`ToolHandler::flow_graph`]: crate::server::ToolHandler::flow_graph
//! [`Server::flow_graphs`]: crate::server::Server::flow_graphs

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::protocol::ElicitRequestedSchema;

mod json;
mod mermaid;
mod spec;
mod steps;

pub use json::VERSION;

/// The static flow graph of one handler: its nodes and the edges between them.
///
/// Serialises (with serde) to the JSON that [`to_json`](Self::to_json) describes.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct FlowGraph {
    /// The start first, then the points in their numbers' order, then the exits in theirs.
    pub nodes: Vec<Node>,
    /// The edges, each once.
    pub edges: Vec<Edge>,
}

impl FlowGraph {
    /// A graph of `nodes` and `edges`.
    pub fn new(nodes: Vec<Node>, edges: Vec<Edge>) -> Self {
        Self { nodes, edges }
    }

    /// The node `id`, if the graph has it.
    pub fn node(&self, id: NodeId) -> Option<&Node> {
        self.nodes.iter().find(|node| node.id() == id)
    }

    /// The question point numbered `number`, if the graph has it.
    pub fn point(&self, number: u32) -> Option<&Point> {
        self.points().find(|point| point.number == number)
    }

    /// The question points, in their numbers' order.
    pub fn points(&self) -> impl Iterator<Item = &Point> {
        self.nodes.iter().filter_map(|node| match node {
            Node::Point(point) => Some(point),
            _ => None,
        })
    }

    /// The ways out.
    pub fn exits(&self) -> impl Iterator<Item = &Exit> {
        self.nodes.iter().filter_map(|node| match node {
            Node::Exit(exit) => Some(exit),
            _ => None,
        })
    }

    /// The edges that leave `id`.
    pub fn edges_from(&self, id: NodeId) -> impl Iterator<Item = &Edge> {
        self.edges.iter().filter(move |edge| edge.from == id)
    }

    /// Whether the handler can run from `from` to `to` without reaching another point: an
    /// edge joins them.
    pub fn steps_to(&self, from: NodeId, to: NodeId) -> bool {
        self.edges_from(from).any(|edge| edge.to == to)
    }
}

/// Which node: the start, a question point by its number, or a way out by its number.
///
/// In JSON: `"start"`, `{"point": 0}`, `{"exit": 0}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeId {
    /// Where a first round begins.
    Start,
    /// The question point of this number, the number a round's state names.
    Point(u32),
    /// The way out of this number.
    Exit(u32),
}

/// One node of a flow graph.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Node {
    /// Where a first round begins.
    Start,
    /// A question point: where a round may stop and ask.
    Point(Point),
    /// A way out of the handler.
    Exit(Exit),
}

impl Node {
    /// The node's id.
    pub fn id(&self) -> NodeId {
        match self {
            Self::Start => NodeId::Start,
            Self::Point(point) => NodeId::Point(point.number),
            Self::Exit(exit) => NodeId::Exit(exit.number),
        }
    }
}

/// A question point: one awaited question, several asked together, or a sub-flow call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Point {
    /// The point's number: in the order of the body, from 0.
    pub number: u32,
    /// The input key of each question asked here (a sub-flow call's scope), in order.
    pub keys: Vec<String>,
    /// What is asked here, one entry per key.
    pub questions: Vec<Ask>,
    /// Whether the point sits in a loop, and so may be reached more than once per flow.
    pub in_loop: bool,
    /// The locals whose values travel in the state from this point.
    pub carried: Vec<Carried>,
}

impl Point {
    /// Point `number`, asking `questions`, whose keys it takes; in no loop, carrying nothing.
    pub fn new(number: u32, questions: Vec<Ask>) -> Self {
        Self {
            number,
            keys: questions.iter().map(|ask| ask.key.clone()).collect(),
            questions,
            in_loop: false,
            carried: Vec::new(),
        }
    }

    /// The point, marked as sitting in a loop.
    pub fn in_loop(mut self) -> Self {
        self.in_loop = true;
        self
    }

    /// The point, with `carried` travelling from it.
    pub fn carrying(mut self, carried: Vec<Carried>) -> Self {
        self.carried = carried;
        self
    }

    /// Whether the point is a call of an `#[elicit]` sub-flow.
    pub fn is_sub_flow(&self) -> bool {
        self.questions
            .iter()
            .any(|ask| ask.kind == AskKind::SubFlowCall)
    }
}

/// One question of a point.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[non_exhaustive]
pub struct Ask {
    /// Its input key.
    pub key: String,
    /// What kind of question it is.
    pub kind: AskKind,
    /// The source text of its message expression, for a form or URL question.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The form's type as written (`Target`), for a form question whose type the handler
    /// names (by a `let` annotation or a turbofish); `None` where the compiler infers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form_type: Option<String>,
    /// The form's requested schema, where its type is known and reachable from the handler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<&'static ElicitRequestedSchema>,
    /// The source text of a sub-flow call (`confirm_total(&cx, total)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
}

impl Ask {
    /// A question of `kind` under `key`, with nothing else known of it.
    pub fn new(key: impl Into<String>, kind: AskKind) -> Self {
        Self {
            key: key.into(),
            kind,
            message: None,
            form_type: None,
            schema: None,
            call: None,
        }
    }

    /// The question, with the source text of its message.
    pub fn message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// The question, with its form's type name and, where it can be had, its schema.
    pub fn form(
        mut self,
        type_name: impl Into<String>,
        schema: Option<&'static ElicitRequestedSchema>,
    ) -> Self {
        self.form_type = Some(type_name.into());
        self.schema = schema;
        self
    }

    /// The question, with the source text of the sub-flow call it is.
    pub fn call(mut self, call: impl Into<String>) -> Self {
        self.call = Some(call.into());
        self
    }
}

/// What kind of question an [`Ask`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AskKind {
    /// A form (`cx.elicit`).
    Form,
    /// A URL to open (`cx.elicit_url`).
    Url,
    /// A sampling request (`cx.sample`).
    Sampling,
    /// A roots request (`cx.list_roots`).
    Roots,
    /// A call of an `#[elicit]` sub-flow, whose own questions are asked under its key. (Not
    /// named `SubFlow`, so that the compiler's messages keep naming
    /// [`SubFlow`](crate::SubFlow) by its short name.)
    #[serde(rename = "sub_flow")]
    SubFlowCall,
}

/// A local that travels in the state from a point.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Carried {
    /// The local's name as written.
    pub name: String,
    /// Its type as written, where the handler writes it; `None` where the compiler infers it.
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
}

impl Carried {
    /// The local `name`, of type `ty` where it is known.
    pub fn new(name: impl Into<String>, ty: Option<String>) -> Self {
        Self {
            name: name.into(),
            ty,
        }
    }
}

/// A way out of a handler.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Exit {
    /// The exit's number: in the order of the body, from 0.
    pub number: u32,
    /// How the handler leaves there.
    pub way: ExitKind,
    /// The source text of the expression it leaves with (shortened): the returned value,
    /// the operand of `?`, the body's last value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Exit {
    /// Exit `number`, leaving by `way`, with the source text of its expression.
    pub fn new(number: u32, way: ExitKind, source: Option<String>) -> Self {
        Self {
            number,
            way,
            source,
        }
    }
}

/// How a handler leaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ExitKind {
    /// A `return`.
    Return,
    /// A `?` on anything but a question's answer: an error leaves early.
    Try,
    /// A `?` on a question's answer: the user declined or cancelled. (Not named `Refusal`,
    /// so that the compiler's messages keep naming [`Refusal`](crate::Refusal) by its short
    /// name.)
    #[serde(rename = "refusal")]
    Refused,
    /// The body's last value.
    Tail,
}

/// A way from one node to the next, reaching no other point on the way.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Edge {
    /// Where it starts.
    pub from: NodeId,
    /// Where it ends.
    pub to: NodeId,
    /// How the handler goes.
    pub kind: EdgeKind,
    /// The conditions taken on the way, as written, shortened; `None` where the way is
    /// taken whatever the conditions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<String>,
}

impl Edge {
    /// An edge of `kind` from `from` to `to`, under `condition` if it has one.
    pub fn new(from: NodeId, to: NodeId, kind: EdgeKind, condition: Option<String>) -> Self {
        Self {
            from,
            to,
            kind,
            condition,
        }
    }
}

/// How an [`Edge`] goes. Where several apply, the first listed here wins: a `loop_back`
/// edge into a sub-flow call is a `loop_back`, and any edge may carry a condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum EdgeKind {
    /// Back to an earlier point of the same loop, for its next turn.
    LoopBack,
    /// Into a sub-flow call.
    Call,
    /// Out of a sub-flow call, with its answer.
    Return,
    /// One way of a condition (`if`, `match`, `while`, `let ... else`, or a `?`).
    Branch,
    /// Straight on.
    Straight,
}

/// The graphs of a server's registered handlers (enabled or not), by kind and key: a tool's
/// or prompt's name, a resource's URI or URI template. Handlers without a graph are left
/// out.
///
/// Serialises (with serde) to the JSON that [`to_json`](Self::to_json) describes.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct FlowGraphs {
    /// The tools' graphs, by name.
    pub tools: BTreeMap<String, &'static FlowGraph>,
    /// The prompts' graphs, by name.
    pub prompts: BTreeMap<String, &'static FlowGraph>,
    /// The resources' graphs, by URI or URI template.
    pub resources: BTreeMap<String, &'static FlowGraph>,
}

impl FlowGraphs {
    /// Whether no handler has a graph.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.resources.is_empty()
    }
}

/// What the macros' graphs are read through: [`flow_graph`](__private::flow_graph), and the
/// probe a handler's table of schemas reads a form's through.
#[doc(hidden)]
pub mod __private {
    use std::marker::PhantomData;

    pub use super::spec::{Schema, graph as flow_graph};

    use crate::form::ElicitForm;

    /// Stands for the type `T` a question's answer is annotated with; its `SCHEMA` is the
    /// form's schema where `T` is a form, and nothing (and no error) where it is not, so that
    /// a handler whose form type is wrong is reported once, where it asks, not again by its
    /// graph. Read as `SchemaProbe::<T>::SCHEMA` with [`SchemaOfAny`] in scope: the inherent
    /// constant is chosen where its bound holds, the trait's where it does not.
    pub struct SchemaProbe<T: ?Sized>(PhantomData<fn() -> Box<T>>);

    impl<T: ElicitForm> SchemaProbe<T> {
        /// `T`'s schema.
        pub const SCHEMA: Schema = Some(T::requested_schema);
    }

    /// Chosen where `T` is no form.
    pub trait SchemaOfAny {
        /// No schema.
        const SCHEMA: Schema = None;
    }

    impl<T: ?Sized> SchemaOfAny for SchemaProbe<T> {}
}
