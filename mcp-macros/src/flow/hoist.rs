//! The statements a block may declare anywhere before a question point, because they mean
//! the same wherever they stand: items, and locals bound once to a literal.
//!
//! Such a statement never travels in the state. Where the flow resumes, it is declared again,
//! ahead of the locals read back from the state. That is how a string literal crosses a
//! question: `let env = "prod";` is a `&'static str`, which cannot be read back from a state,
//! but can be declared again.
//!
//! Input:  `let env = "prod"; let ok: Yes = __mcp_site!().0?; deploy(env, ok)`
//! Output, resumed at point 0: `{ let env = "prod"; let ok: Yes = __mcp_site!().0?; deploy(env, ok) }`

use std::collections::{HashMap, HashSet};

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, ItemFn, Local, Pat, Stmt, Token};

use super::{free, literals, mutable, reborrow};

/// What a handler's blocks may declare again where the flow resumes.
pub(crate) struct Hoisted {
    /// The locals bound once in the whole function, by a `let` of a literal without `mut`.
    constants: Vec<String>,
    /// Each name bound in the whole function (parameters and locals alike): how often, and
    /// whether ever `mut`.
    bindings: HashMap<String, Bound>,
    /// The locals bound once in the whole function, without `mut`, to a stable borrow (see
    /// `reborrow::stable`): matched again, they give the same borrows.
    borrowing: Vec<String>,
    /// The context parameter's name: what its accessors give (see
    /// `reborrow::CONTEXT_ACCESSORS`) is had again, never carried.
    context: String,
    /// The names the function's parameters bind.
    parameters: HashSet<String>,
}

#[derive(Default)]
struct Bound {
    count: usize,
    mutable: bool,
}

