//! Points inside one statement of the body, resumed together in one arm of the start's nest:
//! one copy of the deepest block they all stand in, nested as the body is (see `straight`),
//! in place of one copy of the rest of that block per point, so that code grows in proportion
//! to the number of questions inside a construct, not to its square.
//!
//! Input: statement `k` of the body, points 1 and 2 at the heads of its loop's statements,
//! points 3 and 4 inside its third:
//! ```text
//! loop { let a: A = __mcp_site!().1?; S1; let b: B = __mcp_site!().2?;
//!        if c { __mcp_site!().3?; } else { __mcp_site!().4?; } S2 }
//! ```
//! Output: one arm of the start's nest for all four (see `straight::within_level`), in place
//! of an arm each:
//! ```text
//! Some(1) | Some(2) | Some(3) | Some(4) => {
//!     OUTER TAKES                     // the locals of blocks around the loop's body
//!     { RESTORES; 'loop: { 'rest: {     // the rest of the iteration stopped in, once
//!         ITEMS
//!         let x = if reader.at == 2 { TAKE(slot_x) } else {
//!             let (y,) = (TAKE(slot_y),);   // only point 1 is left here
//!             let a: A = __mcp_site!().1?; S1; x
//!         };
//!         let (z,) = if !matches!(reader.at, 3 | 4) {
//!             let b: B = __mcp_site!().2?; if c { .. } else { .. } (z,)
//!         } else {
//!             match reader.point() {
//!                 Some(3) => { TAKES; { RESTORES; { __mcp_site!().3?; } (z,) } }
//!                 _ => { TAKES; { RESTORES; { __mcp_site!().4?; } (z,) } }
//!             }
//!         };
//!         S2
//!     } loop { BODY } } LIVE }            // then the loop as written (see `looped`)
//! }
//! ```
//! A point at the head of a statement takes the block's locals at its level; the points
//! inside a statement each resume a copy of that statement alone, taking the block's locals
//! and those deeper, or, when several stand in one deeper block, share one such copy whose
//! block nests the same way. Every point of a group carries the same locals of the blocks
//! around the group's block, taken first; where the points' locals differ from what the
//! group would take (one moved between two questions), the group is not made.
//!
//! The walk's records: a group's planner writes `asked` (`group/planner.rs`); the group's
//! block reads `stages` and takes `asked`'s `group`.

use std::collections::{BTreeMap, HashSet};

use syn::Block;

use super::{Asked, Carried, Location, Resumed, Resumer, Stages, field_name};
use crate::flow::check::sites::{Site, Step};
use crate::flow::lower::bindings::Bindings;
use crate::flow::plan::straight::{self, BlockLevel, Placement};
use crate::flow::step;

mod planner;
use planner::Planner;

/// What a group's resumer builds at the group's block.
pub(crate) struct Heads {
    /// The path to the block.
    prefix: Vec<Step>,
    levels: Vec<BlockLevel>,
}

/// Points resumed in one arm.
pub(crate) struct Group {
    pub(crate) points: Vec<usize>,
    /// The statement of the body they stand inside, resumed at any of them.
    pub(crate) body: Block,
    /// The locals of the blocks around the group's block, taken at the arm's top: the first
    /// fields of each point's state.
    pub(crate) carried: Vec<Carried>,
}

impl Asked {
    /// The group's block plan, when `here` is the group's block.
    pub(super) fn group_at(&mut self, here: &[Step]) -> Option<Heads> {
        if self.group.as_ref()?.prefix != here {
            return None;
        }
        self.group.take()
    }
}

impl Resumer<'_> {
    /// The group's block, resumed at any of its points.
    pub(super) fn heads_block(&self, block: &Block, heads: &Heads) -> Block {
        straight::heads(
            block,
            &heads.levels,
            (self.stages.hoisted, self.stages.bindings),
            &step::reader(),
        )
    }
}

