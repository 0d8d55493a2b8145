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
//!         let (x,) = if reader.at(2) { (TAKE(slot_x),) } else {
//!             let (y,) = (TAKE(slot_y),);   // only point 1 is left here
//!             let a: A = __mcp_site!().1?; S1; (x,)
//!         };
//!         let (z,) = if !reader.at_any(&[3, 4]) {
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

use std::collections::{BTreeMap, HashMap, HashSet};

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Block, Ident, Local, Stmt};

use super::syntax::block_at;
use super::{Carried, Location, Resumed, Resumer, Stages, at_head, field_name, level_of};
use crate::flow::check::sites::{Site, Step};
use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::plan::straight::{self, BlockLevel, Placement, Within};
use crate::flow::scope::{self, Binding};
use crate::flow::step;

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

impl Resumer<'_> {
    /// The group's block plan, when `here` is the group's block.
    pub(super) fn group_at(&mut self, here: &[Step]) -> Option<Heads> {
        if self.group.as_ref()?.prefix != here {
            return None;
        }
        self.group.take()
    }

    /// The group's block, resumed at any of its points.
    pub(super) fn heads_block(&mut self, block: &Block, heads: &Heads) -> Block {
        straight::heads(block, &heads.levels, self.hoisted, &step::reader())
    }
}

