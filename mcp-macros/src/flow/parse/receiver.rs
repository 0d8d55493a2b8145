//! A handler's `&self`: the value of its type that the server was given with `.state(value)`,
//! taken each round as a `State<Self>` parameter, which the body reads where it read `self`.
//!
//! Input:
//! ```text
//! #[tool]
//! async fn lookup(&self, args: Args, cx: Cx) -> ToolResult { .. self.db.get(&args.key) .. }
//! ```
//! As the flow reads it:
//! ```text
//! async fn lookup(__mcp_self_state: ::mcp_runtime::State<Self>, args: Args, cx: Cx)
//!     -> ToolResult { .. __mcp_self.db.get(&args.key) .. }
//! ```
//! and the step binds `let __mcp_self: &Self = &__mcp_self_state.0;` before the body (see
//! [`binding`]), so `__mcp_self` is the `&Self` that `self` was. Like any `State<T>`, it is
//! given again each round and never travels; a server built without a value of the type is
//! refused at `build`, with the type's name. A path through the module (`self::helper`) and
//! the body's own items keep their `self`.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Pat, Receiver, Type};

/// The name the body reads `self` by.
fn name(span: Span) -> Ident {
    Ident::new("__mcp_self", span)
}

/// The name of the `State<Self>` it is borrowed from.
fn state_name(span: Span) -> Ident {
    format_ident!("__mcp_self_state", span = span)
}

/// The statement that binds the body's `self`, as a `&Self`, from the `State<Self>` of the
/// receiver at `span`.
pub(crate) fn binding(span: Span) -> TokenStream {
    let (this, state) = (name(span), state_name(span));
    quote_spanned!(span=> let #this: &Self = &#state.0;)
}

/// The `State<Self>` parameter `&self` stands for, or why this receiver cannot be one.
pub(crate) fn state_param(receiver: &Receiver) -> syn::Result<(Pat, Type)> {
    let shared = matches!(receiver.kind, syn::ReceiverKind::Reference(_, _, None));
    if !shared || receiver.mutability.is_some() {
        return Err(syn::Error::new_spanned(
            receiver,
            "a handler takes `&self` (the value of its type given to the server with \
             `.state(value)`), which its calls share; keep what changes behind a lock \
             (`Mutex`) and write `&self`",
        ));
    }
    let span = receiver.self_token.span;
    let state = state_name(span);
    let self_ty = quote_spanned!(span=> Self);
    Ok((
        syn::parse_quote!(#state),
        syn::parse_quote!(::mcp_runtime::State<#self_ty>),
    ))
}

/// Rewrites each `self` of `body` (outside its items) as the name bound by [`binding`];
/// whether there was one.
pub(crate) fn read_as_state(body: &mut Block) -> bool {
    let mut reads = SelfReads(false);
    reads.visit_block_mut(body);
    reads.0
}

/// Whether a `self` was rewritten.
struct SelfReads(bool);

impl VisitMut for SelfReads {
    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Path(path) = expr
            && path.qself.is_none()
            && let Some(ident) = path.path.get_ident()
            && ident == "self"
        {
            let this = name(ident.span());
            *expr = syn::parse_quote!(#this);
            self.0 = true;
            return;
        }
        visit_mut::visit_expr_mut(self, expr);
    }

    fn visit_macro_mut(&mut self, mac: &mut syn::Macro) {
        mac.tokens = in_tokens(std::mem::take(&mut mac.tokens), &mut self.0);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `tokens` with each `self` that does not start a path (`self::..`) rewritten; `reads` is
/// set if there was one.
fn in_tokens(tokens: TokenStream, reads: &mut bool) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(trees.len());
    for (at, tree) in trees.iter().enumerate() {
        out.push(match tree {
            TokenTree::Ident(ident) if ident == "self" && !starts_path(&trees[at + 1..]) => {
                *reads = true;
                TokenTree::Ident(name(ident.span()))
            }
            TokenTree::Group(group) => {
                let mut rewritten =
                    proc_macro2::Group::new(group.delimiter(), in_tokens(group.stream(), reads));
                rewritten.set_span(group.span());
                TokenTree::Group(rewritten)
            }
            other => other.clone(),
        });
    }
    out.into_iter().collect()
}

/// Whether `rest` begins with `::`.
fn starts_path(rest: &[TokenTree]) -> bool {
    matches!(rest, [TokenTree::Punct(first), TokenTree::Punct(second), ..]
        if first.as_char() == ':' && second.as_char() == ':')
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;

    use super::*;
    use crate::flow::parsed::tokens;

    #[test]
    fn each_self_outside_paths_and_items_is_read_as_the_state() {
        let mut body: Block = syn::parse_str(
            "{ let n = self.count(); helper(self, self::f()); \
               println!(\"{} {}\", self.name, self::NAME); \
               fn inner(x: u8) -> u8 { x } n }",
        )
        .expect("the body parses");
        assert!(read_as_state(&mut body));
        let expected = tokens(
            "{ let n = __mcp_self.count(); helper(__mcp_self, self::f()); \
               println!(\"{} {}\", __mcp_self.name, self::NAME); \
               fn inner(x: u8) -> u8 { x } n }",
        );
        assert_eq!(body.to_token_stream().to_string(), expected);
    }

    #[test]
    fn only_a_shared_borrow_of_self_is_taken() {
        for receiver in ["&mut self", "self", "self: Arc<Self>", "mut self"] {
            let function: syn::ItemFn =
                syn::parse_str(&format!("fn f({receiver}) {{}}")).expect("the function parses");
            let Some(syn::FnArg::Receiver(receiver)) = function.sig.inputs.first() else {
                panic!("a receiver");
            };
            assert!(
                state_param(receiver).is_err(),
                "{}",
                receiver.to_token_stream()
            );
        }
    }
}
