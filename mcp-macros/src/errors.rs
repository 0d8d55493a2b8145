//! Collects the errors of one stage so a single build reports all of them.

use std::collections::HashSet;
use std::fmt::Display;

use proc_macro2::TokenStream;
use quote::ToTokens;

/// The errors found so far in one stage; [`Errors::finish`] ends the stage.
#[derive(Default)]
pub(crate) struct Errors {
    combined: Option<syn::Error>,
    /// What the errors pushed with [`Errors::push_once`] are about.
    seen: HashSet<Identity>,
}

/// What an error is about: the kind of mistake and the binding or token it is at. A stage
/// that meets one mistake more than once (each question point that carries one local meets
/// that local) reports it once.
#[derive(PartialEq, Eq, Hash)]
pub(crate) struct Identity {
    kind: &'static str,
    at: u32,
}

impl Identity {
    /// The mistake `kind` at `at`, a number that tells one binding or token from every other
    /// (such as a `flow` binding's id, `BindingId::number`).
    pub(crate) fn new(kind: &'static str, at: u32) -> Self {
        Self { kind, at }
    }
}

impl Errors {
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records an error.
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.combined {
            Some(combined) => combined.combine(error),
            None => self.combined = Some(error),
        }
    }

    /// Records the error `make` builds, unless one with the same `identity` is recorded.
    pub(crate) fn push_once(&mut self, identity: Identity, make: impl FnOnce() -> syn::Error) {
        if self.seen.insert(identity) {
            self.push(make());
        }
    }

    /// Records `message` spanned on `tokens` (first to last token).
    pub(crate) fn error_at(&mut self, tokens: impl ToTokens, message: impl Display) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    /// Records `message` at `span`.
    pub(crate) fn error_span(&mut self, span: proc_macro2::Span, message: impl Display) {
        self.push(syn::Error::new(span, message));
    }

    /// The value of `result`, recording its error if it failed.
    pub(crate) fn ok<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        result.map_err(|error| self.push(error)).ok()
    }

    /// Records every error of `other`.
    pub(crate) fn extend(&mut self, other: Errors) {
        self.seen.extend(other.seen);
        if let Some(error) = other.combined {
            self.push(error);
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.combined.is_none()
    }

    /// Ends the stage: `Err` with every recorded error combined, if there is one.
    pub(crate) fn finish(self) -> syn::Result<()> {
        self.combined.map_or(Ok(()), Err)
    }

    /// Ends the stage with `value` when no error was recorded.
    pub(crate) fn finish_with<T>(self, value: T) -> syn::Result<T> {
        self.finish().map(|()| value)
    }
}

/// The tokens of `error` (one `compile_error!` per message) followed by `fallback`.
pub(crate) fn with_fallback(error: &syn::Error, fallback: TokenStream) -> TokenStream {
    let mut out = error.to_compile_error();
    out.extend(fallback);
    out
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::{Errors, Identity};

    fn messages(errors: Errors) -> Vec<String> {
        errors
            .finish()
            .err()
            .into_iter()
            .flatten()
            .map(|error| error.to_string())
            .collect()
    }

    #[test]
    fn an_error_pushed_once_per_identity_is_reported_once() {
        let mut errors = Errors::new();
        let at = Identity::new;
        let error = |text: &str| syn::Error::new(Span::call_site(), text);
        errors.push_once(at("borrow", 1), || error("`name` is a borrow"));
        errors.push_once(at("borrow", 1), || error("`name` is a borrow, again"));
        errors.push_once(at("borrow", 2), || error("another `name`"));
        errors.push_once(at("hidden", 1), || error("`name` is hidden"));
        assert_eq!(
            messages(errors),
            ["`name` is a borrow", "another `name`", "`name` is hidden"]
        );
    }

    #[test]
    fn identities_carry_over_when_collectors_are_combined() {
        let (mut first, mut second) = (Errors::new(), Errors::new());
        let error = || syn::Error::new(Span::call_site(), "`name` is a borrow");
        first.push_once(Identity::new("borrow", 1), error);
        second.extend(first);
        second.push_once(Identity::new("borrow", 1), error);
        assert_eq!(messages(second), ["`name` is a borrow"]);
    }
}
