//! The `let`s of one block, found once per block and read for each point placed in it: so
//! that placing a point costs the `let`s it has again and the names read after it, not a walk
//! of the statements before it.

use std::collections::{BTreeSet, HashMap};

use syn::{Block, Expr, Local, Stmt};

use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::analyse::reborrow;
use crate::flow::scope::{self, Binding};

/// A block's `let`s, but for those declared again as items (see `hoist`), in order.
pub(crate) struct Lets {
    lets: Vec<Let>,
    /// The `lets` that run again at the body's top level rather than travel.
    again: Vec<usize>,
    /// For each name, the `lets` that bind it, in order.
    by_name: HashMap<String, Vec<usize>>,
    /// The number of the block's statements.
    len: usize,
}

struct Let {
    stmt: usize,
    bindings: Vec<Binding>,
}

impl Lets {
    pub(crate) fn of(block: &Block, hoisted: &Hoisted) -> Self {
        let mut lets = Lets {
            lets: Vec::new(),
            again: Vec::new(),
            by_name: HashMap::new(),
            len: block.stmts.len(),
        };
        for (stmt, written) in block.stmts.iter().enumerate() {
            let Stmt::Local(local) = written else {
                continue;
            };
            if hoisted.holds(written) {
                continue;
            }
            let at = lets.lets.len();
            if reborrow::again(local, hoisted, true) {
                lets.again.push(at);
            }
            let bindings = scope::let_bindings(local);
            for binding in &bindings {
                let named = lets.by_name.entry(binding.ident.to_string()).or_default();
                if named.last() != Some(&at) {
                    named.push(at);
                }
            }
            lets.lets.push(Let { stmt, bindings });
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

    /// The `let`s of `name` among statements `from..end`.
    fn binding(&self, name: &str, from: usize, end: usize) -> &[usize] {
        let Some(named) = self.by_name.get(name) else {
            return &[];
        };
        let start = named.partition_point(|&at| self.lets[at].stmt < from);
        let stop = named.partition_point(|&at| self.lets[at].stmt < end);
        &named[start..stop.max(start)]
    }
}

/// The `let`s among the body's first `k` statements that are had again rather than carried
/// (see `reborrow`) and that statements `k..` use, with those they borrow from that are had
/// again too, in order: as the resumer has them again at a point at the head of statement
/// `k`. They run again after a level that ends before statement `k`, rather than travel out
/// of it in its tuple, which could not hold a borrow of the locals beside it. `summaries` are
/// those of the body's statements (see `free::suffixes`), `lets` its `let`s.
///
/// Walked back from `k`, a `let` is used if it binds a name read after it that no `let` in
/// between binds once that name is read: a name read after `k` from the start, one that a
/// `let` had again reads from the statement of that `let` on.
pub(crate) fn again_at<'b>(
    body: &'b Block,
    k: usize,
    lets: &Lets,
    questions: &HashMap<usize, Expr>,
    summaries: &[free::Summary],
) -> Vec<&'b Local> {
    let k = k.min(body.stmts.len());
    let mut free = summaries[k].free.clone();
    // For a name a `let` had again reads, the statement of that `let`: `let`s after it do
    // not hide the name from those before.
    let mut read_from: HashMap<String, usize> = HashMap::new();
    let mut again = Vec::new();
    let count = lets.again.partition_point(|&at| at < lets.before(k));
    for &at in lets.again[..count].iter().rev() {
        let entry = &lets.lets[at];
        let used = entry.bindings.iter().any(|binding| {
            let name = binding.ident.to_string();
            let end = read_from.get(&name).map_or(k, |&from| from + 1);
            free.contains(&name) && lets.binding(&name, entry.stmt + 1, end).is_empty()
        });
        if !used {
            continue;
        }
        let Stmt::Local(local) = &body.stmts[entry.stmt] else {
            continue;
        };
        for name in free::free_in_stmts(std::slice::from_ref(&body.stmts[entry.stmt]), questions) {
            if !free.contains(&name) {
                read_from.insert(name.clone(), entry.stmt);
                free.insert(name);
            }
        }
        again.push(local);
    }
    again.reverse();
    again
}

/// The last binding of each name `free` holds, but for `skipped`, among the `let`s of the
/// statements up to `k`, in the order of those `let`s.
pub(crate) fn declared_up_to(
    lets: &Lets,
    k: usize,
    free: &BTreeSet<String>,
    skipped: &[String],
) -> Vec<Binding> {
    let mut found: Vec<(usize, usize)> = free
        .iter()
        .filter(|name| !skipped.contains(name))
        .filter_map(|name| {
            let at = *lets.binding(name, 0, k + 1).last()?;
            let binding = lets.lets[at]
                .bindings
                .iter()
                .position(|binding| binding.ident == name)?;
            Some((at, binding))
        })
        .collect();
    found.sort_unstable();
    found
        .into_iter()
        .map(|(at, binding)| lets.lets[at].bindings[binding].clone())
        .collect()
}
