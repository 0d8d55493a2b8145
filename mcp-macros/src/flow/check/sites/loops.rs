//! `for` loops that ask questions: rewritten so that the flow can resume them, either with
//! their position in the state (a collection evaluated again on resume, recorded for the
//! stages after the site finder) or with the items they have yet to take (a collection
//! evaluated once).

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Ident, Stmt};

use super::{Analyzer, Step};
use crate::flow::lower::bindings::Made;
use crate::flow::scope;
use crate::flow::syntax::literal;

/// A `for` loop that asks questions, rewritten so that its position travels in the state
/// (see [`Analyzer::resumable_for`]): what resuming it needs, by name.
pub(crate) struct Loop {
    /// The collection iterated, as written: evaluated again on resume.
    pub(crate) source: Expr,
    /// The local counting the items taken, carried.
    pub(crate) position: Ident,
    /// The local holding the iterator, rebuilt on resume from the other two.
    pub(crate) iter: Ident,
}

/// A `for` loop that asks questions over a collection evaluated once (see [`taken`]): its
/// items are taken into a queue, which is carried (`Made::Items`).
pub(crate) struct Taken {
    /// The collection iterated, as written.
    pub(crate) source: Expr,
}

/// The collection the `for` loop a local the macro made belongs to iterates, as written: the
/// loop's position or iterator (`Made::Position`, `Made::Iterator`) or its queue of items
/// (`Made::Items`).
pub(crate) fn collection<'a>(
    made: Made,
    loops: &'a [Loop],
    taken: &'a [Taken],
) -> Option<&'a Expr> {
    match made {
        Made::Position(n) | Made::Iterator(n) => loops.get(n).map(|record| &record.source),
        Made::Items(n) => taken.get(n).map(|record| &record.source),
        Made::Operand => None,
    }
}

