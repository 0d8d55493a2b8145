//! The machinery behind the generated code: one [`Kind`] per wire field kind (text, numbers
//! and booleans in `scalar`, enums and their collections in `choice`), a schema builder, a
//! content parser that collects every field error, and a content writer (`content`).
//!
//! Not a public API: reached by the derives through `mcp_runtime::__private::form`.

use std::fmt::Write as _;

use serde_json::{Number, Value};

use crate::protocol::{PrimitiveSchema, StringFormat};

pub use std::string::String;
pub use std::sync::OnceLock;

mod choice;
mod content;
mod defaults;
mod scalar;

pub use choice::*;
pub use content::*;
pub use scalar::*;

/// An inclusive numeric bound as written in `#[form(minimum = ...)]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Bound {
    /// An integer literal.
    Int(i128),
    /// A float literal.
    Float(f64),
}

impl Bound {
    fn to_number(self) -> Option<Number> {
        match self {
            Self::Int(value) => i64::try_from(value)
                .map(Number::from)
                .ok()
                .or_else(|| u64::try_from(value).ok().map(Number::from)),
            Self::Float(value) => Number::from_f64(value),
        }
    }

    #[allow(
        clippy::cast_precision_loss,
        reason = "bounds are compared, never stored, as floats"
    )]
    fn to_f64(self) -> f64 {
        match self {
            Self::Int(value) => value as f64,
            Self::Float(value) => value,
        }
    }
}

/// Everything the derive knows about one field, as constants.
#[derive(Debug, Clone, Copy)]
pub struct FieldMeta {
    /// Wire name.
    pub name: &'static str,
    /// `title`.
    pub title: Option<&'static str>,
    /// `description` (or the doc comment).
    pub description: Option<&'static str>,
    /// `min_length`, in characters.
    pub min_length: Option<u64>,
    /// `max_length`, in characters.
    pub max_length: Option<u64>,
    /// `format`.
    pub format: Option<StringFormat>,
    /// `minimum`.
    pub minimum: Option<Bound>,
    /// `maximum`.
    pub maximum: Option<Bound>,
    /// `min_items`.
    pub min_items: Option<u64>,
    /// `max_items`.
    pub max_items: Option<u64>,
}

impl FieldMeta {
    /// A field called `name` with no attributes.
    pub const fn new(name: &'static str) -> Self {
        Self {
            name,
            title: None,
            description: None,
            min_length: None,
            max_length: None,
            format: None,
            minimum: None,
            maximum: None,
            min_items: None,
            max_items: None,
        }
    }

    fn title(&self) -> Option<String> {
        self.title.map(String::from)
    }

    fn description(&self) -> Option<String> {
        self.description.map(String::from)
    }
}

/// Why one value was refused: what the field expects, and what came.
#[derive(Debug)]
pub struct Refusal {
    pub(super) expected: String,
    pub(super) got: String,
}

/// A kind of form field: its schema, its parser and its writer.
pub trait Kind {
    /// The Rust type of a present value.
    type Value;
    /// The field's schema, with `default` as its pre-filled value.
    fn schema(meta: &FieldMeta, default: Option<&Self::Value>) -> PrimitiveSchema;
    /// What the field expects, for error messages.
    fn expected(meta: &FieldMeta) -> String;
    /// Parses and validates a present, non-null value.
    fn parse(value: &Value, meta: &FieldMeta) -> Result<Self::Value, Refusal>;
    /// The value as wire content.
    fn to_json(value: &Self::Value) -> Value;
    /// Writes the value as the entry `name` of a map being serialised, without building a
    /// `Value` where the kind can avoid it.
    fn write_entry<M: serde::ser::SerializeMap>(
        map: &mut M,
        name: &str,
        value: &Self::Value,
    ) -> Result<(), M::Error> {
        map.serialize_entry(name, &Self::to_json(value))
    }
}

fn refuse<K: Kind + ?Sized>(meta: &FieldMeta, got: String) -> Refusal {
    Refusal {
        expected: K::expected(meta),
        got,
    }
}

/// A short description of an untrusted JSON value: scalars shown (strings truncated),
/// containers summarised.
pub(super) fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(flag) => format!("`{flag}`"),
        Value::Number(number) => format!("`{number}`"),
        Value::String(text) => quote(text),
        Value::Array(items) => format!("an array of {} items", items.len()),
        Value::Object(_) => "an object".into(),
    }
}

pub(super) fn quote(text: &str) -> String {
    const SHOWN: usize = 40;
    let mut out = String::from("`");
    let mut chars = text.chars();
    for ch in chars.by_ref().take(SHOWN) {
        out.extend(ch.escape_debug());
    }
    if chars.next().is_some() {
        out.push('…');
    }
    out.push('`');
    out
}

fn range_words(out: &mut String, noun: &str, low: Option<String>, high: Option<String>) {
    let _ = match (low, high) {
        (Some(low), Some(high)) => write!(out, " from {low} to {high}{noun}"),
        (Some(low), None) => write!(out, " of at least {low}{noun}"),
        (None, Some(high)) => write!(out, " of at most {high}{noun}"),
        (None, None) => Ok(()),
    };
}
