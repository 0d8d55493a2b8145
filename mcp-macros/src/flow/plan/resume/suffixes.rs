//! What every point resumed in one block shares: the summaries of the runs of its statements,
//! its `let`s and what it declares, found once per block and body.
//!
//! Held in the walk's `stages` (the one record every point shares), and reads it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use syn::Block;

use super::Stages;
use super::prefix::Prefix;
use crate::flow::analyse::free;
use crate::flow::analyse::hoist::Hoisted;
use crate::flow::check::sites::Step;
use crate::flow::lower::bindings::Bindings;
use crate::flow::plan::straight;

/// For each block of one body, by its path, the summaries of the runs of its statements to
/// its end (see `free::suffixes`) and its `let`s (`straight::Lets`): found the first time a
/// point resumed in the block needs them, then shared by every point resumed there, so that
/// each point's resume walks its own statement and not the rest of its block.
#[derive(Default)]
pub(crate) struct Suffixes {
    summaries: RefCell<HashMap<Vec<Step>, Rc<Vec<free::Summary>>>>,
    lets: RefCell<HashMap<Vec<Step>, Rc<straight::Lets>>>,
    prefixes: RefCell<HashMap<PrefixKey, Rc<Prefix>>>,
}

impl Suffixes {
    /// The summaries of `block`, the body's block at `here`.
    pub(super) fn of(
        &self,
        here: &[Step],
        block: &Block,
        lookup: free::Lookup<'_>,
    ) -> Rc<Vec<free::Summary>> {
        if let Some(found) = self.summaries.borrow().get(here)
            && found.len() == block.stmts.len() + 1
        {
            return Rc::clone(found);
        }
        let found = Rc::new(free::suffixes(&block.stmts, lookup));
        self.summaries
            .borrow_mut()
            .insert(here.to_vec(), Rc::clone(&found));
        found
    }

    /// The summaries and `let`s of the body's own block (at the empty path), for placing its
    /// points (`straight::place`) as for resuming them: found once for both.
    pub(crate) fn of_body(
        &self,
        body: &Block,
        stages: &Stages<'_>,
    ) -> (Rc<Vec<free::Summary>>, Rc<straight::Lets>) {
        let lookup = stages.lookup();
        let lets = self.lets(&[], body, stages.hoisted, lookup.bindings);
        (self.of(&[], body, lookup), lets)
    }

    /// What `block`, the body's block at `here`, declares, as a walk reading `stages` has it
    /// again (see `prefix`; at the body's top level when `top`).
    pub(super) fn prefix(
        &self,
        stages: &Stages<'_>,
        block: &Block,
        here: &[Step],
        top: bool,
    ) -> Rc<Prefix> {
        let key = (here.to_vec(), top);
        if let Some(found) = self.prefixes.borrow().get(&key)
            && found.describes(block)
        {
            return Rc::clone(found);
        }
        let found = Rc::new(Prefix::of(stages, block, here, top));
        self.prefixes.borrow_mut().insert(key, Rc::clone(&found));
        found
    }

    /// The `let`s of `block`, the body's block at `here`.
    pub(super) fn lets(
        &self,
        here: &[Step],
        block: &Block,
        hoisted: &Hoisted,
        bindings: &Bindings,
    ) -> Rc<straight::Lets> {
        if let Some(found) = self.lets.borrow().get(here)
            && found.describe(block)
        {
            return Rc::clone(found);
        }
        let found = Rc::new(straight::Lets::of(block, hoisted, bindings));
        self.lets
            .borrow_mut()
            .insert(here.to_vec(), Rc::clone(&found));
        found
    }
}

/// A block's path, and whether it is the body's (see `Position::top`).
type PrefixKey = (Vec<Step>, bool);
