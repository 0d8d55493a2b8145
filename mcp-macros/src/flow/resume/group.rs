//! Points at the heads of one inner block's statements, resumed together: one copy of the
//! block from the first point's statement on, nested as the body is (see `straight`), in
//! place of one copy of the rest of the block per point, so that code grows in proportion to
//! the number of questions in a row inside a construct, not to its square.
//!
//! Input: statement `k` of the body, points 1 and 2 at the heads of its inner block:
//! ```text
//! if c { let a: A = __mcp_site!().1?; S1; let b: B = __mcp_site!().2?; S2 }
//! ```
//! Output: one arm of the start's nest for both (see `straight::within_level`), in place of
//! an arm each:
//! ```text
//! Some(1) | Some(2) => {
//!     OUTER TAKES                     // the locals of blocks around the inner one
//!     { RESTORES; {
//!         ITEMS
//!         let (x,) = if reader.at(2) { (reader.take(&slot_x).await,) } else {
//!             let (y,) = (reader.take(&slot_y).await,);   // only point 1 is left here
//!             let a: A = __mcp_site!().1?; S1; (x,)
//!         };
//!         let b: B = __mcp_site!().2?; S2
//!     } LIVE }
//! }
//! ```
//! Every point of a group carries the same locals of the blocks around the inner one, taken
//! first, and then its own of the inner block, taken at its level; where the points' outer
//! locals differ, each keeps a copy of its own.

use std::collections::{BTreeSet, HashSet};

use syn::Block;

use super::syntax::block_at;
use super::{Carried, Resumed, Resumer, Stages, at_head, field_name};
use crate::flow::settle;
use crate::flow::sites::Step;
use crate::flow::straight::{self, HeadLevel, Placement};

/// What a group's resumer builds at the inner block: a level per point, in statement order.
pub(crate) struct Heads {
    levels: Vec<HeadLevel>,
}

/// Points resumed in one arm.
pub(crate) struct Group {
    pub(crate) points: Vec<usize>,
    /// The statement of the body they stand inside, resumed at any of them.
    pub(crate) body: Block,
    /// The locals of the blocks around the inner one, taken at the arm's top: the first
    /// fields of each point's state.
    pub(crate) carried: Vec<Carried>,
}

impl Resumer<'_> {
    /// The inner block of a group, resumed at any of its points.
    pub(super) fn heads_block(&mut self, block: &Block, heads: &Heads) -> Block {
        straight::heads(block, &heads.levels, self.hoisted, &settle::reader())
    }
}

/// Groups the points `placements` puts inside one statement of the body, at the heads of
/// the statements of one inner block, and resumes each group of two or more together. Each
/// grouped point's carried locals are put in the order the group's arm takes them.
pub(crate) fn group(
    body: &Block,
    stages: Stages<'_>,
    placements: &[Placement],
    resumed: &mut [Resumed],
) -> Vec<Group> {
    // A group's copy nests its block's statements in levels, out of whose scope a hiding
    // `let`'s borrow would not reach the questions after it.
    if stages.aliases.is_some_and(|aliases| !aliases.is_empty()) {
        return Vec::new();
    }
    // By inner block: the path down to it, and its points.
    let mut blocks: Vec<(&[Step], Vec<usize>)> = Vec::new();
    for (id, site) in stages.sites.iter().enumerate() {
        let point = &resumed[id];
        let grouped = matches!(placements[id], Placement::Within { .. })
            && !site.is_sub()
            && !point.declares
            && point.head_of.is_some_and(|head| head.plain);
        let Some(stmt) = site
            .path
            .iter()
            .rposition(|step| matches!(step, Step::Stmt(_)))
        else {
            continue;
        };
        if !grouped || !at_head(&site.path[stmt + 1..]) {
            continue;
        }
        let prefix = &site.path[..stmt];
        match blocks.iter_mut().find(|(path, _)| *path == prefix) {
            Some((_, points)) => points.push(id),
            None => blocks.push((prefix, vec![id])),
        }
    }
    let mut groups = Vec::new();
    for (prefix, points) in blocks {
        let stmt_of = |id: usize| match stages.sites[id].path[prefix.len()] {
            Step::Stmt(i) => i,
            _ => usize::MAX,
        };
        // The points of one block that carry the same locals of the blocks around it.
        let mut alike: Vec<(BTreeSet<Key>, Vec<usize>)> = Vec::new();
        for id in points {
            let outer = outer_keys(&resumed[id]);
            match alike.iter_mut().find(|(keys, _)| *keys == outer) {
                Some((_, same)) => same.push(id),
                None => alike.push((outer, vec![id])),
            }
        }
        for (_, mut points) in alike {
            if points.len() < 2 {
                continue;
            }
            points.sort_by_key(|&id| (stmt_of(id), id));
            if declared_again_after(body, prefix, stmt_of(points[0]), stages) {
                continue;
            }
            if let Some(group) =
                resume_together(body, stages, placements, resumed, &points, stmt_of)
            {
                groups.push(group);
            }
        }
    }
    groups
}

