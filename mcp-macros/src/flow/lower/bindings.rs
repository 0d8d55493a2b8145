//! Scopes, resolved once: every binding of the lowered body gets a [`BindingId`], and every
//! use of a local points at its binding. Later stages ask the table which binding a token is
//! ([`Bindings::id`]) and key what they find by that id, not by a name.
//!
//! The walk visits the handler's parameters, then the body in the order Rust evaluates it:
//! a `let`'s value before its pattern, a `match`'s scrutinee before each arm (its pattern,
//! then its guard and body), the conditions of `if let` and `while let` (a chain of them with
//! `&&`) before the branch they guard, a `for` loop's collection before its pattern, a
//! closure's parameters before its body. A block, an arm, a loop's body and a closure end the
//! scope of what they bind. A use is a path of one segment, or a name a standard macro's format
//! string captures (`"{name}"`); it points at the last binding of its name in scope.
//!
//! A token is told from another by its text and where the source has it: the line and column
//! its span starts at, which the compiler gives a macro since Rust 1.88 (a `Token` key, not a
//! formatted string). Two limits follow. Tokens the macro made share the span they
//! were given (often the call site), so two of them are told apart by their names alone: the
//! macro names its own locals apart (`__mcp_operand0`, `__mcp_pos_1`). And the line and column
//! do not name the file: tokens of one name at the same place in two files (a declarative
//! macro defined in another file), or one token repeated by such a macro, stand for one key.
//! Where one key stands for two bindings the table says so ([`Bindings::clashing`]), and the
//! renaming that needs the difference (`shadow`) leaves those two as written.
//!
//! The body keeps the names the user wrote through every stage. A binding `shadow` gives a
//! new name has it in the table alone ([`Bindings::written`]); the output is written under
//! the new names once, when it is emitted (`emit/renamed.rs`).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use proc_macro2::{Ident, LineColumn, Span};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Block, Expr, Pat, Token};

pub(crate) use made::Made;

use super::mutable::bound;
use walk::Walk;

/// One binding of the body or the signature.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct BindingId(u32);

/// What introduces a binding.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum BindingKind {
    /// A parameter of the function, bound by name or by a pattern.
    Parameter,
    /// The pattern of a `let` statement.
    Let,
    /// The pattern of a `match` arm, an `if let`, a `while let` or a closure's parameter.
    Pattern,
    /// The pattern of a `for` loop.
    LoopPattern,
}

/// What the table records of one binding.
#[derive(Clone)]
pub(crate) struct Binding {
    /// The name as the user wrote it, at the token that binds it.
    pub(crate) name: Ident,
    pub(crate) kind: BindingKind,
    /// The binding of the same name that the value it is bound from reads, and that it hides
    /// (`let name = name.trim();`).
    pub(crate) hides: Option<BindingId>,
    /// Whether its name must stay as written: another macro's tokens may name it (they are
    /// not known to be code: `tracing`'s `status = %status`), or a parameter's pattern binds
    /// it (`State(db)`).
    pub(crate) fixed: bool,
    /// Whether its `let` writes a type of `std` that holds no borrow and no lock guard
    /// (`let yes: u32`, see `std_facts::plainly_owned`): its slot, if it is carried, needs
    /// neither check.
    pub(crate) plain: bool,
}

/// Which token: its text and where the source has it starts. The compiler gives a macro the
/// line and column a token starts and ends at, but not its byte range (always `0..0` on
/// stable), and each costs it a look-up in the source map. The start is enough: two tokens of
/// one name that start at one place are one token of the source, or tokens a macro made with
/// one span (then their ends are the same too, and nothing tells them apart).
#[derive(Clone, PartialEq, Eq, Hash)]
struct Token {
    name: String,
    start: LineColumn,
}

impl Token {
    fn new(name: &str, span: Span) -> Self {
        Self::at(name.trim_start_matches("r#").to_owned(), span)
    }

    fn of(ident: &Ident) -> Self {
        Self::at(Self::name_of(ident), ident.span())
    }

    /// The token of `name` (without `r#`) at `span`.
    fn at(name: String, span: Span) -> Self {
        Self {
            name,
            start: span.start(),
        }
    }

    /// The text of `ident`'s token, without `r#`.
    fn name_of(ident: &Ident) -> String {
        let text = ident.to_string();
        match text.starts_with("r#") {
            true => text.trim_start_matches("r#").to_owned(),
            false => text,
        }
    }
}