impl Hoisted {
    /// The constant locals of `function`: names whose every binding in the function is a
    /// `let` of a literal without `mut`, at most one to a block. A name also bound anywhere
    /// else (a parameter, another `let`, a pattern, a closure's parameter), or twice in one
    /// block, is left to travel as usual: declaring it again ahead of its place could hide
    /// another binding of the name.
    pub(crate) fn of(function: &ItemFn, context: &syn::Ident) -> Self {
        #[derive(Default)]
        struct Names {
            bound: HashMap<String, Bound>,
            /// Each constant `let`: its block and its name.
            literal: Vec<(usize, String)>,
            /// Each `let` of one name without `mut`: the name and its value.
            single: Vec<(String, Expr)>,
            blocks: usize,
            block: Vec<usize>,
        }
        impl<'ast> Visit<'ast> for Names {
            fn visit_block(&mut self, block: &'ast syn::Block) {
                self.blocks += 1;
                self.block.push(self.blocks);
                visit::visit_block(self, block);
                self.block.pop();
            }
            fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
                let bound = self.bound.entry(pat.ident.to_string()).or_default();
                bound.count += 1;
                bound.mutable |= pat.mutability.is_some();
                visit::visit_pat_ident(self, pat);
            }
            fn visit_local(&mut self, local: &'ast Local) {
                if let Some(name) = constant(local) {
                    let block = self.block.last().copied().unwrap_or(0);
                    self.literal.push((block, name));
                }
                if let (Some(name), Some(init)) = (single(local), &local.init)
                    && init.diverge.is_none()
                {
                    self.single.push((name, (*init.expr).clone()));
                }
                visit::visit_local(self, local);
            }
        }
        let mut names = Names::default();
        names.visit_item_fn(function);
        let Names {
            bound,
            literal,
            single,
            ..
        } = names;
        let mut constants: Vec<String> = Vec::new();
        for (_, name) in &literal {
            let lets: Vec<usize> = literal
                .iter()
                .filter(|(_, other)| other == name)
                .map(|(block, _)| *block)
                .collect();
            let mut blocks = lets.clone();
            blocks.sort_unstable();
            blocks.dedup();
            let only_constants = bound.get(name).map(|b| b.count) == Some(lets.len());
            if only_constants && blocks.len() == lets.len() && !constants.contains(name) {
                constants.push(name.clone());
            }
        }
        let context = context.to_string();
        let mut hoisted = Self {
            constants,
            bindings: bound,
            borrowing: Vec::new(),
            context,
            parameters: parameters(function),
        };
        let roots = reborrow::Roots {
            hoisted: &hoisted,
            once: true,
            bound: &[],
        };
        let borrowing = single
            .into_iter()
            .filter(|(name, init)| {
                hoisted.bound_once(name)
                    && reborrow::stable(init, roots)
                    && !hoisted.literal_choice(init)
            })
            .map(|(name, _)| name)
            .collect();
        hoisted.borrowing = borrowing;
        hoisted
    }

    /// Whether `init` chooses between string literals by reading a local
    /// (`match opened { Ok(()) => "opened", Err(_) => "not opened" }`): what it gives travels
    /// as the index of its literal (see `literals`), rather than being chosen again from what
    /// it read, which would travel in its place. A choice made by the parameters alone, had
    /// again each round, is made again.
    pub(crate) fn literal_choice(&self, init: &Expr) -> bool {
        literals::only_literals(init)
            && !free::free_in_stmts(&[syn::parse_quote!(let _ = #init;)], &HashMap::new())
                .iter()
                .all(|name| self.parameters.contains(name))
    }

    /// Whether `name` is a local bound once, without `mut`, to a stable borrow.
    pub(crate) fn borrowing(&self, name: &str) -> bool {
        self.borrowing.iter().any(|local| local == name)
    }

    /// Whether `name` names the context, bound once in the function.
    pub(crate) fn is_context(&self, name: &str) -> bool {
        self.context == name && self.bound_once(name)
    }

    /// Whether `name` is bound once in the whole function, as a parameter or a local: where
    /// it is named, it names that one binding.
    pub(crate) fn bound_once(&self, name: &str) -> bool {
        self.bindings
            .get(name)
            .is_some_and(|bound| bound.count == 1)
    }

    /// Whether `name`, where the function names it, always has the same value: it is bound
    /// nowhere in the function (an item), or once and without `mut`.
    pub(crate) fn unchanging(&self, name: &str) -> bool {
        self.bindings
            .get(name)
            .is_none_or(|bound| bound.count == 1 && !bound.mutable)
    }

    /// Whether `stmt` is declared again where the flow resumes, rather than carried: an item
    /// (`use`, `const`, `fn`, `struct`, `macro_rules!`) or a constant local.
    pub(crate) fn holds(&self, stmt: &Stmt) -> bool {
        match stmt {
            _ if super::items::is_lifted(stmt) => false,
            Stmt::Item(_) => true,
            Stmt::Macro(mac) => mac.mac.path.is_ident("macro_rules"),
            Stmt::Local(local) => {
                constant(local).is_some_and(|name| self.constants.contains(&name))
            }
            Stmt::Expr(..) => false,
        }
    }
}

/// The name `local` binds, if it binds one name without `mut` to a literal.
fn constant(local: &Local) -> Option<String> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || !literal(&init.expr) {
        return None;
    }
    single(local)
}

/// The name `local` binds, if it binds one name, by value and without `mut`.
fn single(local: &Local) -> Option<String> {
    let pat = match &local.pat {
        Pat::Type(typed) => &*typed.pat,
        pat => pat,
    };
    match pat {
        Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none() && p.subpat.is_none() => {
            Some(p.ident.to_string())
        }
        _ => None,
    }
}

/// A literal, or a negation, tuple, array or `vec!` of literals: the same value however
/// often it is evaluated, and nothing moved to make it.
pub(crate) fn literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) => true,
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && literal(&u.expr),
        Expr::Tuple(t) => t.elems.iter().all(literal),
        Expr::Array(a) => a.elems.iter().all(literal),
        Expr::Paren(p) => literal(&p.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
            .is_ok_and(|elems| elems.iter().all(literal)),
        _ => false,
    }
}

/// The names the parameters of `function` bind.
fn parameters(function: &ItemFn) -> HashSet<String> {
    let patterns = function.sig.inputs.iter().filter_map(|input| match input {
        syn::FnArg::Typed(typed) => Some(&*typed.pat),
        syn::FnArg::Receiver(_) => None,
    });
    patterns
        .flat_map(mutable::bound)
        .map(|bound| bound.ident.to_string())
        .collect()
}
