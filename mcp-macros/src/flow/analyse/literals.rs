//! Locals that only ever hold string literals (`let kind = if big { "large" } else { "small" };`).
//!
//! Such a local is a `&'static str`, which no state can hold: nothing read back from one
//! lives that long. It travels instead as the index of its literal, through a slot that knows
//! the literals (`Slot::literals`), so the handler carries it as it would an owned value.

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Block, Expr, Ident, Lit, Pat, Stmt};

use super::free::{diverges, panics};
use crate::flow::lower::bindings::{BindingId, Bindings};

/// The literals of each local of `body` that only ever holds string literals, by its binding
/// in `bindings`: its `let` has a single name, and its initialiser, if any, and every value
/// assigned to that binding anywhere in the body give a string literal, the value of such a
/// local declared before (`if sure { kind } else { "other" }`), or go nowhere.
pub(crate) fn literal_locals(body: &Block, bindings: &Bindings) -> HashMap<BindingId, Vec<String>> {
    let mut finder = Finder {
        bindings,
        lets: Vec::new(),
        assigned: HashMap::new(),
    };
    finder.visit_block(body);
    // The literals of each such local, by its binding, with the place of its `let`: a value
    // read from it after that place is one of them. Found again until nothing changes, as one
    // local's literals may come from another's. A binding whose token stands for another too
    // (`Bindings::clashing`) lends its literals to no read: the read may be of the other.
    let mut known: HashMap<BindingId, (usize, Vec<String>)> = HashMap::new();
    let mut out = HashMap::new();
    loop {
        let mut changed = false;
        for (at, (ident, init)) in finder.lets.iter().enumerate() {
            let id = bindings.id(ident);
            let assigned = finder.assigned.get(&id).map_or(&[][..], Vec::as_slice);
            let mut literals = Vec::new();
            let all = init
                .iter()
                .map(|init| (at, *init))
                .chain(assigned.iter().copied())
                .all(|(place, value)| {
                    let read = |from: &Ident| {
                        known
                            .get(&bindings.find(from)?)
                            .filter(|(declared, _)| *declared < place)
                            .map(|(_, literals)| literals.clone())
                    };
                    tails(value, &mut literals, &read)
                });
            if !all || literals.is_empty() {
                continue;
            }
            let mut texts: Vec<String> = Vec::new();
            for text in literals {
                if !texts.contains(&text) {
                    texts.push(text);
                }
            }
            if !bindings.clashing(id) {
                let before = known.insert(id, (at, texts.clone()));
                changed |= before.is_none_or(|(_, literals)| literals != texts);
            }
            out.insert(id, texts);
        }
        if !changed {
            return out;
        }
    }
}

struct Finder<'ast> {
    bindings: &'ast Bindings,
    /// Each `let` of a single name, with its initialiser, in the order written.
    lets: Vec<(&'ast Ident, Option<&'ast Expr>)>,
    /// The values assigned to each binding, with the number of `let`s written before each.
    assigned: HashMap<BindingId, Vec<(usize, &'ast Expr)>>,
}

impl<'ast> Visit<'ast> for Finder<'ast> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        let pat = match &local.pat {
            Pat::Type(typed) => &*typed.pat,
            pat => pat,
        };
        // The initialiser runs before the binding exists.
        if let Some(init) = &local.init {
            self.visit_local_init(init);
        }
        if let Pat::Ident(binding) = pat
            && binding.by_ref.is_none()
            && binding.subpat.is_none()
        {
            let init = local.init.as_ref().map(|init| &*init.expr);
            self.lets.push((&binding.ident, init));
        }
    }

    fn visit_expr_assign(&mut self, assign: &'ast syn::ExprAssign) {
        if let Expr::Path(path) = &*assign.left
            && let Some(ident) = path.path.get_ident()
        {
            self.assigned
                .entry(self.bindings.id(ident))
                .or_default()
                .push((self.lets.len(), &assign.right));
        }
        visit::visit_expr_assign(self, assign);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether every value `expr` gives is a string literal, where it gives one at all, and it
/// gives one somewhere.
pub(crate) fn only_literals(expr: &Expr) -> bool {
    let mut literals = Vec::new();
    tails(expr, &mut literals, &|_| None) && !literals.is_empty()
}

/// What a local holds, where it holds only literals.
type Read<'a> = dyn Fn(&Ident) -> Option<Vec<String>> + 'a;

/// Whether every value `expr` gives is a string literal, or a local `read` knows the literals
/// of (pushed on `out`), where it gives one at all.
fn tails(expr: &Expr, out: &mut Vec<String>, read: &Read<'_>) -> bool {
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            Lit::Str(text) => {
                out.push(text.value());
                true
            }
            _ => false,
        },
        Expr::Path(path) => match path.path.get_ident().and_then(read) {
            Some(literals) => {
                out.extend(literals);
                true
            }
            None => false,
        },
        Expr::Paren(inner) => tails(&inner.expr, out, read),
        Expr::Group(inner) => tails(&inner.expr, out, read),
        Expr::If(branch) => match &branch.else_branch {
            Some((_, els)) => block_tails(&branch.then_branch, out, read) && tails(els, out, read),
            None => false,
        },
        Expr::Match(matched) => matched.arms.iter().all(|arm| tails(&arm.body, out, read)),
        Expr::Block(block) if block.label.is_none() => block_tails(&block.block, out, read),
        other => diverges(other),
    }
}

fn block_tails(block: &Block, out: &mut Vec<String>, read: &Read<'_>) -> bool {
    match block.stmts.last() {
        Some(Stmt::Expr(expr, None)) => tails(expr, out, read),
        Some(Stmt::Expr(expr, Some(_))) => diverges(expr),
        Some(Stmt::Macro(mac)) => panics(&mac.mac),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::literal_locals;
    use crate::flow::lower::bindings::Bindings;

    /// The names of the locals of `body` found to hold only literals, with their literals.
    fn found(body: &str) -> Vec<(String, Vec<String>)> {
        let function: syn::ItemFn =
            syn::parse_str(&format!("async fn f() {body}")).expect("a body");
        let bindings = Bindings::resolve(&[], &[], &function.block);
        let name = |id| bindings.get(id).map(|b| b.name.to_string());
        let mut found: Vec<(String, Vec<String>)> = literal_locals(&function.block, &bindings)
            .into_iter()
            .map(|(id, literals)| (name(id).unwrap_or_default(), literals))
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
    fn the_value_of_another_literal_local_declared_before_is_its_literals() {
        let body = r#"{
            let kind = if big { "large" } else { "small" };
            let shown = if sure { kind } else { "other" };
            let mut last = "none";
            last = shown;
            let early = if c { later } else { "x" };
            let later = "y";
            let twice = "a";
            let twice = "b";
            let from_twice = if c { twice } else { "z" };
        }"#;
        let found = found(body);
        let literals = |name: &str| {
            found
                .iter()
                .find(|(found, _)| found == name)
                .map(|(_, literals)| literals.join(" "))
        };
        assert_eq!(literals("shown").as_deref(), Some("large small other"));
        assert_eq!(literals("last").as_deref(), Some("none large small other"));
        // Read before its `let`: the read is of no binding of the body.
        assert_eq!(literals("early"), None);
        // Bound twice: the read is of the binding in scope, the second.
        assert_eq!(literals("from_twice").as_deref(), Some("b z"));
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
