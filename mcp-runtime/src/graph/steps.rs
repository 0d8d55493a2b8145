//! A macro's graph edges from the steps of its walk. The walk goes through joins: one where a
//! loop starts each turn, and one wherever several ways go on into the same statement. The
//! macro writes those steps, which grow with the handler's body; the edges between nodes,
//! which may grow with the number of ways through it (each `if` after a question is one more
//! way past it), are found here, once, when the graph is first read.
//!
//! Taking a join out makes an edge of each step into it and each step out of it, under both
//! steps' conditions, in that order. Then edges between the same two nodes, of the same kind,
//! become one, under either condition (or none, if either has none).

use serde::Deserialize;

use super::{Edge, EdgeKind, NodeId};

/// The most edges taking the joins out may make before it gives up (a body of many loops one
/// inside another, each entered from many points): the graph then keeps the edges it has.
const MOST: usize = 4096;

/// How long an edge's conditions may be shown, in characters.
const SHOWN: usize = 64;

/// One end of a [`Step`].
#[derive(Clone, Copy, PartialEq, Eq, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum End {
    /// Where a first round begins.
    Start,
    /// A question point, by its number.
    Point(u32),
    /// A way out, by its number.
    Exit(u32),
    /// A join, by its number.
    Join(u32),
}

/// One step of the macro's walk: from, to, whether it goes back to the start of a loop's turn,
/// whether it goes from a loop's join into its next turn, and the conditions taken, as shown.
#[derive(Clone, Debug, Deserialize)]
pub(crate) struct Step(End, End, bool, bool, Vec<String>);

/// A step while the joins are taken out: its conditions grow as steps are joined.
#[derive(Clone, PartialEq, Eq)]
struct Way<'a> {
    from: End,
    to: End,
    back: bool,
    turn: bool,
    conditions: Vec<&'a str>,
}

/// The graph's edges from the walk's `steps`: `sub_points` are the points that call a
/// sub-flow, `branch_exits` the exits a condition leads to (a `?`).
pub(crate) fn edges(steps: &[Step], sub_points: &[u32], branch_exits: &[u32]) -> Vec<Edge> {
    let mut ways: Vec<Way<'_>> = steps
        .iter()
        .map(|Step(from, to, back, turn, conditions)| Way {
            from: *from,
            to: *to,
            back: *back,
            turn: *turn,
            conditions: conditions.iter().map(String::as_str).collect(),
        })
        .collect();
    while let Some(join) = ways.iter().find_map(|way| match way.to {
        End::Join(_) => Some(way.to),
        _ => None,
    }) {
        let (touching, rest): (Vec<Way<'_>>, Vec<Way<'_>>) = ways
            .into_iter()
            .partition(|way| way.from == join || way.to == join);
        ways = rest;
        let into = touching
            .iter()
            .filter(|way| way.to == join && way.from != join);
        let out: Vec<&Way<'_>> = touching
            .iter()
            .filter(|way| way.from == join && way.to != join)
            .collect();
        for before in into {
            for after in &out {
                if ways.len() >= MOST {
                    break;
                }
                let mut conditions = before.conditions.clone();
                conditions.extend(after.conditions.iter().copied());
                let way = Way {
                    from: before.from,
                    to: after.to,
                    // Back to the loop's start, then on into its next turn; not out of it.
                    back: after.back || (before.back && after.turn),
                    turn: before.turn,
                    conditions,
                };
                if !ways.contains(&way) {
                    ways.push(way);
                }
            }
        }
    }
    let mut drawn: Vec<Edge> = Vec::new();
    for way in ways {
        // A join nothing enters leaves ways from it: a loop the body cannot reach.
        let (Some(from), Some(to)) = (node(way.from), node(way.to)) else {
            continue;
        };
        let condition = (!way.conditions.is_empty()).then(|| way.conditions.join(", "));
        let kind = match (from, to) {
            _ if way.back => EdgeKind::LoopBack,
            (_, NodeId::Point(to)) if sub_points.contains(&to) => EdgeKind::Call,
            (NodeId::Point(from), _) if sub_points.contains(&from) => EdgeKind::Return,
            (_, NodeId::Exit(exit)) if branch_exits.contains(&exit) => EdgeKind::Branch,
            _ if condition.is_some() => EdgeKind::Branch,
            _ => EdgeKind::Straight,
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
            None => drawn.push(Edge::new(from, to, kind, condition)),
        }
    }
    // The start's edges first, then each point's, then each exit's, in the nodes' order.
    drawn.sort_by_key(|edge| (rank(edge.from), rank(edge.to)));
    for edge in &mut drawn {
        edge.condition = edge.condition.take().map(|condition| shorten(&condition));
    }
    drawn
}

