//! Locals that only ever hold string literals (`let kind = if big { "large" } else { "small" };`).
//!
//! Such a local is a `&'static str`, which no state can hold: nothing read back from one
//! lives that long. It travels instead as the index of its literal, through a slot that knows
//! the literals (`Slot::literals`), so the handler carries it as it would an owned value.

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Lit, LitStr, Pat, Stmt};

use super::free::{diverges, panics};
use super::scope::local_key;

/// The literals of each local of `body` that only ever holds string literals, by
/// [`local_key`]: its `let` has a single name, and its initialiser, if any, and every value
/// assigned to a local of its name anywhere in the body give a string literal or go nowhere.
pub(crate) fn literal_locals(body: &Block) -> HashMap<String, Vec<String>> {
    let mut finder = Finder::default();
    finder.visit_block(body);
    let mut out = HashMap::new();
    for (ident, init) in &finder.lets {
        let name = ident.to_string();
        let assigned = finder.assigned.get(&name).map_or(&[][..], Vec::as_slice);
        let mut literals = Vec::new();
        let all = init
            .iter()
            .chain(assigned)
            .all(|value| tails(value, &mut literals));
        if all && !literals.is_empty() {
            let mut texts: Vec<String> = Vec::new();
            for literal in literals {
                let text = literal.value();
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
            out.insert(local_key(ident), texts);
        }
    }
    out
}

#[derive(Default)]
struct Finder<'ast> {
    /// Each `let` of a single name, with its initialiser.
    lets: Vec<(&'ast Ident, Option<&'ast Expr>)>,
    /// The values assigned to each name.
    assigned: HashMap<String, Vec<&'ast Expr>>,
}

impl<'ast> Visit<'ast> for Finder<'ast> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let pat = match &local.pat {
            Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        if let Pat::Ident(binding) = pat
            && binding.by_ref.is_none()
            && binding.subpat.is_none()
        {
            let init = local.init.as_ref().map(|init| &*init.expr);
            self.lets.push((&binding.ident, init));
        }
        visit::visit_local(self, local);
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        if let Expr::Path(path) = &*assign.left
            && let Some(ident) = path.path.get_ident()
        {
            self.assigned
                .entry(ident.to_string())
                .or_default()
                .push(&assign.right);
        }
        visit::visit_expr_assign(self, assign);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether every value `expr` gives is a string literal, where it gives one at all, and it
/// gives one somewhere.
pub(crate) fn only_literals(expr: &Expr) -> bool {
    let mut literals = Vec::new();
    tails(expr, &mut literals) && !literals.is_empty()
}

/// Whether every value `expr` gives is a string literal (pushed on `out`), where it gives
/// one at all.
fn tails<'ast>(expr: &'ast Expr, out: &mut Vec<&'ast LitStr>) -> bool {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(text) => {
                out.push(text);
                true
            }
            _ => false,
        },
        Expr::Paren(inner) => tails(&inner.expr, out),
        Expr::Group(inner) => tails(&inner.expr, out),
        Expr::If(branch) => match &branch.else_branch {
            Some((_, els)) => block_tails(&branch.then_branch, out) && tails(els, out),
            None => false,
        },
        Expr::Match(matched) => matched.arms.iter().all(|arm| tails(&arm.body, out)),
        Expr::Block(block) if block.label.is_none() => block_tails(&block.block, out),
        other => diverges(other),
    }
}

fn block_tails<'ast>(block: &'ast Block, out: &mut Vec<&'ast LitStr>) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, None)) => tails(expr, out),
        Some(Stmt::Expr(expr, Some(_))) => diverges(expr),
        Some(Stmt::Macro(mac)) => panics(&mac.mac),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::literal_locals;

    /// The names of the locals of `body` found to hold only literals, with their literals.
    fn found(body: &str) -> Vec<(String, Vec<String>)> {
        let block: syn::Block = syn::parse_str(body).expect("a block");
        let mut found: Vec<(String, Vec<String>)> = literal_locals(&block)
            .into_iter()
            .map(|(key, literals)| (key.split('@').next().unwrap_or("").to_owned(), literals))
            .collect();
        found.sort();
        found
    }

    #[test]
    fn literal_values_through_branches_and_assignments_are_found() {
        let body = r#"{
            let kind = match n { 0 => "none", 1 => { "one" } _ => return Err(e) };
            let label;
            if big { label = "big"; } else { label = if huge { "huge" } else { panic!() }; }
            let mut status = "pending";
            status = "done";
            let plain: &str = "x";
        }"#;
        let strings = |items: &[&str]| items.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            found(body),
            [
                ("kind".to_owned(), strings(&["none", "one"])),
                ("label".to_owned(), strings(&["big", "huge"])),
                ("plain".to_owned(), strings(&["x"])),
                ("status".to_owned(), strings(&["pending", "done"])),
            ]
        );
    }

    #[test]
    fn a_local_with_any_other_value_is_not() {
        let body = r#"{
            let owned = "a".to_owned();
            let maybe = if c { "a" } else { name };
            let partial = if c { "a" };
            let mut changed = "a";
            changed = NAME;
            let (a, b) = ("x", "y");
            let never;
            let number = 1;
        }"#;
        assert_eq!(found(body), []);
    }
}
