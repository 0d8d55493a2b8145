//! The output written under the new names the lower stage gave hidden locals (see
//! `lower/shadow.rs`): every stage before keeps the body as the user wrote it and asks the
//! binding table which binding a token is; here, once, each token of a renamed binding is
//! written under its new name, in code and in the format strings of the standard macros.
//!
//! Input, the step function with `name` (the first `let`) renamed `__mcp_local0_name`:
//! ```text
//! let name = args.name.clone();
//! println!("{name}");
//! let name = name.trim();
//! ```
//! Output:
//! ```text
//! let __mcp_local0_name = args.name.clone();
//! println!("{__mcp_local0_name}");
//! let name = __mcp_local0_name.trim();
//! ```
//! A token is its binding's by its text and place (see `lower::bindings`), so the copies of
//! the body the stages made (the start's nest, each resumed body, the hiders rewritten to
//! borrow first) and the locals they restore are renamed with the body, and the parameters
//! the step function binds with them. What the macro wrote itself has names no binding of the
//! body has, and is left as it is.
//!
//! Each identifier of a renamed binding is written anew where it stands in the tokens, and
//! each format string that captures one: one pass over the step's tokens. A shorthand field
//! of a renamed binding (`Point { x }`) must be written out (`Point { x: __mcp_local0_x }`),
//! which takes the syntax: only then is the step function parsed and written anew as a tree.

use proc_macro2::{Group, Ident, Literal, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ItemFn, LitStr, Pat};

use crate::flow::lower::bindings::{Args, Bindings, argument_name};
use crate::flow::std_facts::format_position;
use crate::flow::syntax::inline_args;

/// `step`, the step function, with each token of a binding the table renamed written under
/// its new name; `step` as it is where no binding is renamed.
pub(crate) fn written(step: TokenStream, bindings: &Bindings) -> TokenStream {
    if !bindings.renames_any() {
        return step;
    }
    if !bindings.renames_a_shorthand() {
        return tokens_anew(step, bindings).0;
    }
    match syn::parse2::<ItemFn>(step) {
        Ok(mut function) => {
            rename(&mut function, bindings);
            function.into_token_stream()
        }
        // The step is made of the body, which parsed, and of the macro's own code: this is
        // the macro's mistake, said as such rather than written under the wrong names.
        Err(error) => syn::Error::new(
            error.span(),
            format!("`mcp` could not read back the step function it wrote: {error}"),
        )
        .to_compile_error(),
    }
}

/// `tokens` with each identifier of a renamed binding and each format string that captures
/// one written anew; whether any is.
fn tokens_anew(tokens: TokenStream, bindings: &Bindings) -> (TokenStream, bool) {
    let mut changed = false;
    let out = tokens
        .into_iter()
        .map(|tree| match tree {
            TokenTree::Ident(ident) => match bindings.renamed(&ident) {
                Some(new) => {
                    changed = true;
                    TokenTree::Ident(new)
                }
                None => TokenTree::Ident(ident),
            },
            TokenTree::Group(group) => match tokens_anew(group.stream(), bindings) {
                (inner, true) => {
                    changed = true;
                    let mut anew = Group::new(group.delimiter(), inner);
                    anew.set_span(group.span());
                    TokenTree::Group(anew)
                }
                (_, false) => TokenTree::Group(group),
            },
            TokenTree::Literal(literal) => match literal_anew(&literal, bindings) {
                Some(new) => {
                    changed = true;
                    TokenTree::Literal(new)
                }
                None => TokenTree::Literal(literal),
            },
            TokenTree::Punct(punct) => TokenTree::Punct(punct),
        })
        .collect();
    (out, changed)
}

/// `literal` written anew, if it is a format string that captures a renamed binding: the
/// table knows each capture of a standard macro's format string by the literal's place.
fn literal_anew(literal: &Literal, bindings: &Bindings) -> Option<Literal> {
    if !literal.to_string().contains('{') {
        return None;
    }
    let syn::Lit::Str(format) = syn::Lit::new(literal.clone()) else {
        return None;
    };
    format_anew(&format, bindings).map(|format| format.token())
}

/// `format` with each name it captures that names a renamed binding written anew, if any
/// does.
fn format_anew(format: &LitStr, bindings: &Bindings) -> Option<LitStr> {
    let text = format.value();
    let mut out = String::new();
    let mut from = 0;
    for range in inline_args(&text) {
        let name = &text[range.clone()];
        let Some(new) = bindings.captured_renamed(name, format.span()) else {
            continue;
        };
        out.push_str(&text[from..range.start]);
        out.push_str(new);
        from = range.end;
    }
    (from > 0).then(|| {
        out.push_str(&text[from..]);
        LitStr::new(&out, format.span())
    })
}

/// Writes each token of a renamed binding in `function` (its parameters and body) under its
/// new name, as a tree: shorthand fields are written out.
fn rename(function: &mut ItemFn, bindings: &Bindings) {
    Renamer {
        bindings,
        renamed: 0,
    }
    .visit_item_fn_mut(function);
}

/// Writes each token of a renamed binding under its new name.
struct Renamer<'a> {
    bindings: &'a Bindings,
    /// How many tokens it has written anew so far.
    renamed: usize,
}

impl Renamer<'_> {
    /// `ident` under its binding's new name, at its own span, if that binding is renamed.
    fn new_name(&mut self, ident: &Ident) -> Option<Ident> {
        let new = self.bindings.renamed(ident)?;
        self.renamed += 1;
        Some(new)
    }

    /// `format` with each name it captures that names a renamed binding written anew.
    fn format_string(&mut self, format: &mut LitStr) {
        if let Some(new) = format_anew(format, self.bindings) {
            *format = new;
            self.renamed += 1;
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
        }
    }

    fn visit_pat_ident_mut(&mut self, pat: &mut syn::PatIdent) {
        if let Some(new) = self.new_name(&pat.ident) {
            pat.ident = new;
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

    // The items the step declares name no local.
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests;
