//! The JSON form of flow graphs, versioned.

use serde::ser::{Serialize, SerializeStruct, Serializer};
use serde_json::Value;

use super::{FlowGraph, FlowGraphs};

/// The version of the JSON format, written as its `"version"` field. It changes when a field
/// changes meaning or goes; new fields may appear without a change.
pub const VERSION: u32 = 1;

impl FlowGraph {
    /// The graph as JSON, version [`VERSION`]:
    ///
    /// ```text
    /// {
    ///   "version": 1,
    ///   "nodes": [
    ///     { "kind": "start" },
    ///     { "kind": "point", "number": 0, "keys": ["target"], "in_loop": false,
    ///       "questions": [{ "key": "target", "kind": "form", "message": "\"Where?\"",
    ///                       "form_type": "Target", "schema": { "type": "object", ... } }],
    ///       "carried": [{ "name": "service", "type": "String" }] },
    ///     { "kind": "exit", "number": 0, "way": "refusal" },
    ///     { "kind": "exit", "number": 1, "way": "tail", "source": "Ok(text(\"Done.\"))" }
    ///   ],
    ///   "edges": [
    ///     { "from": "start", "to": { "point": 0 }, "kind": "straight" },
    ///     { "from": { "point": 0 }, "to": { "exit": 0 }, "kind": "branch" },
    ///     { "from": { "point": 0 }, "to": { "exit": 1 }, "kind": "branch",
    ///       "condition": "target.replicas > 1" }
    ///   ]
    /// }
    /// ```
    ///
    /// - A node's `kind` is `start`, `point` or `exit`. A point has its `number` (the one a
    ///   round's state names), its `keys`, its `questions`, `in_loop`, and the locals
    ///   `carried` from it. An exit has its `number`, its `way` (`return`, `try`, `refusal`,
    ///   `tail`) and the `source` of the expression it leaves with, if any.
    /// - A question's `kind` is `form`, `url`, `sampling`, `roots` or `sub_flow`; `message`,
    ///   `form_type`, `schema` (the form's `requestedSchema`) and `call` (a sub-flow call's
    ///   source) appear only where known.
    /// - An edge joins `from` and `to`, each `"start"`, `{"point": n}` or `{"exit": n}`.
    ///   Its `kind` is `loop_back`, `call`, `return`, `branch` or `straight` (see
    ///   [`EdgeKind`](super::EdgeKind)); `condition` appears where the way depends on one.
    /// - A carried local's `type` appears where the handler writes it.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for FlowGraph {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut graph = serializer.serialize_struct("FlowGraph", 3)?;
        graph.serialize_field("version", &VERSION)?;
        graph.serialize_field("nodes", &self.nodes)?;
        graph.serialize_field("edges", &self.edges)?;
        graph.end()
    }
}

impl FlowGraphs {
    /// The graphs as JSON, version [`VERSION`]: `{"version": 1, "tools": {NAME: GRAPH},
    /// "prompts": {NAME: GRAPH}, "resources": {URI: GRAPH}}`, each `GRAPH` as
    /// [`FlowGraph::to_json`] writes it, keys in order.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

impl Serialize for FlowGraphs {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut graphs = serializer.serialize_struct("FlowGraphs", 4)?;
        graphs.serialize_field("version", &VERSION)?;
        graphs.serialize_field("tools", &self.tools)?;
        graphs.serialize_field("prompts", &self.prompts)?;
        graphs.serialize_field("resources", &self.resources)?;
        graphs.end()
    }
}