/// Whether the inner block at `prefix` declares a constant local (see `hoist`) at or after
/// statement `first`. Such a local is declared again, not carried, so the nest would have to
/// move it to the block's top, ahead of code that may still mean another local of its name.
fn declared_again_after(body: &Block, prefix: &[Step], first: usize, stages: Stages<'_>) -> bool {
    let mut body = body.clone();
    block_at(&mut body, prefix).is_none_or(|block| {
        block
            .stmts
            .iter()
            .skip(first)
            .any(|stmt| matches!(stmt, syn::Stmt::Local(_)) && stages.hoisted.holds(stmt))
    })
}

/// What tells carried locals apart: the local and its scope.
type Key = (String, usize);

fn key(carried: &Carried) -> Key {
    (carried.local(), carried.level)
}

/// The locals a point carries of the blocks around its own.
fn outer_keys(point: &Resumed) -> BTreeSet<Key> {
    let level = point.head_of.map_or(0, |head| head.level);
    point
        .carried
        .iter()
        .filter(|c| c.level < level)
        .map(key)
        .collect()
}

/// The group of `points` (in statement order), if they carry the same outer locals.
fn resume_together(
    body: &Block,
    stages: Stages<'_>,
    placements: &[Placement],
    resumed: &mut [Resumed],
    points: &[usize],
    stmt_of: impl Fn(usize) -> usize,
) -> Option<Group> {
    let Placement::Within { stmt, live } = &placements[points[0]] else {
        return None;
    };
    let level = resumed[points[0]].head_of?.level;
    let levels = points
        .iter()
        .map(|&id| HeadLevel {
            stmt: stmt_of(id),
            id,
            carried: resumed[id]
                .carried
                .iter()
                .filter(|c| c.level == level)
                .cloned()
                .collect(),
        })
        .collect();
    let mut errors = crate::errors::Errors::default();
    let mut reported = HashSet::new();
    let mut resumer = Resumer::new(stages, &mut errors, &mut reported);
    resumer.group = Some(Heads { levels });
    let together = resumer.resume(&straight::cut(body, *stmt, live.as_deref()), points[0]);
    let live_borrowed = live
        .iter()
        .flatten()
        .any(|binding| together.borrowed_again.contains(&binding.ident));
    if errors.finish().is_err() || together.declares || live_borrowed {
        return None;
    }
    let outer: BTreeSet<Key> = together.carried.iter().map(key).collect();
    let same = points.iter().all(|&id| {
        let point = &resumed[id];
        point.head_of.is_some_and(|head| head.level == level)
            && point.carried.iter().all(|c| c.level <= level)
            && outer == outer_keys(point)
    });
    if !same {
        return None;
    }
    // The slots were numbered by local; the group's outer locals are the points' own.
    let mut carried = together.carried;
    for outer in &mut carried {
        let own = resumed[points[0]]
            .carried
            .iter()
            .find(|c| key(c) == key(outer))?;
        outer.slot = own.slot;
    }
    for &id in points {
        let point = &mut resumed[id];
        let inner = point.carried.drain(..).filter(|c| c.level == level);
        let mut ordered = carried.clone();
        ordered.extend(inner);
        name_fields(&mut ordered);
        point.carried = ordered;
    }
    Some(Group {
        points: points.to_vec(),
        body: together.body,
        carried,
    })
}

/// Names each carried local's field after the local, unique within the list.
fn name_fields(carried: &mut [Carried]) {
    let mut taken = HashSet::new();
    for c in carried {
        c.field = field_name(&c.ident, |name| taken.contains(name));
        taken.insert(c.field.to_string());
    }
}
