//! The plan of a group: which of its points each level of the group's block resumes, and in
//! what order each point's arm takes its carried locals; tried deepest first (see `group`).
//!
//! Of the walk's records, writes `asked` for each resumer of a group's arm.

use std::collections::{BTreeMap, HashMap};

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Block, Local, Stmt};

use super::super::syntax::block_at;
use super::super::{Asked, Carried, Resumed, Resumer, Stages, at_head, level_of};
use super::{Group, Heads, Part, split};
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::BindingId;
use crate::flow::plan::straight::{self, BlockLevel, Placement, Within};
use crate::flow::scope::{self, Binding};
use crate::flow::step;

/// The nest of a group's block, and each of its points' carried locals of that block and
/// deeper, in the order they are taken.
struct Plan {
    heads: Heads,
    orders: HashMap<usize, Vec<Carried>>,
}

pub(super) struct Planner<'a, 'r> {
    pub(super) body: Block,
    pub(super) stages: Stages<'a>,
    pub(super) resumed: &'r [Resumed],
    /// Whether points inside a block's statements are grouped, or only those at their heads.
    pub(super) deep: bool,
    /// The number of the next value a resumer of a group's arm restores.
    pub(super) next_value: usize,
}

impl Planner<'_, '_> {
    /// The group of `points`, inside one statement of the body and standing in the block at
    /// position `at` of their paths, with each point's carried locals in the order its arm
    /// takes them; if it has two points or more, and its arm takes for each point the very
    /// locals its own resume does.
    pub(super) fn together(
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
        let bindings = self.stages.bindings;
        let borrowed: Vec<_> = (together.borrowed_again.iter())
            .map(|ident| bindings.id(ident))
            .collect();
        let live_borrowed = live
            .iter()
            .flatten()
            .any(|binding| borrowed.contains(&bindings.id(&binding.ident)));
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
        resumer.asked = Asked {
            cut: tail,
            locals_only: false,
            group: heads,
            first_value: self.next_value,
        };
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
                let lookup = self.stages.lookup();
                let summaries = self.stages.suffixes.of(&prefix, &block, lookup);
                let lets = self.stages.suffixes.lets(
                    &prefix,
                    &block,
                    self.stages.hoisted,
                    lookup.bindings,
                );
                let again: Vec<Local> = straight::again_at(&block, j, &lets, lookup, &summaries)
                    .into_iter()
                    .cloned()
                    .collect();
                let ids: Vec<_> = again
                    .iter()
                    .flat_map(scope::let_bindings)
                    .map(|binding| lookup.bindings.id(&binding.ident))
                    .collect();
                let plain = point.head_of.as_ref().is_some_and(|head| {
                    head.level == level
                        && head.plain
                        && (head.again.iter()).all(|name| ids.contains(&lookup.bindings.id(name)))
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
        let numbers = step::numbers(points);
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
        let lookup = self.stages.lookup();
        let summaries = self.stages.suffixes.of(prefix, block, lookup);
        let lets = (self.stages.suffixes).lets(prefix, block, self.stages.hoisted, lookup.bindings);
        let (live, again) = straight::live_after(block, j, &lets, lookup, &summaries);
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
        .any(|stmt| matches!(stmt, Stmt::Local(_)) && stages.hoisted.holds(stmt, stages.bindings))
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
