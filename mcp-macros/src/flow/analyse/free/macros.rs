//! Macro calls, read as tokens: the walk cannot see what a macro's body means, so it takes
//! every identifier in it, and every name a format string in it names inline, for a use: of
//! the binding the table resolved it to (a name in a string literal, at the literal's span;
//! see `Bindings::captured`).

use proc_macro2::{TokenStream, TokenTree};

use super::FreeVars;
use crate::flow::syntax::inline_args;

impl FreeVars<'_> {
    /// Macro bodies are opaque: every identifier in them, and every `{name}` in their string
    /// literals, counts as a use. Over-counting only carries a local that was not needed.
    pub(super) fn mac(&mut self, mac: &syn::Macro) {
        self.tokens(mac.tokens.clone());
    }

    /// An identifier counts as a use unless the tokens around it say it is a name of
    /// something else: a field after `.`, or a key before a lone `=` (`status = %value` in a
    /// `tracing` macro, `name = value` in `format!`).
    fn tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        for (i, tree) in trees.iter().enumerate() {
            match tree {
                TokenTree::Ident(ident) => {
                    let after_dot = i
                        .checked_sub(1)
                        .and_then(|j| trees.get(j))
                        .is_some_and(|prev| is_punct(prev, '.'));
                    let before_assign = trees.get(i + 1).is_some_and(|next| {
                        matches!(next, TokenTree::Punct(p) if p.as_char() == '='
                            && p.spacing() == proc_macro2::Spacing::Alone)
                    });
                    if !after_dot && !before_assign {
                        self.use_binding(self.id(ident));
                    }
                }
                TokenTree::Group(group) => self.tokens(group.stream()),
                TokenTree::Literal(lit) => {
                    let text = lit.to_string();
                    if text.starts_with('"') || text.starts_with('r') {
                        for name in format_args_in(&text) {
                            let captured = self.lookup.bindings.captured(&name, lit.span());
                            if let Some(id) = captured {
                                self.use_binding(id);
                            }
                        }
                    }
                }
                TokenTree::Punct(_) => {}
            }
        }
    }
}

fn is_punct(tree: &TokenTree, c: char) -> bool {
    matches!(tree, TokenTree::Punct(p) if p.as_char() == c)
}

/// Identifiers named inline in a format string: `{name}`, `{name:?}`, `{name:>8}`.
fn format_args_in(text: &str) -> Vec<String> {
    inline_args(text)
        .into_iter()
        .map(|range| text[range].to_owned())
        .collect()
}
