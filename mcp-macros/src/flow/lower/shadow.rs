//! A binding that hides the local of its name while reading it (`let name = name.trim();`,
//! `for line in &lines { let line = line.trim(); .. }`, `let args = &args.items;` on the
//! arguments, `let question = question.trim();` on a sub-flow's): one of the two is renamed,
//! so that each name the body uses names one binding. The hider is then a borrow of a place
//! bound once, which the flow takes again where it resumes, and what it borrows travels.
//!
//! Input:
//! ```text
//! let name = args.name.clone();
//! let name = name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! Output:
//! ```text
//! let __mcp_local0_name = args.name.clone();
//! let name = __mcp_local0_name.trim();
//! let ok: Yes = cx.elicit(..).await?;
//! use(name, ok)
//! ```
//! The hidden local is renamed, or its hider where another macro's tokens may name the hidden
//! one (those tokens are not known to be code: `tracing`'s `status = %status`) or a
//! parameter's pattern binds it (`State(db)`); where such macros may name both, neither is.
//! The standard macros whose arguments are expressions (`format!`, `println!`, `assert_eq!`,
//! `vec!`, ..) are read as such, and a `{name}` their format string captures is renamed with
//! the rest. Which binding each token is comes from the table the lower stage resolved once
//! (`bindings`), which learns each new name: each use keeps its span, and what the user reads
//! names the local as written ([`Bindings::shown`]).

use std::collections::HashMap;

use proc_macro2::Ident;
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, FnArg, ItemFn, LitStr, Pat};

use super::bindings::{Args, BindingId, BindingKind, Bindings, argument_name};
use crate::flow::questions::awaits;
use crate::flow::std_facts::format_position;
use crate::flow::syntax::{RENAMED, inline_args};

/// Renames in `body` each local that a binding of its name hides while reading it, as
/// `bindings` resolved them, and records each new name there. `params` are the handler's
/// parameters bound to a name (a sub-flow's arguments, a tool's arguments struct), renamed in
/// place where one is hidden so (the step function binds them under the new name); those a
/// pattern binds (`State(db)`) are `fixed` in the table and keep their names, as does a
/// binding one of whose tokens stands for another binding too ([`Bindings::clashing`]).
/// Nothing is renamed in a body that awaits nothing.
pub(crate) fn rename(body: &mut Block, params: &mut [&mut Ident], bindings: &mut Bindings) {
    if !awaits(body) {
        return;
    }
    // Of a hidden local and its hider, the first whose name can change.
    let mut renames: HashMap<BindingId, Ident> = HashMap::new();
    let hiders: Vec<(BindingId, BindingId)> = (bindings.iter())
        .filter_map(|(id, binding)| binding.hides.map(|hidden| (hidden, id)))
        .collect();
    for (outer, inner) in hiders {
        if renames.contains_key(&outer) || renames.contains_key(&inner) {
            continue;
        }
        let free = [outer, inner]
            .into_iter()
            .filter(|&id| !bindings.clashing(id))
            .find_map(|id| bindings.get(id).filter(|b| !b.fixed).map(|b| (id, b)));
        if let Some((id, binding)) = free {
            let name = binding.name.to_string();
            let name = name.trim_start_matches("r#");
            let new = format!("{RENAMED}{}_{name}", renames.len());
            renames.insert(id, Ident::new(&new, binding.name.span()));
        }
    }
    if renames.is_empty() {
        return;
    }
    let mut renamer = Renamer {
        bindings,
        renames: &renames,
        renamed: 0,
    };
    renamer.visit_block_mut(body);
    let parameter = |id: &BindingId| {
        bindings
            .get(*id)
            .is_some_and(|b| b.kind == BindingKind::Parameter)
    };
    if renames.keys().any(parameter) {
        for param in params.iter_mut() {
            if let Some(new) = renamer.new_name(param) {
                **param = new;
            }
        }
    }
    for (id, new) in &renames {
        bindings.rename(*id, &new.to_string());
    }
}

