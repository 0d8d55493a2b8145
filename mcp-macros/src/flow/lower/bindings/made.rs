//! The locals the macro makes after the scopes are resolved, recorded in the binding table
//! with what they are for, and the parameters it renamed before: later stages ask the table
//! what a local holds (to name it to users, or to find the collection a loop walks) and how
//! the user wrote a parameter, rather than reading either from a name.

use proc_macro2::Ident;

use super::{BindingId, Bindings, Token};

/// What a local the macro made holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Made {
    /// The position of resumable `for` loop `N` (`sites::Loop` number `N`): how many items
    /// it has taken.
    Position(usize),
    /// The iterator of resumable `for` loop `N`, rebuilt on resume from its position.
    Iterator(usize),
    /// The queue of items still to come of the `for` loop whose items are taken once
    /// (`sites::Taken` number `N`).
    Items(usize),
    /// An operand taken first into a local of its own (see `sites/operands.rs`).
    Operand,
}

impl Bindings {
    /// Records `ident`, a local the macro made, as holding `what`: each of its tokens (the
    /// same text at the same place) is that local.
    pub(crate) fn make(&mut self, ident: &Ident, what: Made) -> BindingId {
        let id = self.id(ident);
        self.made_kinds.insert(id, what);
        id
    }

    /// What `ident` holds, if the macro made it (see [`Bindings::make`]).
    pub(crate) fn made(&self, ident: &Ident) -> Option<Made> {
        let id = self.made.borrow().get(&Token::name_of(ident)).copied()?;
        self.made_kinds.get(&id).copied()
    }

    /// Records that the parameter `param`, which the macro renamed before resolving (a
    /// parameter bound `mut`, moved into the body: see `mutable`), was written `written`:
    /// [`Bindings::shown`] gives that name.
    pub(crate) fn written_as(&mut self, param: &Ident, written: &Ident) {
        if let Some(id) = self.find(param) {
            self.bindings[id.index()].name = written.clone();
        }
    }

    /// Whether `ident` is a local an operand was taken into: what users read names it by what
    /// it holds, not by its name.
    pub(crate) fn is_operand(&self, ident: &Ident) -> bool {
        self.made(ident) == Some(Made::Operand)
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::{Ident, Span};
    use syn::Block;

    use super::{Bindings, Made};

    #[test]
    fn a_made_local_reads_back_what_it_holds_at_each_of_its_tokens() {
        let body: Block = syn::parse_str("{ let pos = 1; go(pos); }").expect("the body parses");
        let mut bindings = Bindings::resolve(&[], &[], &body);
        let position = Ident::new("__mcp_pos_0", Span::mixed_site());
        let operand = Ident::new("__mcp_operand0", Span::call_site());
        let id = bindings.make(&position, Made::Position(0));
        bindings.make(&operand, Made::Operand);
        let again = Ident::new("__mcp_pos_0", Span::mixed_site());
        assert_eq!(bindings.id(&again), id);
        assert_eq!(bindings.made(&again), Some(Made::Position(0)));
        assert!(bindings.is_operand(&operand) && !bindings.is_operand(&position));
        // What the macro did not make holds nothing it recorded, whatever its name.
        let unmade = Ident::new("__mcp_items_0", Span::mixed_site());
        assert_eq!(bindings.made(&unmade), None);
        let syn::Stmt::Local(local) = &body.stmts[0] else {
            panic!("the first statement is a `let`");
        };
        let syn::Pat::Ident(user) = &local.pat else {
            panic!("the `let` binds a name");
        };
        assert_eq!(bindings.made(&user.ident), None);
    }

    #[test]
    fn a_renamed_parameter_is_shown_as_written() {
        let param = Ident::new("__mcp_arg_question", Span::call_site());
        let body: Block =
            syn::parse_str("{ let question = __mcp_arg_question; }").expect("the body parses");
        let mut bindings = Bindings::resolve(&[&param], &[], &body);
        assert_eq!(bindings.shown(&param), "__mcp_arg_question");
        bindings.written_as(&param, &Ident::new("question", Span::call_site()));
        assert_eq!(bindings.shown(&param), "question");
        assert_eq!(bindings.shown_name(&param), "question");
    }
}