/// Groups the points `placements` puts inside one statement of the body, and resumes each
/// group of two or more together. Each grouped point's carried locals are put in the order
/// the group's arm takes them.
pub(crate) fn group(
    body: &Block,
    stages: Stages<'_>,
    placements: &[Placement],
    resumed: &mut [Resumed],
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
            && !resumed[id].declares
        {
            by_stmt.entry(stmt).or_default().push(id);
        }
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

/// The nest of a group's block, and each of its points' carried locals of that block and
/// deeper, in the order they are taken.
struct Plan {
    heads: Heads,
    orders: HashMap<usize, Vec<Carried>>,
}

struct Planner<'a, 'r> {
    body: Block,
    stages: Stages<'a>,
    resumed: &'r [Resumed],
    /// Whether points inside a block's statements are grouped, or only those at their heads.
    deep: bool,
    /// The number of the next value a resumer of a group's arm restores.
    next_value: usize,
}

impl Planner<'_, '_> {
    /// The group of `points`, inside one statement of the body and standing in the block at
    /// position `at` of their paths, with each point's carried locals in the order its arm
    /// takes them; if it has two points or more, and its arm takes for each point the very
    /// locals its own resume does.
    fn together(
        &mut self,
        placements: &[Placement],
        at: usize,
        points: &[usize],
    ) -> Option<(Group, Vec<Order>)> {
        let Placement::Within { live, .. } = &placements[points[0]] else {
            return None;
        };
        let plan = self.block(at, points)?;
        let mut grouped: Vec<usize> = plan.orders.keys().copied().collect();
        grouped.sort_unstable();
        if grouped.len() < 2 {
            return None;
        }
        let body = self.body.clone();
        let tail = straight::cut_tail(live.as_deref());
        let together = self.resume((&body, tail), &[], grouped[0], Some(plan.heads))?;
        let live_borrowed = live
            .iter()
            .flatten()
            .any(|binding| together.borrowed_again.contains(&binding.ident));
        if live_borrowed {
            return None;
        }
        let mut orders = Vec::new();
        for &id in &grouped {
            let mut order = together.carried.clone();
            order.extend(plan.orders[&id].iter().cloned());
            let mut own: Vec<_> = self.resumed[id].carried.iter().map(key).collect();
            let mut taken: Vec<_> = order.iter().map(key).collect();
            own.sort_unstable();
            taken.sort_unstable();
            if own != taken {
                return None;
            }
            orders.push((id, order));
        }
        let group = Group {
            points: grouped,
            body: together.body,
            carried: together.carried,
        };
        Some((group, orders))
    }

    /// `block` resumed at `site` with `heads` nested at the group's block, its carried
    /// locals given the slots of the site's own resume; if that resume has the same locals
    /// and nothing refused.
    fn resume(
        &mut self,
        (block, tail): Cut<'_>,
        prefix: &[Step],
        site: usize,
        heads: Option<Heads>,
    ) -> Option<Resumed> {
        let mut resumer = Resumer::new(self.stages);
        resumer.group = heads;
        resumer.cut = tail;
        resumer.first_value = self.next_value;
        let mut resumed = resumer.resume_in(block, prefix, site);
        if !resumed.refusals.is_empty() || resumed.declares || !resumed.hidden.is_empty() {
            return None;
        }
        self.next_value += resumed.carried.len();
        let own = &self.resumed[site].carried;
        for carried in &mut resumed.carried {
            carried.slot = own.iter().find(|c| key(c) == key(carried))?.slot;
        }
        Some(resumed)
    }

    /// The nest of the block at position `at` of the paths of `points`, from the points it
    /// can resume: a level for each statement with a point at its head or points inside.
    fn block(&mut self, at: usize, points: &[usize]) -> Option<Plan> {
        let sites = self.stages.sites;
        let prefix = sites[points[0]].path[..at].to_vec();
        let block = block_at(&mut self.body, &prefix)?.clone();
        let level = level_of(&prefix);
        let mut by_stmt: BTreeMap<usize, (Vec<usize>, Vec<usize>)> = BTreeMap::new();
        for &id in points {
            let path = &sites[id].path;
            let Step::Stmt(j) = path[at] else {
                return None;
            };
            if at_head(&path[at + 1..]) {
                by_stmt.entry(j).or_default().0.push(id);
            } else if self.deep {
                by_stmt.entry(j).or_default().1.push(id);
            }
        }
        let first = *by_stmt.keys().next()?;
        if declared_again_after(&block, first, self.stages) {
            return None;
        }
        let mut levels = Vec::new();
        let mut orders = HashMap::new();
        for (j, (heads, deep)) in by_stmt {
            // A statement holds questions at its head or inside, not both (as in the body).
            if let Some(&id) = heads.first() {
                let point = &self.resumed[id];
                // The block's borrows it has again are those the nest runs again after
                // the level before it (see `straight::again_at`).
                let summaries = self
                    .stages
                    .suffixes
                    .of(&prefix, &block, self.stages.questions);
                let lets = self
                    .stages
                    .suffixes
                    .lets(&prefix, &block, self.stages.hoisted);
                let questions = self.stages.questions;
                let again: Vec<Local> = straight::again_at(&block, j, &lets, questions, &summaries)
                    .into_iter()
                    .cloned()
                    .collect();
                let names: Vec<Ident> = again
                    .iter()
                    .flat_map(scope::let_bindings)
                    .map(|binding| binding.ident)
                    .collect();
                let plain = point.head_of.as_ref().is_some_and(|head| {
                    head.level == level
                        && head.plain
                        && head.again.iter().all(|name| names.contains(name))
                });
                if !plain || point.carried.iter().any(|c| c.level > level) {
                    continue;
                }
                let carried: Vec<Carried> = point
                    .carried
                    .iter()
                    .filter(|c| c.level == level)
                    .cloned()
                    .collect();
                orders.insert(id, carried.clone());
                levels.push(BlockLevel::Head {
                    stmt: j,
                    id,
                    carried,
                    again,
                });
                continue;
            }
            let last = j + 1 == block.stmts.len();
            let Some((live, again)) = self.live(&prefix, &block, j) else {
                continue;
            };
            let (live, again) = match last {
                false => (Some(live), again),
                true => (None, Vec::new()),
            };
            let tail = straight::cut_tail(live.as_deref());
            let cut = (&block, tail);
            let mut arms = Within::default();
            for part in split(sites, &deep, at + 1) {
                let (points, plan) = match part {
                    Part::Alone(id) => (vec![id], None),
                    Part::Block { at, points } => match self.block(at, &points) {
                        Some(plan) if plan.orders.len() == points.len() => (points, Some(plan)),
                        _ => {
                            // Each alone, then.
                            for id in points {
                                self.arm(cut.clone(), &prefix, &[id], None, &mut arms, &mut orders);
                            }
                            continue;
                        }
                    },
                };
                self.arm(cut.clone(), &prefix, &points, plan, &mut arms, &mut orders);
            }
            if !arms.arms.is_empty() {
                levels.push(BlockLevel::Within {
                    stmt: j,
                    live,
                    again,
                    points: arms,
                });
            }
        }
        (!levels.is_empty()).then_some(Plan {
            heads: Heads { prefix, levels },
            orders,
        })
    }

    /// The arm of `points` inside one statement of a group's block (`cut` after it), which
    /// resumes a copy of that statement, nested by `plan` where the points are several.
    fn arm(
        &mut self,
        cut: Cut<'_>,
        prefix: &[Step],
        points: &[usize],
        plan: Option<Plan>,
        arms: &mut Within,
        orders: &mut HashMap<usize, Vec<Carried>>,
    ) {
        let (heads, mut deeper) = match plan {
            Some(Plan { heads, orders }) => (Some(heads), orders),
            None => (None, HashMap::new()),
        };
        let Some(resumed) = self.resume(cut, prefix, points[0], heads) else {
            return;
        };
        let takes = resumed.carried.iter().map(|c| {
            let (value, take) = (&c.value, step::take(c.slot));
            quote!(let #value = #take;)
        });
        let body = &resumed.body;
        let arm: TokenStream = quote!(#(#takes)* #body);
        let numbers = points
            .iter()
            .map(|&id| u32::try_from(id).unwrap_or(u32::MAX))
            .collect();
        arms.arms.push((numbers, arm));
        for &id in points {
            let mut order = resumed.carried.clone();
            order.extend(deeper.remove(&id).unwrap_or_default());
            orders.insert(id, order);
        }
    }

    /// The block's locals declared in its statements up to `j` that the statements after it
    /// use, but for its borrows had again after the level, and the `let`s that have those
    /// again (see `straight::live_after`); unless one of the locals is a loop's iterator,
    /// which is rebuilt rather than carried. `block` is the body's at `prefix`.
    fn live(&self, prefix: &[Step], block: &Block, j: usize) -> Option<(Vec<Binding>, Vec<Local>)> {
        let questions = self.stages.questions;
        let summaries = self.stages.suffixes.of(prefix, block, questions);
        let lets = self
            .stages
            .suffixes
            .lets(prefix, block, self.stages.hoisted);
        let (live, again) = straight::live_after(block, j, &lets, questions, &summaries);
        let loops = self.stages.loops;
        let rebuilt = live
            .iter()
            .any(|binding| loops.iter().any(|looped| looped.iter == binding.ident));
        (!rebuilt).then_some((live, again))
    }
}

/// Whether `block` declares a constant local (see `hoist`) at or after statement `first`.
/// Such a local is declared again, not carried, so the nest would have to move it to the
/// block's top, ahead of code that may still mean another local of its name.
fn declared_again_after(block: &Block, first: usize, stages: Stages<'_>) -> bool {
    block
        .stmts
        .iter()
        .skip(first)
        .any(|stmt| matches!(stmt, Stmt::Local(_)) && stages.hoisted.holds(stmt))
}

/// A block cut after one of its statements: the block, and what follows that statement in
/// place of the block's own statements after it (see `straight::cut_tail`).
type Cut<'b> = (&'b Block, Option<Vec<Stmt>>);

/// A grouped point and its carried locals, in the order its group's arm takes them.
type Order = (usize, Vec<Carried>);

/// What tells carried locals apart: the local and its scope.
type Key = (BindingId, usize);

fn key(carried: &Carried) -> Key {
    (carried.local(), carried.level)
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
