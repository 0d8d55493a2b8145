//! The walk's edges made the graph's: each loop's join taken out (an edge into it and one out
//! of it make one edge, a back edge if it goes back into a turn of the loop), edges between the same two nodes made one
//! (under either condition), and each given its kind.

use super::text;
use super::walk::{Edge, Id};

/// The most edges the joins may make before the walk gives up drawing (a body of many loops
/// one inside another, each entered from many points): the graph then keeps the edges it has.
const MOST: usize = 4096;

/// How an edge goes, as `mcp_runtime::graph::EdgeKind` names it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    LoopBack,
    Call,
    Return,
    Branch,
    Straight,
}

/// A node of the graph: the walk's, but for the joins.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum End {
    Start,
    Point(usize),
    Exit(usize),
}

impl End {
    fn of(id: Id) -> Option<Self> {
        match id {
            Id::Start => Some(Self::Start),
            Id::Point(n) => Some(Self::Point(n)),
            Id::Exit(n) => Some(Self::Exit(n)),
            Id::Join(_) => None,
        }
    }

    /// Where the node stands in the graph's order of nodes.
    fn rank(self) -> (u8, usize) {
        match self {
            Self::Start => (0, 0),
            Self::Point(n) => (1, n),
            Self::Exit(n) => (2, n),
        }
    }
}

/// One edge of the graph: its ends, its kind, its conditions as shown.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Drawn {
    pub(super) from: End,
    pub(super) to: End,
    pub(super) kind: Kind,
    pub(super) condition: Option<String>,
}

/// The graph's edges from the walk's; `sub` tells which points are sub-flow calls, `branch`
/// which exits a condition leads to (a `?`).
pub(super) fn finish(
    mut edges: Vec<Edge>,
    sub: &dyn Fn(usize) -> bool,
    branch: &dyn Fn(usize) -> bool,
) -> Vec<Drawn> {
    while let Some(join) = edges.iter().find_map(|edge| match edge.to {
        Id::Join(_) => Some(edge.to),
        _ => None,
    }) {
        let (touching, rest): (Vec<Edge>, Vec<Edge>) = edges
            .into_iter()
            .partition(|edge| edge.from == join || edge.to == join);
        edges = rest;
        let into = touching
            .iter()
            .filter(|edge| edge.to == join && edge.from != join);
        let out: Vec<&Edge> = touching
            .iter()
            .filter(|edge| edge.from == join && edge.to != join)
            .collect();
        for before in into {
            for after in &out {
                if edges.len() >= MOST {
                    break;
                }
                let mut conditions = before.conditions.clone();
                conditions.extend(after.conditions.iter().cloned());
                let edge = Edge {
                    from: before.from,
                    to: after.to,
                    // Back to the loop's start, then on into its next turn; not out of it.
                    back: after.back || (before.back && after.turn),
                    turn: before.turn,
                    conditions,
                };
                if !edges.contains(&edge) {
                    edges.push(edge);
                }
            }
        }
    }
    let mut drawn: Vec<Drawn> = Vec::new();
    for edge in edges {
        // A join nothing enters leaves edges from it: a loop the body cannot reach.
        let (Some(from), Some(to)) = (End::of(edge.from), End::of(edge.to)) else {
            continue;
        };
        let condition = (!edge.conditions.is_empty()).then(|| edge.conditions.join(", "));
        let kind = match (from, to) {
            _ if edge.back => Kind::LoopBack,
            (_, End::Point(to)) if sub(to) => Kind::Call,
            (End::Point(from), _) if sub(from) => Kind::Return,
            (_, End::Exit(exit)) if branch(exit) => Kind::Branch,
            _ if condition.is_some() => Kind::Branch,
            _ => Kind::Straight,
        };
        let same = drawn
            .iter_mut()
            .find(|other| (other.from, other.to, other.kind) == (from, to, kind));
        match same {
            // Either way leads there: the edge is under either condition, or none.
            Some(same) => {
                same.condition = match (same.condition.take(), condition) {
                    (Some(one), Some(other)) if one != other => Some(format!("{one} or {other}")),
                    (Some(one), Some(_)) => Some(one),
                    _ => None,
                };
            }
            None => drawn.push(Drawn {
                from,
                to,
                kind,
                condition,
            }),
        }
    }
    // The start's edges first, then each point's, then each exit's, in the nodes' order.
    drawn.sort_by_key(|edge| (edge.from.rank(), edge.to.rank()));
    for edge in &mut drawn {
        edge.condition = edge
            .condition
            .take()
            .map(|condition| text::shorten(&condition, text::SHORT + 16));
    }
    drawn
}
