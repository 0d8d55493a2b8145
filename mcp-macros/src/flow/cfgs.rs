//! Statements under `#[cfg(..)]`: whether such a `let` binds (and hides the local of its
//! name), or such a statement asks, only the compiler knows. So the handler is compiled once
//! for each way the conditions can fall, each copy under the `#[cfg]` that selects it.
//!
//! Input:
//! ```text
//! #[tool]
//! async fn count(args: Args, cx: Cx) -> ToolResult {
//!     let n = args.start;
//!     ask(&cx).await?;
//!     #[cfg(feature = "double")]
//!     let n = n * 2;
//!     ask(&cx).await?;
//!     Ok(text(n.to_string()))
//! }
//! ```
//! Output: the expansion of each body, the statement kept without its attribute where its
//! condition holds and left out where it does not:
//! ```text
//! #[cfg(all(feature = "double"))]
//! fn count() -> impl ToolHandler + Copy { /* from: let n = ..; ask; let n = n * 2; ask; .. */ }
//! #[cfg(all(not(feature = "double")))]
//! fn count() -> impl ToolHandler + Copy { /* from: let n = ..; ask; ask; .. */ }
//! ```
//! `#[cfg(not(x))]` is read as `x` not holding, so `x` and `not(x)` make two copies, not four.
//! Up to [`MAX_CONDITIONS`] conditions are compiled so; past them, the body is compiled once
//! with its attributes in place (the free-name walk then takes no such `let` for a binding).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::{self, Visit};
use syn::visit_mut::{self, VisitMut};
use syn::{Attribute, Block, ItemFn, Meta, Stmt};

use super::parse::model;
use super::questions::asks;

/// The most distinct conditions a body's statements may have and still be compiled once per
/// way they fall (2 to the power of this many copies).
const MAX_CONDITIONS: usize = 3;

/// One way the conditions fall: the `#[cfg]` predicate that selects it, and the function
/// compiled for it.
pub(super) struct Variant {
    pub(super) predicate: TokenStream,
    pub(super) function: ItemFn,
}

/// The copies of `function` to compile, or `None` if its body has no statement that needs
/// one (or has too many conditions).
pub(super) fn variants(function: &ItemFn) -> Option<Vec<Variant>> {
    // Without a context there is no question, and nothing the flow reads differently.
    let cx = &model::context(&function.sig)?;
    let mut found = Conditions {
        cx,
        conditions: Vec::new(),
    };
    found.visit_block(&function.block);
    let conditions = found.conditions;
    if conditions.is_empty() || conditions.len() > MAX_CONDITIONS {
        return None;
    }
    let variants = (0..1usize << conditions.len()).map(|ways| {
        let holds: Vec<bool> = (0..conditions.len()).map(|n| ways >> n & 1 == 1).collect();
        let each = conditions.iter().zip(&holds).map(|(condition, &holds)| {
            if holds {
                quote!(#condition)
            } else {
                quote!(not(#condition))
            }
        });
        let mut function = function.clone();
        Select {
            cx,
            conditions: &conditions,
            holds: &holds,
        }
        .visit_block_mut(&mut function.block);
        Variant {
            predicate: quote!(all(#(#each),*)),
            function,
        }
    });
    Some(variants.collect())
}

/// The condition of a `#[cfg(..)]` attribute, and whether it is negated (`not(..)`).
fn condition(attr: &Attribute) -> Option<(Meta, bool)> {
    if !attr.path().is_ident("cfg") {
        return None;
    }
    let meta: Meta = attr.parse_args().ok()?;
    if let Meta::List(not) = &meta
        && not.path.is_ident("not")
        && let Ok(inner) = not.parse_args::<Meta>()
    {
        return Some((inner, true));
    }
    Some((meta, false))
}

/// A statement's attributes, if it is one the flow reads differently with or without it: a
/// `let` (it binds), or a statement that asks.
fn attributes_read<'s>(stmt: &'s Stmt, cx: &syn::Ident) -> &'s [Attribute] {
    use syn::Expr;
    match stmt {
        Stmt::Local(local) => &local.attrs,
        Stmt::Expr(expr, _) => {
            let attrs: &[Attribute] = match expr {
                Expr::Block(e) => &e.attrs,
                Expr::If(e) => &e.attrs,
                Expr::Match(e) => &e.attrs,
                Expr::Loop(e) => &e.attrs,
                Expr::While(e) => &e.attrs,
                Expr::ForLoop(e) => &e.attrs,
                Expr::Try(e) => &e.attrs,
                Expr::Await(e) => &e.attrs,
                Expr::Call(e) => &e.attrs,
                Expr::MethodCall(e) => &e.attrs,
                Expr::Assign(e) => &e.attrs,
                Expr::Binary(e) => &e.attrs,
                _ => &[],
            };
            // Whether it asks is looked for only where there is an attribute to read: most
            // statements have none.
            if !attrs.is_empty() && asks(expr, cx) {
                attrs
            } else {
                &[]
            }
        }
        _ => &[],
    }
}

/// Collects the distinct conditions of the statements the flow reads.
struct Conditions<'a> {
    cx: &'a syn::Ident,
    conditions: Vec<Meta>,
}

impl Visit<'_> for Conditions<'_> {
    fn visit_block(&mut self, block: &Block) {
        for stmt in &block.stmts {
            for (meta, _) in attributes_read(stmt, self.cx).iter().filter_map(condition) {
                if !self.conditions.contains(&meta) {
                    self.conditions.push(meta);
                }
            }
        }
        visit::visit_block(self, block);
    }

    // What the flow leaves as written: the compiler reads their attributes.
    fn visit_item(&mut self, _: &syn::Item) {}
    fn visit_expr_closure(&mut self, _: &syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &syn::ExprAsync) {}
}

/// Keeps the statements whose conditions hold, and drops the others.
struct Select<'a> {
    cx: &'a syn::Ident,
    conditions: &'a [Meta],
    holds: &'a [bool],
}

impl Select<'_> {
    /// Whether `stmt` is compiled where the conditions fall so.
    fn kept(&self, stmt: &Stmt) -> bool {
        let mut conditions = attributes_read(stmt, self.cx).iter().filter_map(condition);
        conditions.all(|(meta, negated)| {
            let at = self.conditions.iter().position(|c| *c == meta);
            at.is_some_and(|at| self.holds[at] != negated)
        })
    }
}

