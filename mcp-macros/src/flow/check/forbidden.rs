//! Refusing a question where the body cannot be split: inside a larger expression, a `match`
//! guard, a closure or an `async` block.

use syn::visit::{self, Visit};
use syn::{Expr, Ident};

use crate::flow::Errors;
use crate::flow::questions::{awaited_in_macro, is_question_base};

/// Where a question stands that the body cannot be split at.
#[derive(Clone, Copy)]
pub(super) enum Position {
    Nested,
    Guard,
    Closure,
    AsyncBlock,
}

impl Position {
    fn message(self) -> &'static str {
        match self {
            Self::Nested => {
                "this question is nested inside a larger expression that cannot be split at \
                 it; bind its answer first: `let answer = cx.elicit(...).await?;`"
            }
            Self::Guard => {
                "a question cannot be asked in a `match` guard, which the flow cannot resume \
                 into; ask it in the arm (`pattern => { let answer = cx.elicit(...).await?; \
                 .. }`) or before the `match`"
            }
            Self::Closure => {
                "a question cannot be asked inside a closure; ask it in the handler body and \
                 use the answer in the closure, or make the piece that asks an `#[elicit]` \
                 function and await it in the handler"
            }
            Self::AsyncBlock => {
                "a question cannot be asked inside an `async` block; ask it in the handler \
                 body before the block, or make the piece that asks an `#[elicit]` function \
                 and await it in the handler (`for name in names { keep(&cx, name).await?; }`)"
            }
        }
    }
}

pub(super) struct Forbidden<'a, 'e> {
    pub(super) cx: &'a Ident,
    pub(super) position: Position,
    pub(super) errors: &'e mut Errors,
}

impl Forbidden<'_, '_> {
    fn within(&mut self, position: Position, f: impl FnOnce(&mut Self)) {
        let outer = std::mem::replace(&mut self.position, position);
        f(self);
        self.position = outer;
    }
}

impl<'ast> Visit<'ast> for Forbidden<'_, '_> {
    fn visit_expr(&mut self, expr: &'ast Expr) {
        match expr {
            Expr::Await(awaited) if is_question_base(&awaited.base, self.cx) => {
                self.errors
                    .push(syn::Error::new_spanned(expr, self.position.message()));
            }
            Expr::Closure(_) => self.within(Position::Closure, |v| visit::visit_expr(v, expr)),
            Expr::Async(_) => self.within(Position::AsyncBlock, |v| visit::visit_expr(v, expr)),
            _ => visit::visit_expr(self, expr),
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if let Some(error) = awaited_in_macro(mac, self.cx) {
            self.errors.push(error);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