fn node(end: End) -> Option<NodeId> {
    match end {
        End::Start => Some(NodeId::Start),
        End::Point(n) => Some(NodeId::Point(n)),
        End::Exit(n) => Some(NodeId::Exit(n)),
        End::Join(_) => None,
    }
}

/// Where a node stands in the graph's order of nodes.
fn rank(id: NodeId) -> (u8, u32) {
    match id {
        NodeId::Start => (0, 0),
        NodeId::Point(n) => (1, n),
        NodeId::Exit(n) => (2, n),
    }
}

/// `text` cut to [`SHOWN`] characters, the cut marked with `…`.
fn shorten(text: &str) -> String {
    if text.chars().count() <= SHOWN {
        return text.to_owned();
    }
    let mut short: String = text.chars().take(SHOWN - 1).collect();
    short.truncate(short.trim_end().len());
    short.push('…');
    short
}

#[cfg(test)]
mod tests {
    use super::*;

    fn step(from: End, to: End, back: bool, turn: bool, conditions: &[&str]) -> Step {
        let conditions = conditions.iter().map(|&c| c.to_owned()).collect();
        Step(from, to, back, turn, conditions)
    }

    /// Three `if`s in a row, each with its question, gathered by joins: every point reaches
    /// each later one, past the `if`s between, under their `else`s.
    #[test]
    fn joins_come_out_as_every_way_past_them() {
        let steps = [
            step(End::Start, End::Point(0), false, false, &["a"]),
            step(End::Start, End::Join(0), false, false, &["else"]),
            step(End::Point(0), End::Join(0), false, false, &[]),
            step(End::Join(0), End::Point(1), false, false, &["b"]),
            step(End::Join(0), End::Exit(0), false, false, &["else"]),
            step(End::Point(1), End::Exit(0), false, false, &[]),
        ];
        let edges = edges(&steps, &[], &[]);
        let shown: Vec<(NodeId, NodeId, EdgeKind, Option<&str>)> = edges
            .iter()
            .map(|edge| (edge.from, edge.to, edge.kind, edge.condition.as_deref()))
            .collect();
        assert_eq!(
            shown,
            [
                (NodeId::Start, NodeId::Point(0), EdgeKind::Branch, Some("a")),
                (
                    NodeId::Start,
                    NodeId::Point(1),
                    EdgeKind::Branch,
                    Some("else, b")
                ),
                (
                    NodeId::Start,
                    NodeId::Exit(0),
                    EdgeKind::Branch,
                    Some("else, else")
                ),
                (
                    NodeId::Point(0),
                    NodeId::Point(1),
                    EdgeKind::Branch,
                    Some("b")
                ),
                (
                    NodeId::Point(0),
                    NodeId::Exit(0),
                    EdgeKind::Branch,
                    Some("else")
                ),
                (NodeId::Point(1), NodeId::Exit(0), EdgeKind::Straight, None),
            ]
        );
    }

    /// A loop's join: a step back into it, then on into its next turn, is a loop back; a way
    /// out of the loop is not.
    #[test]
    fn a_turn_through_the_join_is_a_loop_back() {
        let steps = [
            step(End::Start, End::Join(0), false, false, &[]),
            step(End::Join(0), End::Point(0), false, true, &["while go"]),
            step(End::Point(0), End::Join(0), true, false, &[]),
            step(End::Join(0), End::Exit(0), false, false, &[]),
        ];
        let edges = edges(&steps, &[], &[]);
        let back: Vec<(NodeId, NodeId, EdgeKind)> = edges
            .iter()
            .map(|edge| (edge.from, edge.to, edge.kind))
            .collect();
        assert_eq!(
            back,
            [
                (NodeId::Start, NodeId::Point(0), EdgeKind::Branch),
                (NodeId::Start, NodeId::Exit(0), EdgeKind::Straight),
                (NodeId::Point(0), NodeId::Point(0), EdgeKind::LoopBack),
                (NodeId::Point(0), NodeId::Exit(0), EdgeKind::Straight),
            ]
        );
    }

    /// Ways that meet again are one edge under either condition; a long condition is cut.
    #[test]
    fn the_same_way_twice_is_one_edge_and_long_conditions_are_cut() {
        let long = "x".repeat(80);
        let steps = [
            step(End::Start, End::Point(0), false, false, &["a"]),
            step(End::Start, End::Point(0), false, false, &["b"]),
            step(End::Point(0), End::Exit(0), false, false, &[&long]),
        ];
        let edges = edges(&steps, &[], &[0]);
        assert_eq!(edges[0].condition.as_deref(), Some("a or b"));
        let cut = edges[1].condition.as_deref().unwrap_or_default();
        assert_eq!(cut.chars().count(), SHOWN);
        assert!(cut.ends_with('…'));
        assert_eq!(edges[1].kind, EdgeKind::Branch);
    }
}