impl VisitMut for Select<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        block.stmts.retain(|stmt| self.kept(stmt));
        // A kept `let` binds: without its attribute, every stage reads it so. A kept
        // statement that asks keeps its attribute, which holds wherever this copy is built.
        for stmt in &mut block.stmts {
            if let Stmt::Local(local) = stmt {
                local.attrs.retain(|attr| condition(attr).is_none());
            }
        }
        visit_mut::visit_block_mut(self, block);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::super::parsed::tokens;
    use super::*;

    /// Each variant's predicate and body, as text.
    fn variants_of(body: &str) -> Option<Vec<(String, String)>> {
        let function: ItemFn =
            syn::parse_str(&format!("async fn f(cx: Cx) -> ToolResult {body}")).expect("parses");
        let variants = variants(&function)?;
        let shown = variants.into_iter().map(|variant| {
            let body = variant.function.block.to_token_stream().to_string();
            (variant.predicate.to_string(), body)
        });
        Some(shown.collect())
    }

    #[test]
    fn a_condition_and_its_negation_make_two_copies() {
        let variants = variants_of(
            "{ let n = 1; #[cfg(test)] let n = n * 2; ask(&cx).await?; \
               #[cfg(not(test))] #[allow(unused)] let n = \"x\"; n }",
        );
        let expected = vec![
            (
                "all (not (test))".to_owned(),
                tokens("{ let n = 1; ask(&cx).await?; #[allow(unused)] let n = \"x\"; n }"),
            ),
            (
                "all (test)".to_owned(),
                tokens("{ let n = 1; let n = n * 2; ask(&cx).await?; n }"),
            ),
        ];
        assert_eq!(variants, Some(expected));
    }

    #[test]
    fn a_statement_that_asks_is_kept_with_its_attribute_or_left_out() {
        let variants = variants_of(
            "{ #[cfg(feature = \"x\")] { cx.elicit::<S>(\"?\").await?; } \
               #[cfg(feature = \"x\")] { log(); } done() }",
        );
        let expected = vec![
            (
                "all (not (feature = \"x\"))".to_owned(),
                tokens("{ #[cfg(feature = \"x\")] { log(); } done() }"),
            ),
            (
                "all (feature = \"x\")".to_owned(),
                tokens(
                    "{ #[cfg(feature = \"x\")] { cx.elicit::<S>(\"?\").await?; } \
                       #[cfg(feature = \"x\")] { log(); } done() }",
                ),
            ),
        ];
        assert_eq!(variants, Some(expected));
    }

    #[test]
    fn bodies_the_flow_reads_the_same_either_way_are_compiled_once() {
        for body in [
            "{ let n = 1; n }",
            "{ #[cfg(test)] { log(); } let f = || { #[cfg(test)] let n = 2; n }; f() }",
            "{ #[cfg(a)] let n = 1; #[cfg(b)] let n = 2; #[cfg(c)] let n = 3; #[cfg(d)] let n = 4; n }",
        ] {
            assert_eq!(variants_of(body), None, "{body}");
        }
    }
}
