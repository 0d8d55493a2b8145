//! The `let`s of one block, found once per block and read for each point placed in it: so
//! that placing a point costs the `let`s it has again and the bindings read after it, each
//! found by its id, not a walk of the statements before it.

use std::collections::HashMap;

use syn::{Block, Local, Stmt};

use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::analyse::reborrow;
use crate::flow::lower::bindings::{BindingId, Bindings};
use crate::flow::scope::{self, Binding};

/// A block's `let`s, but for those declared again as items (see `hoist`), in order.
pub(crate) struct Lets {
    lets: Vec<Let>,
    /// The `lets` that run again at the body's top level rather than travel.
    again: Vec<usize>,
    /// For each binding, by id, the `let` that binds it.
    by_id: HashMap<BindingId, usize>,
    /// The number of the block's statements.
    len: usize,
}

struct Let {
    stmt: usize,
    bindings: Vec<Binding>,
    /// The id of each of `bindings`.
    ids: Vec<BindingId>,
}

impl Lets {
    pub(crate) fn of(block: &Block, hoisted: &Hoisted, table: &Bindings) -> Self {
        let mut lets = Lets {
            lets: Vec::new(),
            again: Vec::new(),
            by_id: HashMap::new(),
            len: block.stmts.len(),
        };
        for (stmt, written) in block.stmts.iter().enumerate() {
            let Stmt::Local(local) = written else {
                continue;
            };
            if hoisted.holds(written, table) {
                continue;
            }
            let at = lets.lets.len();
            if reborrow::again(local, hoisted, table, true) {
                lets.again.push(at);
            }
            let bindings = scope::let_bindings(local);
            let ids: Vec<BindingId> = bindings.iter().map(|b| table.id(&b.ident)).collect();
            lets.by_id.extend(ids.iter().map(|&id| (id, at)));
            lets.lets.push(Let {
                stmt,
                bindings,
                ids,
            });
        }
        lets
    }

    /// Whether these are the `let`s of `block` (and not of a block cut shorter).
    pub(crate) fn describe(&self, block: &Block) -> bool {
        self.len == block.stmts.len()
    }

    /// How many of `lets` stand before statement `end`.
    fn before(&self, end: usize) -> usize {
        self.lets.partition_point(|entry| entry.stmt < end)
    }

    /// The `let` of binding `id`, if it stands among statements `from..end`.
    fn binding(&self, id: BindingId, from: usize, end: usize) -> Option<usize> {
        let at = *self.by_id.get(&id)?;
        (from..end).contains(&self.lets[at].stmt).then_some(at)
    }
}

/// The `let`s among the body's first `k` statements that are had again rather than carried
/// (see `reborrow`) and that statements `k..` use, with those they borrow from that are had
/// again too, in order: as the resumer has them again at a point at the head of statement
/// `k`. They run again after a level that ends before statement `k`, rather than travel out
/// of it in its tuple, which could not hold a borrow of the locals beside it. `summaries` are
/// those of the body's statements (see `free::suffixes`), `lets` its `let`s.
///
/// Walked back from `k`, a `let` is used if it binds a binding read after it: read after
/// `k`, or read by a `let` had again after it.
pub(crate) fn again_at<'b>(
    body: &'b Block,
    k: usize,
    lets: &Lets,
    lookup: free::Lookup<'_>,
    summaries: &[free::Summary],
) -> Vec<&'b Local> {
    let k = k.min(body.stmts.len());
    let mut free = summaries[k].free.clone();
    let mut again = Vec::new();
    let count = lets.again.partition_point(|&at| at < lets.before(k));
    for &at in lets.again[..count].iter().rev() {
        let entry = &lets.lets[at];
        if !entry.ids.iter().any(|id| free.contains(id)) {
            continue;
        }
        let Stmt::Local(local) = &body.stmts[entry.stmt] else {
            continue;
        };
        free.extend(free::free_in_stmts(
            std::slice::from_ref(&body.stmts[entry.stmt]),
            lookup,
        ));
        again.push(local);
    }
    again.reverse();
    again
}

/// The bindings `free` holds, but for `skipped`, among the `let`s of the statements up to
/// `k`, in the order of those `let`s.
pub(crate) fn declared_up_to(
    lets: &Lets,
    k: usize,
    free: &free::Ids,
    skipped: &[BindingId],
) -> Vec<Binding> {
    let mut found: Vec<(usize, usize)> = free
        .iter()
        .filter(|id| !skipped.contains(id))
        .filter_map(|&id| {
            let at = lets.binding(id, 0, k + 1)?;
            let binding = lets.lets[at].ids.iter().position(|&other| other == id)?;
            Some((at, binding))
        })
        .collect();
    found.sort_unstable();
    found
        .into_iter()
        .map(|(at, binding)| lets.lets[at].bindings[binding].clone())
        .collect()
}