impl Loop {
    /// The iterator rebuilt from the collection with `taken` items skipped; spanned at the
    /// collection, every path spelled out, so that a collection that cannot be rewound is
    /// reported there, once, and not at the attribute.
    pub(crate) fn rewind(&self, taken: &Expr) -> Expr {
        let source = &self.source;
        syn::parse_quote_spanned! {source.span()=>
            ::mcp_runtime::__private::Rewind::rewind(&(#source), #taken)
        }
    }
}

impl Analyzer<'_> {
    /// A `for` loop that asks questions (`expr`), rewritten so that the flow can resume it,
    /// then walked for its questions.
    ///
    /// A collection that gives the same items when evaluated again ([`reevaluable`]: a
    /// local, a field, a borrow of one, a range, literals, or a chain of iterator methods
    /// lending from a local) is evaluated again on resume, with the loop's position carried
    /// ([`rewound`](Self::rewound)). Any other (a call, a macro, an owning chain) is evaluated
    /// once and its items carried ([`taken`]).
    pub(super) fn resumable_for(&mut self, expr: &mut Expr) {
        let Expr::ForLoop(e) = expr else { return };
        if reevaluable(&e.expr) {
            *expr = self.rewound(e);
            self.rewritten_for(expr);
        } else {
            let n = self.taken.len();
            let items = quote::format_ident!(
                "__mcp_items_{}",
                n,
                span = Span::mixed_site().located_at(e.expr.span())
            );
            self.bindings.make(&items, Made::Items(n));
            let source = (*e.expr).clone();
            *expr = taken(e, &items);
            self.taken.push(Taken { source });
            self.head(expr);
        }
    }

    /// A `for` loop over a collection evaluated again on resume, rewritten so its position
    /// travels in the state, and recorded as [`Loop`] `N`.
    ///
    /// Input:  `'l: for PAT in EXPR { BODY }`
    /// Output (`ROOT` is the local `EXPR` iterates over, if any):
    /// ```text
    /// { RewindsInOrder::in_order((&Probe(&(ROOT))).rewind_order());
    ///   let mut __mcp_pos_N: usize = 0;
    ///   let mut __mcp_iter_N = Rewind::rewind(&(EXPR), __mcp_pos_N);
    ///   'l: while let Some(PAT) = Iterator::next(&mut __mcp_iter_N) { __mcp_pos_N += 1; BODY } }
    /// ```
    /// On resume the iterator is rebuilt from `EXPR` and the carried position.
    fn rewound(&mut self, e: &syn::ExprForLoop) -> Expr {
        let n = self.loops.len();
        let record = Loop {
            source: (*e.expr).clone(),
            position: quote::format_ident!("__mcp_pos_{}", n, span = Span::mixed_site()),
            iter: quote::format_ident!("__mcp_iter_{}", n, span = Span::mixed_site()),
        };
        self.bindings.make(&record.position, Made::Position(n));
        self.bindings.make(&record.iter, Made::Iterator(n));
        let (label, pat, body) = (&e.label, &e.pat, &e.body);
        let (pos, iter) = (&record.position, &record.iter);
        let rewind = record.rewind(&syn::parse_quote!(#pos));
        let source = &record.source;
        // A `HashMap` or `HashSet` comes back in another order each round: refused at the
        // collection (the probe's method resolves to the hash one only for those types).
        let in_order = root(source).map(|root| {
            quote::quote_spanned! {source.span()=>
                ::mcp_runtime::__private::RewindsInOrder::in_order({
                    // One of the two resolves the call, so the other is always unused.
                    #[allow(unused_imports)]
                    use ::mcp_runtime::__private::{ProbeAny as _, ProbeHash as _};
                    (&::mcp_runtime::__private::Probe(&(#root))).rewind_order()
                });
            }
        });
        let rewritten = syn::parse_quote! {{
            #in_order
            let mut #pos: usize = 0;
            let mut #iter = #rewind;
            #label while let ::core::option::Option::Some(#pat) =
                ::core::iter::Iterator::next(&mut #iter)
            {
                #pos += 1;
                #body
            }
        }};
        self.loops.push(record);
        rewritten
    }

    /// Walks the loop [`resumable_for`](Self::resumable_for) just wrote and recorded last:
    /// only its body can hold questions (its collection was checked, its pattern cannot), and
    /// the steps down to them name the loop's record.
    pub(super) fn rewritten_for(&mut self, expr: &mut Expr) {
        let n = self.loops.len() - 1;
        let Expr::Block(block) = expr else { return };
        let Some((index, looped)) =
            block
                .block
                .stmts
                .iter_mut()
                .enumerate()
                .find_map(|(index, stmt)| match stmt {
                    Stmt::Expr(Expr::While(looped), _) => Some((index, looped)),
                    _ => None,
                })
        else {
            return;
        };
        let steps = [
            Step::BlockExpr,
            Step::Stmt(index),
            Step::ExprStmt,
            Step::ForBody(n),
        ];
        self.path.extend(steps);
        self.block(&mut looped.body);
        self.path.truncate(self.path.len() - steps.len());
    }
}

/// A `for` loop over a collection that is evaluated once: its items are taken into a queue,
/// which is carried like a local, and so is the item the loop stands at, if it is used after a
/// question: the loop is then a `while let` like any other.
///
/// Input:  `'l: for PAT in EXPR { BODY }`
/// Output:
/// ```text
/// { let mut __mcp_items_N: VecDeque<_> = Iterator::collect(IntoIterator::into_iter(EXPR));
///   'l: while let Some(PAT) = VecDeque::pop_front(&mut __mcp_items_N) BODY }
/// ```
fn taken(e: &syn::ExprForLoop, items: &Ident) -> Expr {
    let (label, pat, body, expr) = (&e.label, &e.pat, &e.body, &e.expr);
    let queue = quote::quote_spanned!(expr.span()=> ::std::collections::VecDeque<_>);
    syn::parse_quote! {{
        let mut #items: #queue = ::core::iter::Iterator::collect(
            ::core::iter::IntoIterator::into_iter(#expr),
        );
        #label while let ::core::option::Option::Some(#pat) =
            ::std::collections::VecDeque::pop_front(&mut #items)
        #body
    }}
}

/// Whether evaluating `expr` again gives the same items without side effects: a local, a
/// field of one, a shared borrow of either, a range of those and literals, an array of
/// literals, or a chain of methods that starts lending from one of those ([`scope::lends`]) and
/// whose arguments are such expressions or closures.
fn reevaluable(expr: &Expr) -> bool {
    match expr {
        Expr::Path(p) => p.qself.is_none(),
        Expr::Lit(_) => true,
        Expr::Field(f) => reevaluable(&f.base),
        Expr::Paren(p) => reevaluable(&p.expr),
        Expr::Reference(r) => r.mutability.is_none() && reevaluable(&r.expr),
        Expr::Range(r) => {
            r.start.as_deref().is_none_or(reevaluable) && r.end.as_deref().is_none_or(reevaluable)
        }
        // Only literals: an array of locals would move them, once per evaluation.
        Expr::Array(_) | Expr::Macro(_) => literal(expr),
        Expr::MethodCall(call) => {
            let argument = |arg: &Expr| matches!(arg, Expr::Closure(_)) || reevaluable(arg);
            let lends = match &*call.receiver {
                Expr::MethodCall(_) => reevaluable(&call.receiver),
                receiver => reevaluable(receiver) && scope::lends(call),
            };
            lends && call.args.iter().all(argument)
        }
        _ => false,
    }
}

/// The local or field a re-evaluated collection iterates over, if any: what is probed for the
/// order it iterates in.
fn root(expr: &Expr) -> Option<&Expr> {
    match expr {
        Expr::Path(_) | Expr::Field(_) => Some(expr),
        Expr::Paren(p) => root(&p.expr),
        Expr::Reference(r) => root(&r.expr),
        Expr::MethodCall(call) => root(&call.receiver),
        _ => None,
    }
}