/// Writes each token of a renamed binding under its new name.
struct Renamer<'a> {
    bindings: &'a Bindings,
    renames: &'a HashMap<BindingId, Ident>,
    /// How many tokens it has written anew so far.
    renamed: usize,
}

impl Renamer<'_> {
    /// `ident` under its binding's new name, at its own span, if that binding is renamed.
    fn new_name(&self, ident: &Ident) -> Option<Ident> {
        let id = self.bindings.find(ident)?;
        let new = self.renames.get(&id)?;
        Some(Ident::new(&new.to_string(), ident.span()))
    }

    /// `format` with each name it captures that names a renamed binding written anew.
    fn format_string(&mut self, format: &mut LitStr) {
        let text = format.value();
        let mut out = String::new();
        let mut from = 0;
        for range in inline_args(&text) {
            let name = &text[range.clone()];
            let Some(new) =
                (self.bindings.captured(name, format.span())).and_then(|id| self.renames.get(&id))
            else {
                continue;
            };
            out.push_str(&text[from..range.start]);
            out.push_str(&new.to_string());
            from = range.end;
            self.renamed += 1;
        }
        if from > 0 {
            out.push_str(&text[from..]);
            *format = LitStr::new(&out, format.span());
        }
    }
}

impl VisitMut for Renamer<'_> {
    fn visit_expr_path_mut(&mut self, path: &mut syn::ExprPath) {
        if path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
            && let Some(new) = self.new_name(ident)
        {
            path.path.segments[0].ident = new;
            self.renamed += 1;
        }
    }

    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        if let Some(new) = self.new_name(&pat.ident) {
            pat.ident = new;
            self.renamed += 1;
        }
        visit_mut::visit_pat_ident_mut(self, pat);
    }

    fn visit_field_value_mut(&mut self, field: &mut syn::FieldValue) {
        visit_mut::visit_field_value_mut(self, field);
        // `Struct { name }` of a renamed local is `Struct { name: __mcp_local0_name }`.
        if field.colon_token.is_none()
            && let (syn::Member::Named(member), Expr::Path(path)) = (&field.member, &field.expr)
            && !path.path.is_ident(member)
        {
            field.colon_token = Some(Default::default());
        }
    }

    fn visit_field_pat_mut(&mut self, field: &mut syn::FieldPat) {
        visit_mut::visit_field_pat_mut(self, field);
        // `Point { x }` binding a renamed `x` is `Point { x: __mcp_local0_x }`.
        if let (syn::Member::Named(member), Pat::Ident(p)) = (&field.member, &*field.pat)
            && p.ident != *member
        {
            field.colon_token.get_or_insert_default();
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        // Another macro's tokens keep their names: the bindings they may name are fixed.
        let Some(format) = format_position(&mac.path) else {
            return;
        };
        let Ok(mut args) = mac.parse_body_with(Args::parse_terminated) else {
            return;
        };
        let after_format = |i: usize| format.is_some_and(|at| i > at);
        let renamed = self.renamed;
        for (i, arg) in args.iter_mut().enumerate() {
            // Named arguments follow the format string (`format!("{x}", x = name)`).
            let named = after_format(i) && argument_name(arg).is_some();
            match arg {
                Expr::Assign(assign) if named => self.visit_expr_mut(&mut assign.right),
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(text),
                    ..
                }) if format == Some(i) => self.format_string(text),
                other => self.visit_expr_mut(other),
            }
        }
        if self.renamed > renamed {
            mac.tokens = args.to_token_stream();
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `function` as the flow compiles it: `body`, the body renamed, and each argument under
/// its name in the body, as `bindings` has it.
pub(crate) fn renamed(function: &ItemFn, body: &Block, bindings: &Bindings) -> ItemFn {
    let mut renamed = function.clone();
    renamed.block = Box::new(body.clone());
    for input in &mut renamed.sig.inputs {
        if let FnArg::Typed(typed) = input
            && let Pat::Ident(p) = &mut *typed.pat
        {
            p.ident = bindings.written(&p.ident);
        }
    }
    renamed
}

#[cfg(test)]
mod tests;
