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

use std::collections::HashMap;

use syn::visit::{self, Visit};
use syn::{Expr, Local};

use super::reborrow;
use crate::flow::lower::bindings::{BindingId, Bindings};

pub(crate) use super::facts::Hoisted;
use super::facts::{Bound, constant, single};

impl Hoisted {
    /// The constant locals of the function of signature `sig` and body `body` (as lowered):
    /// names whose every binding in the function is a `let` of a literal without `mut`, at
    /// most one to a block. A name also bound anywhere else (a parameter, another `let`, a
    /// pattern, a closure's parameter), or twice in one block, is left to travel as usual:
    /// declaring it again ahead of its place could hide another binding of the name. A name
    /// is as the output writes it (see `shadow`): a binding given a new name is counted apart
    /// from the others of the name it was written with. Only the signature and the body
    /// bind: the function's attributes and visibility are not read.
    pub(crate) fn of(
        (sig, body): (&syn::Signature, &syn::Block),
        context: &syn::Ident,
        bindings: &Bindings,
    ) -> Self {
        struct Names<'b> {
            table: &'b Bindings,
            bound: HashMap<String, Bound>,
            /// Each binding the function's patterns make, by id, with its name.
            ids: Vec<(BindingId, String)>,
            /// Each constant `let`: its block, its name and its binding.
            literal: Vec<(usize, String, BindingId)>,
            /// Each `let` of one name without `mut`: its binding and its value.
            single: Vec<(BindingId, Expr)>,
            blocks: usize,
            block: Vec<usize>,
        }
        impl Names<'_> {
            /// The name the output writes `ident` under.
            fn name(&self, ident: &syn::Ident) -> String {
                self.table.written(ident).to_string()
            }
        }
        impl<'ast> Visit<'ast> for Names<'_> {
            fn visit_block(&mut self, block: &'ast syn::Block) {
                self.blocks += 1;
                self.block.push(self.blocks);
                visit::visit_block(self, block);
                self.block.pop();
            }
            fn visit_pat_ident(&mut self, pat: &'ast syn::PatIdent) {
                let name = self.name(&pat.ident);
                self.ids.push((self.table.id(&pat.ident), name.clone()));
                let bound = self.bound.entry(name).or_default();
                bound.count += 1;
                bound.mutable |= pat.mutability.is_some();
                visit::visit_pat_ident(self, pat);
            }
            fn visit_local(&mut self, local: &'ast Local) {
                if let Some(ident) = constant(local) {
                    let block = self.block.last().copied().unwrap_or(0);
                    let id = self.table.id(ident);
                    self.literal.push((block, self.name(ident), id));
                }
                if let (Some(ident), Some(init)) = (single(local), &local.init)
                    && init.diverge.is_none()
                {
                    self.single
                        .push((self.table.id(ident), (*init.expr).clone()));
                }
                visit::visit_local(self, local);
            }
        }
        let mut names = Names {
            table: bindings,
            bound: HashMap::new(),
            ids: Vec::new(),
            literal: Vec::new(),
            single: Vec::new(),
            blocks: 0,
            block: Vec::new(),
        };
        // As `visit_item_fn` walks the function's signature and block.
        names.visit_signature(sig);
        names.visit_block(body);
        let Names {
            bound,
            ids,
            literal,
            single,
            ..
        } = names;
        let mut constants: Vec<BindingId> = Vec::new();
        for (_, name, _) in &literal {
            let lets: Vec<(usize, BindingId)> = literal
                .iter()
                .filter(|(_, other, _)| other == name)
                .map(|&(block, _, id)| (block, id))
                .collect();
            let mut blocks: Vec<usize> = lets.iter().map(|&(block, _)| block).collect();
            blocks.sort_unstable();
            blocks.dedup();
            let only_constants = bound.get(name).map(|b| b.count) == Some(lets.len());
            if only_constants && blocks.len() == lets.len() {
                for (_, id) in lets {
                    if !constants.contains(&id) {
                        constants.push(id);
                    }
                }
            }
        }
        let context = bindings.written(context).to_string();
        let context = (ids.iter())
            .find(|(_, name)| *name == context && bound.get(name).is_some_and(|b| b.count == 1))
            .map(|&(id, _)| id);
        // Each binding has what the function tells of its name.
        let by_id = (ids.into_iter())
            .filter_map(|(id, name)| Some((id, *bound.get(&name)?)))
            .collect();
        let mut hoisted = Self {
            constants,
            bindings: by_id,
            borrowing: Vec::new(),
            context,
        };
        let roots = reborrow::Roots {
            hoisted: &hoisted,
            bindings,
            once: true,
            bound: &[],
        };
        let borrowing = single
            .into_iter()
            .filter(|(id, init)| {
                hoisted.bound_once(*id)
                    && reborrow::stable(init, roots)
                    && !hoisted.literal_choice(init, bindings)
            })
            .map(|(id, _)| id)
            .collect();
        hoisted.borrowing = borrowing;
        hoisted
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Ident;
    use syn::ItemFn;

    use super::Hoisted;
    use crate::flow::lower::bindings::tests::each;
    use crate::flow::lower::bindings::{BindingId, Bindings};

    /// The binding of the `n`th token named `name` in `function`.
    fn nth(function: &ItemFn, bindings: &Bindings, name: &str, n: usize) -> BindingId {
        each(function, bindings, name)[n]
    }

    #[test]
    fn what_the_function_tells_of_a_binding_is_read_by_its_id() {
        let function: ItemFn = syn::parse_str(
            "async fn f(args: Args, cx: Cx) -> R { let shown = &args.name; let mut n = 0; \
             n += 1; let kept = n; { let twice = 1; } let twice = 2; \
             helper(shown, kept, twice, cx.state::<Db>()) }",
        )
        .expect("the function parses");
        let params: Vec<Ident> = (function.sig.inputs.iter())
            .map(|input| match input {
                syn::FnArg::Typed(typed) => match &*typed.pat {
                    syn::Pat::Ident(pat) => pat.ident.clone(),
                    _ => panic!("a named parameter"),
                },
                syn::FnArg::Receiver(_) => panic!("no receiver"),
            })
            .collect();
        let (args, cx) = (&params[0], &params[1]);
        let bindings = Bindings::resolve(&[args, cx], &[], &function.block);
        let hoisted = Hoisted::of((&function.sig, &function.block), cx, &bindings);
        let id = |name, n| nth(&function, &bindings, name, n);
        // A stable borrow of a parameter's field, its name bound once: had again.
        assert!(hoisted.borrowing(id("shown", 0)) && hoisted.borrowing(id("shown", 1)));
        assert!(hoisted.unchanging(id("shown", 1)));
        // A `mut` local changes; a local bound once from it does not, and borrows nothing.
        assert!(!hoisted.unchanging(id("n", 0)) && !hoisted.unchanging(id("n", 2)));
        assert!(hoisted.unchanging(id("kept", 0)) && !hoisted.borrowing(id("kept", 0)));
        // Two bindings of one name, in nested scopes: neither is bound once.
        assert_ne!(id("twice", 0), id("twice", 1));
        assert!(!hoisted.bound_once(id("twice", 0)) && !hoisted.bound_once(id("twice", 1)));
        // The context, at its use; an item, bound nowhere, always means the same.
        assert!(hoisted.is_context(id("cx", 1)) && !hoisted.is_context(id("args", 1)));
        assert!(hoisted.unchanging(id("helper", 0)) && !hoisted.bound_once(id("helper", 0)));
    }
}
