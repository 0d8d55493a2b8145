//! The run-time check of a field's `#[form(default = ...)]`. The derive checks a default it
//! can read as a literal at compile time; one it cannot evaluate (a `const`, a call) is
//! checked here, by the field's own parser, as if a client had sent it back.

use super::{FieldMeta, Kind};

/// Panics, naming the form and the field, when the field would refuse `default` as an answer.
pub(super) fn check<K: Kind>(form: &str, meta: &FieldMeta, default: &K::Value) {
    if let Err(refusal) = K::parse(&K::to_json(default), meta) {
        panic!(
            "form `{form}`, field `{name}`: the field refuses its own `#[form(default = ...)]`: \
             expected {expected}, got {got}; pick a default the field accepts, or drop it",
            name = meta.name,
            expected = refusal.expected,
            got = refusal.got,
        );
    }
}