/// The hasher of the table's maps: every stage asks the table about tokens, and the
/// standard one (SipHash), built without optimisations as a proc macro is, cost more than
/// the rest of a lookup. Only the table's own keys are hashed, so no input can make it slow
/// on purpose; nothing reads the maps in their order.
type Fast = foldhash::fast::FixedState;

/// Every binding of one handler, and which binding each token that binds or uses a local is.
#[derive(Default)]
pub(crate) struct Bindings {
    bindings: Vec<Binding>,
    /// The binding each token binds or uses.
    tokens: HashMap<Token, BindingId, Fast>,
    /// The names of those tokens: a token of another name is none of them, and its place,
    /// which the compiler is asked for, is not needed to tell.
    token_names: HashSet<String, Fast>,
    /// The bindings a token stands for along with another binding.
    clashing: HashSet<BindingId>,
    /// The names the resolver did not meet (the locals the macro made after resolving, and
    /// items), numbered after `bindings`.
    made: RefCell<HashMap<String, BindingId, Fast>>,
    /// The new name of each binding the output writes under another name (see `shadow`).
    renamed: HashMap<BindingId, String>,
    /// The names the tokens of those bindings are written with: what another token must be
    /// named to be one of them.
    renamed_names: HashSet<String>,
    /// What each local the macro made holds (see [`Made`]).
    made_kinds: HashMap<BindingId, Made>,
    /// The bindings a shorthand field names (`Point { x }`, in a struct literal or a
    /// pattern), whose one token is both the field and the local.
    shorthand: HashSet<BindingId>,
}

impl Bindings {
    /// Resolves the scopes of a handler: its parameters bound by name (`named`, which later
    /// stages may rename) and by a pattern (`patterns`, whose names stay), and its `body`.
    pub(crate) fn resolve(named: &[&Ident], patterns: &[Pat], body: &Block) -> Self {
        let mut walk = Walk::default();
        for ident in named {
            walk.declare(ident, BindingKind::Parameter, None);
        }
        for pat in patterns {
            for binding in bound(pat) {
                let id = walk.declare(&binding.ident, BindingKind::Parameter, None);
                walk.table.bindings[id.index()].fixed = true;
            }
        }
        walk.visit_block(body);
        walk.table
    }

    /// The binding `ident` binds or uses, if it is one of the body's locals or parameters;
    /// a name the resolver did not meet (a local the macro made after resolving, such as an
    /// operand taken first or a loop's position, or an item) gets an id of its own the first
    /// time a stage asks, the same for every token of that name, and no record
    /// ([`Bindings::get`] gives `None`).
    pub(crate) fn id(&self, ident: &Ident) -> BindingId {
        let mut name = Token::name_of(ident);
        if self.token_names.contains(&name) {
            let token = Token::at(name, ident.span());
            if let Some(&id) = self.tokens.get(&token) {
                return id;
            }
            name = token.name;
        }
        let mut made = self.made.borrow_mut();
        let next = self.bindings.len() + made.len();
        *made
            .entry(name)
            .or_insert_with(|| BindingId(u32::try_from(next).unwrap_or(u32::MAX)))
    }

    /// The binding `ident` binds or uses, if the resolver met it.
    pub(crate) fn find(&self, ident: &Ident) -> Option<BindingId> {
        let name = Token::name_of(ident);
        if !self.token_names.contains(&name) {
            return None;
        }
        self.tokens.get(&Token::at(name, ident.span())).copied()
    }

    /// `ident` as the output writes it: under its binding's new name (see `shadow`), at its
    /// own span, if the binding has one.
    pub(crate) fn renamed(&self, ident: &Ident) -> Option<Ident> {
        if self.renamed.is_empty() {
            return None;
        }
        // Most tokens are told apart by their text alone, without their place.
        let text = ident.to_string();
        let name = text.trim_start_matches("r#");
        if !self.renamed_names.contains(name) {
            return None;
        }
        let token = Token::new(name, ident.span());
        let new = self.renamed.get(self.tokens.get(&token)?)?;
        Some(Ident::new(new, ident.span()))
    }

    /// `ident` as the output writes it: under its binding's new name, if it has one, or as
    /// written.
    pub(crate) fn written(&self, ident: &Ident) -> Ident {
        self.renamed(ident).unwrap_or_else(|| ident.clone())
    }

