//! The turns of a loop, and where a `break` or `continue` goes.

use syn::{Block, Expr, Pat};

use super::super::text;
use super::{Entry, Frontier, Target, Walk, with};

impl Walk<'_> {
    /// A `loop` (no `condition`) or a `while`; a rewritten `for` loop is shown as written.
    pub(super) fn looped(
        &mut self,
        label: Option<&syn::Label>,
        condition: Option<&Expr>,
        body: &Block,
        frontier: Frontier,
    ) -> Frontier {
        let shown = condition.map(|condition| match self.rewritten_for(condition) {
            Some(shown) => shown,
            None => format!("while {}", text::expr(condition, self.source, text::SHORT)),
        });
        let shown = shown.map(|shown| text::shorten(&shown, text::SHORT));
        self.turns(label, shown, condition, body, frontier)
    }

    /// The turns of a loop: from its join (where `frontier` enters), its `condition`, then its
    /// body under the condition `shown`, back to the join; out by its `break`s, and, where it
    /// has a condition or iterates, where that ends it.
    pub(super) fn turns(
        &mut self,
        label: Option<&syn::Label>,
        shown: Option<String>,
        condition: Option<&Expr>,
        body: &Block,
        frontier: Frontier,
    ) -> Frontier {
        let join = self.join();
        self.edges_to(&frontier, join, false);
        self.targets.push(Target {
            label: label.map(|label| label.name.ident.to_string()),
            join: Some(join),
            breaks: Vec::new(),
        });
        self.depth += 1;
        let mut turn = vec![Entry {
            from: join,
            conditions: Vec::new(),
            turn: true,
        }];
        if let Some(condition) = condition {
            turn = self.expr(condition, turn);
        }
        let ends = shown.is_some();
        let into_body = match shown {
            Some(shown) => with(&turn, shown),
            None => turn.clone(),
        };
        let end = self.block(body, into_body);
        self.edges_to(&end, join, true);
        self.depth -= 1;
        let breaks = self.targets.pop().map(|target| target.breaks);
        let mut out = if ends { turn } else { Vec::new() };
        out.extend(breaks.unwrap_or_default());
        // Out of the loop: no longer into its turn.
        for entry in &mut out {
            entry.turn = false;
        }
        out
    }

    /// `for PAT in EXPR`, where `condition` is the `let` a `for` loop was rewritten to.
    fn rewritten_for(&self, condition: &Expr) -> Option<String> {
        let Expr::Let(binding) = condition else {
            return None;
        };
        let Expr::Call(next) = &*binding.expr else {
            return None;
        };
        let Some(Expr::Reference(walker)) = next.args.first() else {
            return None;
        };
        let Expr::Path(walker) = &*walker.expr else {
            return None;
        };
        let collection = self.collection(walker.path.get_ident()?)?;
        let Pat::TupleStruct(some) = &*binding.pat else {
            return None;
        };
        let item = some.elems.first()?;
        Some(format!(
            "for {} in {}",
            text::pat(item, self.source),
            text::expr(collection, self.source, text::SHORT)
        ))
    }

    /// Where a `break` or `continue` labelled `label` goes; unlabelled, the innermost loop.
    pub(super) fn target(&mut self, label: Option<&str>) -> Option<&mut Target> {
        self.targets.iter_mut().rev().find(|target| match label {
            Some(label) => target.label.as_deref() == Some(label),
            None => target.join.is_some(),
        })
    }
}
