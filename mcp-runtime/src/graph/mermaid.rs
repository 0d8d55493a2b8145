//! The Mermaid `flowchart` form of flow graphs.

use std::fmt::Write as _;

use super::{Ask, AskKind, EdgeKind, Exit, ExitKind, FlowGraph, FlowGraphs, Node, NodeId, Point};

impl FlowGraph {
    /// The graph as a Mermaid `flowchart`, top to bottom:
    ///
    /// - the start and the exits are rounded (`start(["start"])`, `x0(["refused"])`);
    /// - a point is a box, `p0`, titled with its number and the keys and kinds of its
    ///   questions, then each form question's message, then the locals it carries; a
    ///   sub-flow call is a subroutine box (`p1[["..."]]`), and a point in a loop says so;
    /// - a straight edge is `-->`, a branch `-->|"condition"|`, a loop's back edge `-.->`,
    ///   a sub-flow's call and return `==>`.
    ///
    /// Labels are quoted, with `"`, `<`, `>`, `&` and `#` written as Mermaid entities, so that any
    /// source text shows as written.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        self.write_mermaid(&mut out, "", "    ");
        out
    }

    /// Writes the nodes then the edges, each line indented by `indent`, ids prefixed by
    /// `prefix`.
    fn write_mermaid(&self, out: &mut String, prefix: &str, indent: &str) {
        for node in &self.nodes {
            let id = mermaid_id(prefix, node.id());
            let _ = match node {
                Node::Start => writeln!(out, "{indent}{id}([\"start\"])"),
                Node::Point(point) if point.is_sub_flow() => {
                    writeln!(out, "{indent}{id}[[\"{}\"]]", point_label(point))
                }
                Node::Point(point) => writeln!(out, "{indent}{id}[\"{}\"]", point_label(point)),
                Node::Exit(exit) => writeln!(out, "{indent}{id}([\"{}\"])", exit_label(exit)),
            };
        }
        for edge in &self.edges {
            let (from, to) = (mermaid_id(prefix, edge.from), mermaid_id(prefix, edge.to));
            let arrow = match edge.kind {
                EdgeKind::LoopBack => "-.->",
                EdgeKind::Call | EdgeKind::Return => "==>",
                EdgeKind::Branch | EdgeKind::Straight => "-->",
            };
            let label = edge
                .condition
                .as_deref()
                .map(|condition| format!("|\"{}\"|", escape(condition)))
                .unwrap_or_default();
            let _ = writeln!(out, "{indent}{from} {arrow}{label} {to}");
        }
    }
}

impl FlowGraphs {
    /// The graphs as one Mermaid `flowchart`: one subgraph per handler, titled with its
    /// kind and key (`tool deploy`), its ids prefixed so that no two handlers share one.
    pub fn to_mermaid(&self) -> String {
        let mut out = String::from("flowchart TD\n");
        let kinds = [
            ("tool", &self.tools),
            ("prompt", &self.prompts),
            ("resource", &self.resources),
        ];
        let mut n = 0;
        for (kind, graphs) in kinds {
            for (key, graph) in graphs {
                let prefix = format!("g{n}_");
                let _ = writeln!(out, "    subgraph g{n}[\"{kind} {}\"]", escape(key));
                graph.write_mermaid(&mut out, &prefix, "        ");
                out.push_str("    end\n");
                n += 1;
            }
        }
        out
    }
}

fn mermaid_id(prefix: &str, id: NodeId) -> String {
    match id {
        NodeId::Start => format!("{prefix}start"),
        NodeId::Point(n) => format!("{prefix}p{n}"),
        NodeId::Exit(n) => format!("{prefix}x{n}"),
    }
}

fn point_label(point: &Point) -> String {
    let asks: Vec<String> = point.questions.iter().map(ask_title).collect();
    let mut lines = vec![format!("{}: {}", point.number, asks.join(", "))];
    for ask in &point.questions {
        if let Some(message) = &ask.message {
            lines.push(message.clone());
        }
    }
    if point.in_loop {
        lines.push("in a loop".to_owned());
    }
    if !point.carried.is_empty() {
        let names: Vec<&str> = point.carried.iter().map(|c| c.name.as_str()).collect();
        lines.push(format!("carries {}", names.join(", ")));
    }
    let lines: Vec<String> = lines.iter().map(|line| escape(line)).collect();
    lines.join("<br/>")
}

fn ask_title(ask: &Ask) -> String {
    let key = &ask.key;
    match (ask.kind, &ask.form_type, &ask.call) {
        (AskKind::Form, Some(ty), _) => format!("{key}, form {ty}"),
        (AskKind::Form, None, _) => format!("{key}, form"),
        (AskKind::Url, ..) => format!("{key}, URL"),
        (AskKind::Sampling, ..) => format!("{key}, sampling"),
        (AskKind::Roots, ..) => format!("{key}, roots"),
        (AskKind::SubFlowCall, _, Some(call)) => format!("{key}, sub-flow {call}"),
        (AskKind::SubFlowCall, _, None) => format!("{key}, sub-flow"),
    }
}

fn exit_label(exit: &Exit) -> String {
    let way = match exit.way {
        ExitKind::Return => "return",
        ExitKind::Try => "error",
        ExitKind::Refused => "refused",
        ExitKind::Tail => "end",
    };
    match (&exit.source, exit.way) {
        (Some(source), ExitKind::Return | ExitKind::Tail) => escape(&format!("{way}: {source}")),
        _ => way.to_owned(),
    }
}

/// `text` as a quoted Mermaid label shows it: quotes and angle brackets as entities, so
/// that no text ends the label or reads as markup.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#amp;"),
            c => out.push(c),
        }
    }
    out
}
