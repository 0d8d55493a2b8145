//! A parameter bound `mut` becomes a local: what the handler changes in it before a question
//! must be what it reads after, and a parameter is given again each round (a tool's
//! arguments from the request, a sub-flow's from its caller), so the changed value travels
//! as any other local does.
//!
//! Input:
//! ```text
//! async fn ask(cx: &Cx, mut question: String) -> .. { question.push('?'); .. }
//! async fn tally(Args { mut items, start }: Args, cx: Cx) -> .. { items.push(..); .. }
//! ```
//! Output:
//! ```text
//! async fn ask(cx: &Cx, __mcp_arg_question: String) -> .. {
//!     let mut question = __mcp_arg_question;
//!     question.push('?'); ..
//! }
//! async fn tally(__mcp_arg0: Args, cx: Cx) -> .. {
//!     let Args { mut items, start } = __mcp_arg0;
//!     items.push(..); ..
//! }
//! ```
//! The `let` keeps the user's pattern and its spans, so an unused `mut` or a value that
//! cannot travel is reported at the user's token. The context and `State<T>` parameters,
//! which the runtime gives again each round by design, are left as written.

use syn::spanned::Spanned;
use syn::visit::{self, Visit};
use syn::{FnArg, Ident, ItemFn, Pat, PatIdent, Stmt};

use crate::flow::parse::model::{Kind, is_cx_type, is_state_type};
use crate::flow::syntax::ARG;

/// What [`into_locals`] moved into the body.
#[derive(Default)]
pub(crate) struct Moved {
    /// The locals the moved parameters' patterns bind, at the tokens that bind them in the
    /// body.
    pub(crate) locals: Vec<Ident>,
    /// Each parameter the function now takes in place of one bound by a name, with that name
    /// as the user wrote it (`__mcp_arg_question` for `mut question`).
    pub(crate) params: Vec<(Ident, Ident)>,
}

/// `function` with each parameter that binds a name `mut` moved into its body, and what was
/// moved. A sub-flow's argument bound by another pattern is left for `model` to refuse.
pub(crate) fn into_locals(kind: Kind, mut function: ItemFn) -> (ItemFn, Moved) {
    let mut lets: Vec<Stmt> = Vec::new();
    let mut moved = Moved::default();
    for (n, input) in function.sig.inputs.iter_mut().enumerate() {
        let FnArg::Typed(typed) = input else { continue };
        let refused = kind == Kind::Elicit && !matches!(&*typed.pat, Pat::Ident(_));
        if is_cx_type(&typed.ty) || is_state_type(&typed.ty) || refused || !binds_mut(&typed.pat) {
            continue;
        }
        let name = match &*typed.pat {
            Pat::Ident(p) => format!("{ARG}_{}", p.ident.to_string().trim_start_matches("r#")),
            _ => format!("{ARG}{n}"),
        };
        let param = Ident::new(&name, typed.pat.span());
        let pat = std::mem::replace(
            &mut *typed.pat,
            Pat::Ident(PatIdent {
                attrs: Vec::new(),
                by_ref: None,
                mutability: None,
                ident: param.clone(),
                subpat: None,
            }),
        );
        if let Pat::Ident(named) = &pat {
            moved.params.push((param.clone(), named.ident.clone()));
        }
        moved
            .locals
            .extend(bound(&pat).iter().map(|p| p.ident.clone()));
        lets.push(syn::parse_quote!(let #pat = #param;));
    }
    if !lets.is_empty() {
        lets.append(&mut function.block.stmts);
        function.block.stmts = lets;
    }
    (function, moved)
}

/// Whether `pat` binds a name `mut`.
fn binds_mut(pat: &Pat) -> bool {
    bound(pat).iter().any(|ident| ident.mutability.is_some())
}

/// The names `pat` binds, as bound.
pub(crate) fn bound(pat: &Pat) -> Vec<&PatIdent> {
    struct Finder<'a>(Vec<&'a PatIdent>);
    impl<'a> Visit<'a> for Finder<'a> {
        fn visit_pat_ident(&mut self, pat: &'a PatIdent) {
            self.0.push(pat);
            visit::visit_pat_ident(self, pat);
        }
    }
    let mut finder = Finder(Vec::new());
    finder.visit_pat(pat);
    finder.0
}

#[cfg(test)]
mod tests {
    use quote::ToTokens;
    use syn::ItemFn;

    use super::into_locals;
    use crate::flow::Kind;

    fn moved(function: &str) -> String {
        let function: ItemFn = syn::parse_str(function).expect("the function parses");
        into_locals(Kind::Tool, function)
            .0
            .to_token_stream()
            .to_string()
    }

    fn tokens(function: &str) -> String {
        let function: ItemFn = syn::parse_str(function).expect("the expected function parses");
        function.to_token_stream().to_string()
    }

    #[test]
    fn parameters_bound_mut_move_into_the_body_in_order() {
        let out = moved(
            "async fn f(Args { mut items, start }: Args, cx: &Cx, mut q: String, n: u32) { go(); }",
        );
        let want = "async fn f(__mcp_arg0: Args, cx: &Cx, __mcp_arg_q: String, n: u32) { \
                    let Args { mut items, start } = __mcp_arg0; let mut q = __mcp_arg_q; go(); }";
        assert_eq!(out, tokens(want));
    }

    #[test]
    fn a_sub_flows_argument_bound_by_a_pattern_is_left_for_the_model_to_refuse() {
        let function = "async fn f(cx: &Cx, (mut a, b): (u32, u32)) { go(); }";
        let parsed: ItemFn = syn::parse_str(function).expect("the function parses");
        let (out, moved) = into_locals(Kind::Elicit, parsed);
        assert_eq!(out.to_token_stream().to_string(), tokens(function));
        assert!(moved.locals.is_empty() && moved.params.is_empty());
    }

    #[test]
    fn a_parameter_moved_by_its_name_is_recorded_with_that_name() {
        let function = "async fn f(cx: &Cx, mut q: String, Args { mut items }: Args) { go(); }";
        let parsed: ItemFn = syn::parse_str(function).expect("the function parses");
        let (_, moved) = into_locals(Kind::Tool, parsed);
        let names =
            |idents: &[&syn::Ident]| idents.iter().map(ToString::to_string).collect::<Vec<_>>();
        let params: Vec<_> = moved
            .params
            .iter()
            .map(|(param, written)| [param, written])
            .collect();
        assert_eq!(
            params.iter().map(|pair| names(pair)).collect::<Vec<_>>(),
            [["__mcp_arg_q", "q"]]
        );
        assert_eq!(
            names(&moved.locals.iter().collect::<Vec<_>>()),
            ["q", "items"]
        );
    }

    #[test]
    fn the_context_state_and_parameters_not_mut_stay_as_written() {
        for function in [
            "async fn f(args: Args, mut cx: Cx) { go(); }",
            "async fn f(State(mut n): State<u32>, Args { items, .. }: Args) { go(); }",
        ] {
            assert_eq!(moved(function), tokens(function));
        }
    }
}