/// Groups the points `placements` puts inside one statement of the body, but for those
/// resumed `in_place`, and resumes each group of two or more together. Each grouped point's
/// carried locals are put in the order the group's arm takes them.
pub(crate) fn group(
    body: &Block,
    stages: Stages<'_>,
    placements: &[Placement],
    resumed: &mut [Resumed],
    in_place: &HashSet<usize>,
) -> Vec<Group> {
    // A group's copy nests its block's statements in levels, out of whose scope a hiding
    // `let`'s borrow would not reach the questions after it: no group is made inside a
    // statement of the body that holds a hider.
    let hides = |k: usize| {
        stages.aliases.is_some_and(|aliases| {
            aliases.keys().any(|at| match at {
                Location::Let { block, stmt } => block
                    .first()
                    .map_or(*stmt == k, |step| *step == Step::Stmt(k)),
                Location::Construct(path) => path.first() == Some(&Step::Stmt(k)),
            })
        })
    };
    let mut by_stmt: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (id, site) in stages.sites.iter().enumerate() {
        if let Placement::Within { stmt, .. } = placements[id]
            && !hides(stmt)
            && !site.is_sub()
            && !in_place.contains(&id)
            && !resumed[id].declares
        {
            by_stmt.entry(stmt).or_default().push(id);
        }
    }
    if by_stmt.is_empty() {
        // No statement holds points to group: no copy of the body to plan them in.
        return Vec::new();
    }
    let mut planner = Planner {
        body: body.clone(),
        stages,
        resumed,
        deep: true,
        next_value: 0,
    };
    let mut groups = Vec::new();
    let mut orders = Vec::new();
    for points in by_stmt.values() {
        for part in split(stages.sites, points, 1) {
            let Part::Block { at, points } = part else {
                continue;
            };
            planner.deep = true;
            if let Some(made) = planner.together(placements, at, &points) {
                groups.push(made.0);
                orders.push(made.1);
                continue;
            }
            // Failing that, the points at the heads of each innermost block's statements.
            planner.deep = false;
            let mut innermost: Vec<(usize, Vec<usize>)> = Vec::new();
            for &id in &points {
                let path = &stages.sites[id].path;
                let Some(at) = path.iter().rposition(|step| matches!(step, Step::Stmt(_))) else {
                    continue;
                };
                match innermost.iter_mut().find(|(other, same)| {
                    *other == at && stages.sites[same[0]].path[..at] == path[..at]
                }) {
                    Some((_, same)) => same.push(id),
                    None => innermost.push((at, vec![id])),
                }
            }
            for (at, points) in innermost {
                if let Some(made) = planner.together(placements, at, &points) {
                    groups.push(made.0);
                    orders.push(made.1);
                }
            }
        }
    }
    for order in orders {
        for (id, mut carried) in order {
            name_fields(&mut carried, stages.bindings);
            resumed[id].carried = carried;
        }
    }
    groups
}

/// Points whose paths agree up to a position, split by the deepest block each part stands in.
enum Part {
    /// A point alone.
    Alone(usize),
    /// Points all inside the block whose statement step is at `at` in their paths.
    Block { at: usize, points: Vec<usize> },
}

/// `points`, split into parts that each stand in one block, found at or past position `from`
/// of their paths: the deepest block they all stand in, or where they part (in the two
/// branches of an `if`, two arms of a `match`), the parts of each side.
fn split(sites: &[Site], points: &[usize], from: usize) -> Vec<Part> {
    if let [] | [_] = points {
        return points.iter().map(|&id| Part::Alone(id)).collect();
    }
    let paths: Vec<&[Step]> = points.iter().map(|&id| &sites[id].path[..]).collect();
    let common = (0..)
        .take_while(|&n| {
            paths
                .iter()
                .all(|path| path.get(n).is_some() && path[n] == paths[0][n])
        })
        .count();
    let stmt_at = |n: usize| {
        paths
            .iter()
            .all(|path| matches!(path.get(n), Some(Step::Stmt(_))))
    };
    if let Some(at) = (from..=common).rev().find(|&n| stmt_at(n)) {
        return vec![Part::Block {
            at,
            points: points.to_vec(),
        }];
    }
    let mut sides: Vec<(&Step, Vec<usize>)> = Vec::new();
    for (&id, path) in points.iter().zip(&paths) {
        let Some(step) = path.get(common) else {
            return points.iter().map(|&id| Part::Alone(id)).collect();
        };
        match sides.iter_mut().find(|(other, _)| *other == step) {
            Some((_, same)) => same.push(id),
            None => sides.push((step, vec![id])),
        }
    }
    sides
        .into_iter()
        .flat_map(|(_, points)| split(sites, &points, from))
        .collect()
}

/// Names each carried local's field after the local as the user wrote it, unique within the
/// list.
fn name_fields(carried: &mut [Carried], bindings: &Bindings) {
    let mut taken = HashSet::new();
    for c in carried {
        c.field = field_name(&bindings.shown_name(&c.ident), |name| taken.contains(name));
        taken.insert(c.field.to_string());
    }
}
