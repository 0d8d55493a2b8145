//! The arguments of a standard macro read from its tokens where they are plain: each a
//! literal, or a name followed by fields (`"Question {} of 2", args.service`), as most
//! `format!`s of a handler are. syn would parse them into `Expr::Lit`, `Expr::Path` and
//! `Expr::Field`, whose only use the walk reads is each chain's first name; parsing them
//! was most of what resolving a body's macros cost. Any other argument (a keyword, a call,
//! a path, an operator, `name = value`, a group) leaves the macro to syn's parse.

use proc_macro2::{Ident, Literal, TokenStream, TokenTree};

use crate::flow::syntax::keyword;

/// One plain argument.
pub(super) enum Plain {
    /// A literal.
    Literal(Literal),
    /// A name, read as a path of one segment; the fields after it read nothing.
    Name(Ident),
}

/// The arguments of a macro whose `tokens` are plain arguments separated by commas, a comma
/// after the last allowed; `None` where one is anything else, or there is none.
pub(super) fn plain_args(tokens: &TokenStream) -> Option<Vec<Plain>> {
    // What the next token may be: an argument's start, the `.` or comma after one, or a
    // field's name after a `.`.
    #[derive(PartialEq)]
    enum Next {
        Start,
        After,
        Field,
    }
    let mut args = Vec::new();
    let mut next = Next::Start;
    for tree in tokens.clone() {
        next = match (next, tree) {
            (Next::Start, TokenTree::Literal(literal)) => {
                args.push(Plain::Literal(literal));
                Next::After
            }
            (Next::Start, TokenTree::Ident(ident)) if !keyword(&ident.to_string()) => {
                args.push(Plain::Name(ident));
                Next::After
            }
            (Next::After, TokenTree::Punct(punct)) if punct.as_char() == ',' => Next::Start,
            (Next::After, TokenTree::Punct(punct))
                if punct.as_char() == '.'
                    && punct.spacing() == proc_macro2::Spacing::Alone
                    && matches!(args.last(), Some(Plain::Name(_))) =>
            {
                Next::Field
            }
            (Next::Field, TokenTree::Ident(ident)) if !keyword(&ident.to_string()) => Next::After,
            _ => return None,
        };
    }
    (next != Next::Field && !args.is_empty()).then_some(args)
}