    /// Whether the output writes the tokens `a` and `b` under one name: where one hides the
    /// other, in the code the flow resumes in, if both are bindings.
    pub(crate) fn same_name(&self, a: &Ident, b: &Ident) -> bool {
        self.written(a) == self.written(b)
    }

    /// Whether the output writes any binding under a new name.
    pub(crate) fn renames_any(&self) -> bool {
        !self.renamed.is_empty()
    }

    /// Whether a binding the output writes under a new name is named by a shorthand field
    /// (`Point { x }`), which is then written out (`Point { x: __mcp_local0_x }`).
    pub(crate) fn renames_a_shorthand(&self) -> bool {
        (self.shorthand.iter()).any(|id| self.renamed.contains_key(id))
    }

    /// What the table records of binding `id`, unless the macro made it.
    pub(crate) fn get(&self, id: BindingId) -> Option<&Binding> {
        self.bindings.get(id.index())
    }

    /// What the table records of `ident`'s binding, if the resolver met it.
    pub(crate) fn of(&self, ident: &Ident) -> Option<&Binding> {
        self.find(ident).and_then(|id| self.get(id))
    }

    /// The binding of `ident` as the user wrote it, at `ident`'s span: its name, where the
    /// macro renamed it before resolving (a parameter bound `mut`: see `mutable`).
    pub(crate) fn shown(&self, ident: &Ident) -> Ident {
        match self.of(ident) {
            Some(binding) if binding.name != *ident => {
                let mut shown = binding.name.clone();
                shown.set_span(ident.span());
                shown
            }
            _ => ident.clone(),
        }
    }

    /// The name of `ident`'s binding as the user wrote it, as text without `r#`: for
    /// messages, keys and fields named after a local.
    pub(crate) fn shown_name(&self, ident: &Ident) -> String {
        let shown = self.shown(ident).to_string();
        match shown.strip_prefix("r#") {
            Some(name) => name.to_owned(),
            None => shown,
        }
    }

    /// Every binding, with its id, in the order the walk met them.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (BindingId, &Binding)> {
        (0..).map(BindingId).zip(&self.bindings)
    }

    /// Whether a token of binding `id` stands for another binding too, so that the token
    /// alone cannot say which of them it is.
    pub(crate) fn clashing(&self, id: BindingId) -> bool {
        self.clashing.contains(&id)
    }

    /// Records that the output writes each token of binding `id` as `new` (see `shadow`).
    pub(crate) fn rename(&mut self, id: BindingId, new: &str) {
        let names = (self.tokens.iter())
            .filter(|(_, binding)| **binding == id)
            .map(|(token, _)| token.name.clone());
        self.renamed_names.extend(names);
        self.renamed.insert(id, new.to_owned());
    }

    /// The binding the name `name`, at `span`, is: a capture of a format string, or a word of
    /// another macro's string literal, whose literal's span it has.
    pub(crate) fn captured(&self, name: &str, span: Span) -> Option<BindingId> {
        if !self.token_names.contains(name.trim_start_matches("r#")) {
            return None;
        }
        self.tokens.get(&Token::new(name, span)).copied()
    }

    /// The new name of the binding a format string's capture `name`, at `span`, is, if the
    /// output writes it under one.
    pub(crate) fn captured_renamed(&self, name: &str, span: Span) -> Option<&str> {
        let id = self.captured(name, span)?;
        self.renamed.get(&id).map(String::as_str)
    }

    fn point(&mut self, token: Token, id: BindingId) {
        if !self.token_names.contains(&token.name) {
            self.token_names.insert(token.name.clone());
        }
        if let Some(before) = self.tokens.insert(token, id)
            && before != id
        {
            self.clashing.extend([before, id]);
        }
    }
}

impl BindingId {
    fn index(self) -> usize {
        self.0 as usize
    }

    /// The id as a number, for what keys by numbers outside `flow` (`errors::Identity`).
    pub(crate) fn number(self) -> u32 {
        self.0
    }
}

pub(crate) type Args = Punctuated<Expr, Token![,]>;

/// The name of a named argument (`name = value` in `format!`).
pub(crate) fn argument_name(arg: &Expr) -> Option<String> {
    match arg {
        Expr::Assign(assign) => match &*assign.left {
            Expr::Path(path) => path.path.get_ident().map(ToString::to_string),
            _ => None,
        },
        _ => None,
    }
}

mod made;
mod plain;
#[cfg(test)]
pub(crate) mod tests;
mod walk;
