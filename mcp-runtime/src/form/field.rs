//! The machinery behind the generated code: one [`Kind`] per wire field kind, a schema
//! builder, a content parser that collects every field error, and a content writer.
//!
//! Not a public API: reached by the derives through `mcp_runtime::__private::form`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::marker::PhantomData;

use serde_json::{Map, Number, Value};

use super::defaults;
use super::errors::{FieldError, FormErrors};
use super::formats;
use super::{ElicitChoice, ElicitForm};
use crate::protocol::{
    BooleanSchema, ElicitRequestedSchema, LegacyTitledEnumSchema, NumberKind, NumberSchema,
    PrimitiveSchema, StringFormat, StringSchema, TitledItems, TitledMultiSelectEnumSchema,
    TitledOption, TitledSingleSelectEnumSchema, UntitledItems, UntitledMultiSelectEnumSchema,
    UntitledSingleSelectEnumSchema,
};

pub use std::string::String;
pub use std::sync::OnceLock;

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

/// `String`: a `string` field.
pub struct Text;

impl Kind for Text {
    type Value = String;

    fn schema(meta: &FieldMeta, default: Option<&String>) -> PrimitiveSchema {
        PrimitiveSchema::String(StringSchema {
            title: meta.title(),
            description: meta.description(),
            min_length: meta.min_length,
            max_length: meta.max_length,
            format: meta.format,
            default: default.cloned(),
            ..StringSchema::default()
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let mut out = match meta.format {
            Some(format) => String::from(formats::describe(format)),
            None => String::from("a string"),
        };
        let noun = if meta.max_length == Some(1)
            || (meta.max_length.is_none() && meta.min_length == Some(1))
        {
            " character"
        } else {
            " characters"
        };
        range_words(
            &mut out,
            noun,
            meta.min_length.map(|n| n.to_string()),
            meta.max_length.map(|n| n.to_string()),
        );
        out
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<String, Refusal> {
        let Value::String(text) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        if meta.min_length.is_some() || meta.max_length.is_some() {
            let count = text.chars().count() as u64;
            if meta.min_length.is_some_and(|min| count < min)
                || meta.max_length.is_some_and(|max| count > max)
            {
                let unit = if count == 1 {
                    "character"
                } else {
                    "characters"
                };
                return Err(refuse::<Self>(meta, format!("{count} {unit}")));
            }
        }
        if let Some(format) = meta.format
            && !formats::matches(format, text)
        {
            return Err(refuse::<Self>(meta, quote(text)));
        }
        Ok(text.clone())
    }

    fn to_json(value: &String) -> Value {
        Value::String(value.clone())
    }

    fn write_entry<M: serde::ser::SerializeMap>(
        map: &mut M,
        name: &str,
        value: &String,
    ) -> Result<(), M::Error> {
        map.serialize_entry(name, value)
    }
}

/// Integer types a form accepts, with their ranges.
pub trait FormInteger: Copy {
    /// Smallest value.
    const MIN: i128;
    /// Largest value.
    const MAX: i128;
    /// The value, if in range.
    fn from_i128(value: i128) -> Option<Self>;
    /// The value as JSON.
    fn to_number(self) -> Number;
}

macro_rules! form_integer {
    ($($ty:ty),*) => {$(
        impl FormInteger for $ty {
            const MIN: i128 = <$ty>::MIN as i128;
            const MAX: i128 = <$ty>::MAX as i128;
            fn from_i128(value: i128) -> Option<Self> {
                Self::try_from(value).ok()
            }
            fn to_number(self) -> Number {
                Number::from(self)
            }
        }
    )*};
}

form_integer!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// An integer type: an `integer` field.
pub struct Integer<T>(PhantomData<T>);

impl<T: FormInteger> Integer<T> {
    fn bounds(meta: &FieldMeta) -> (i128, i128) {
        let low = match meta.minimum {
            Some(Bound::Int(min)) => min.max(T::MIN),
            _ => T::MIN,
        };
        let high = match meta.maximum {
            Some(Bound::Int(max)) => max.min(T::MAX),
            _ => T::MAX,
        };
        (low, high)
    }
}

/// The whole number a JSON number stands for, if any (`3.0` is 3; `3.5` is none).
#[allow(
    clippy::cast_possible_truncation,
    reason = "a whole float out of the i128 range saturates, and the range check refuses it"
)]
fn whole_number(number: &Number) -> Option<i128> {
    if let Some(value) = number.as_i64() {
        return Some(value.into());
    }
    if let Some(value) = number.as_u64() {
        return Some(value.into());
    }
    let float = number.as_f64()?;
    (float.is_finite() && float.fract() == 0.0).then_some(float as i128)
}

impl<T: FormInteger> Kind for Integer<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        PrimitiveSchema::Number(NumberSchema {
            kind: NumberKind::Integer,
            title: meta.title(),
            description: meta.description(),
            minimum: meta.minimum.and_then(Bound::to_number),
            maximum: meta.maximum.and_then(Bound::to_number),
            default: default.map(|value| value.to_number()),
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let (low, high) = Self::bounds(meta);
        format!("an integer from {low} to {high}")
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        let Value::Number(number) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        let (low, high) = Self::bounds(meta);
        whole_number(number)
            .filter(|whole| (low..=high).contains(whole))
            .and_then(T::from_i128)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Value::Number(value.to_number())
    }
}

/// Float types a form accepts.
pub trait FormFloat: Copy {
    /// The value, if it is finite in this type.
    fn from_f64(value: f64) -> Option<Self>;
    /// The value as `f64`, as it goes on the wire.
    fn to_f64(self) -> f64;
}

impl FormFloat for f64 {
    fn from_f64(value: f64) -> Option<Self> {
        value.is_finite().then_some(value)
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl FormFloat for f32 {
    #[allow(
        clippy::cast_possible_truncation,
        reason = "rounding to the nearest f32 is the conversion wanted; overflow is refused"
    )]
    fn from_f64(value: f64) -> Option<Self> {
        let narrow = value as f32;
        narrow.is_finite().then_some(narrow)
    }
    /// The shortest decimal that reads back as this `f32` (`0.1`, not `0.10000000149011612`):
    /// what the author or the user wrote, so a value at a bound stays within it on the wire.
    fn to_f64(self) -> f64 {
        self.to_string().parse().unwrap_or_else(|_| self.into())
    }
}

/// `f32` or `f64`: a `number` field.
pub struct Float<T>(PhantomData<T>);

fn bound_words(bound: Option<Bound>) -> Option<String> {
    bound.map(|bound| match bound {
        Bound::Int(value) => value.to_string(),
        Bound::Float(value) => value.to_string(),
    })
}

impl<T: FormFloat> Kind for Float<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        PrimitiveSchema::Number(NumberSchema {
            kind: NumberKind::Number,
            title: meta.title(),
            description: meta.description(),
            minimum: meta.minimum.and_then(Bound::to_number),
            maximum: meta.maximum.and_then(Bound::to_number),
            default: default.and_then(|value| Number::from_f64(value.to_f64())),
        })
    }

    fn expected(meta: &FieldMeta) -> String {
        let mut out = String::from("a number");
        range_words(
            &mut out,
            "",
            bound_words(meta.minimum),
            bound_words(meta.maximum),
        );
        out
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        let Value::Number(number) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        number
            .as_f64()
            .filter(|float| {
                meta.minimum.is_none_or(|min| *float >= min.to_f64())
                    && meta.maximum.is_none_or(|max| *float <= max.to_f64())
            })
            .and_then(T::from_f64)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Number::from_f64(value.to_f64()).map_or(Value::Null, Value::Number)
    }
}

/// `bool`: a `boolean` field.
pub struct Boolean;

impl Kind for Boolean {
    type Value = bool;

    fn schema(meta: &FieldMeta, default: Option<&bool>) -> PrimitiveSchema {
        PrimitiveSchema::Boolean(BooleanSchema {
            title: meta.title(),
            description: meta.description(),
            default: default.copied(),
            ..BooleanSchema::default()
        })
    }

    fn expected(_meta: &FieldMeta) -> String {
        "`true` or `false`".into()
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<bool, Refusal> {
        value
            .as_bool()
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &bool) -> Value {
        Value::Bool(*value)
    }
}

fn is_titled<T: ElicitChoice>() -> bool {
    T::CHOICES.iter().any(|choice| choice.title.is_some())
}

fn titled_options<T: ElicitChoice>() -> Vec<TitledOption> {
    T::CHOICES
        .iter()
        .map(|choice| TitledOption::new(choice.wire, choice.title.unwrap_or(choice.wire)))
        .collect()
}

/// Every variant's title, a variant without one named by its wire value.
fn enum_names<T: ElicitChoice>() -> Vec<String> {
    T::CHOICES
        .iter()
        .map(|choice| String::from(choice.title.unwrap_or(choice.wire)))
        .collect()
}

fn wire_values<T: ElicitChoice>() -> Vec<String> {
    T::CHOICES
        .iter()
        .map(|choice| String::from(choice.wire))
        .collect()
}

fn one_of_words<T: ElicitChoice>() -> String {
    let mut out = String::new();
    for (index, choice) in T::CHOICES.iter().enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "`{}`", choice.wire);
    }
    out
}

/// An enum deriving `ElicitChoice`: a single-select field, in the legacy `enumNames` shape
/// when the enum asks for it, else titled once any variant has a title, else untitled.
pub struct Single<T>(PhantomData<T>);

impl<T: ElicitChoice> Kind for Single<T> {
    type Value = T;

    fn schema(meta: &FieldMeta, default: Option<&T>) -> PrimitiveSchema {
        let default = default.map(|value| String::from(value.to_wire()));
        if T::ENUM_NAMES {
            PrimitiveSchema::LegacyTitled(LegacyTitledEnumSchema {
                title: meta.title(),
                description: meta.description(),
                values: wire_values::<T>(),
                enum_names: enum_names::<T>(),
                default,
                ..LegacyTitledEnumSchema::default()
            })
        } else if is_titled::<T>() {
            PrimitiveSchema::TitledSingleSelect(TitledSingleSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                one_of: titled_options::<T>(),
                default,
                ..TitledSingleSelectEnumSchema::default()
            })
        } else {
            PrimitiveSchema::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                values: wire_values::<T>(),
                default,
                ..UntitledSingleSelectEnumSchema::default()
            })
        }
    }

    fn expected(_meta: &FieldMeta) -> String {
        format!("one of {}", one_of_words::<T>())
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<T, Refusal> {
        value
            .as_str()
            .and_then(T::from_wire)
            .ok_or_else(|| refuse::<Self>(meta, describe(value)))
    }

    fn to_json(value: &T) -> Value {
        Value::String(value.to_wire().into())
    }

    fn write_entry<M: serde::ser::SerializeMap>(
        map: &mut M,
        name: &str,
        value: &T,
    ) -> Result<(), M::Error> {
        map.serialize_entry(name, value.to_wire())
    }
}

/// A collection a multi-select parses into.
pub trait Selection: Sized {
    /// The choice enum.
    type Item: ElicitChoice;
    /// The selection from distinct values, in the order sent.
    fn from_distinct(items: Vec<Self::Item>) -> Self;
    /// The selected values.
    fn items(&self) -> impl Iterator<Item = Self::Item>;
}

impl<T: ElicitChoice> Selection for Vec<T> {
    type Item = T;
    fn from_distinct(items: Vec<T>) -> Self {
        items
    }
    fn items(&self) -> impl Iterator<Item = T> {
        self.iter().copied()
    }
}

impl<T: ElicitChoice + Ord> Selection for BTreeSet<T> {
    type Item = T;
    fn from_distinct(items: Vec<T>) -> Self {
        items.into_iter().collect()
    }
    fn items(&self) -> impl Iterator<Item = T> {
        self.iter().copied()
    }
}

/// A `Vec` or `BTreeSet` of an enum deriving `ElicitChoice`: a multi-select field, titled
/// once any variant has a title. `ElicitChoice::ENUM_NAMES` plays no part: the schema has no
/// `enumNames` form for arrays.
pub struct Multi<C>(PhantomData<C>);

impl<C: Selection> Kind for Multi<C> {
    type Value = C;

    fn schema(meta: &FieldMeta, default: Option<&C>) -> PrimitiveSchema {
        let default = default.map(|selection| {
            selection
                .items()
                .map(|item| String::from(item.to_wire()))
                .collect()
        });
        if is_titled::<C::Item>() {
            PrimitiveSchema::TitledMultiSelect(TitledMultiSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                min_items: meta.min_items,
                max_items: meta.max_items,
                items: TitledItems {
                    any_of: titled_options::<C::Item>(),
                },
                default,
                ..TitledMultiSelectEnumSchema::default()
            })
        } else {
            PrimitiveSchema::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                title: meta.title(),
                description: meta.description(),
                min_items: meta.min_items,
                max_items: meta.max_items,
                items: UntitledItems {
                    values: wire_values::<C::Item>(),
                    ..UntitledItems::default()
                },
                default,
                ..UntitledMultiSelectEnumSchema::default()
            })
        }
    }

    fn expected(meta: &FieldMeta) -> String {
        let among = one_of_words::<C::Item>();
        match (meta.min_items, meta.max_items) {
            (Some(min), Some(max)) => {
                format!("an array of {min} to {max} distinct values among {among}")
            }
            (Some(min), None) => {
                format!("an array of at least {min} distinct values among {among}")
            }
            (None, Some(max)) => format!("an array of at most {max} distinct values among {among}"),
            (None, None) => format!("an array of distinct values among {among}"),
        }
    }

    fn parse(value: &Value, meta: &FieldMeta) -> Result<C, Refusal> {
        let Value::Array(items) = value else {
            return Err(refuse::<Self>(meta, describe(value)));
        };
        let count = items.len() as u64;
        if meta.min_items.is_some_and(|min| count < min)
            || meta.max_items.is_some_and(|max| count > max)
        {
            let unit = if count == 1 { "item" } else { "items" };
            return Err(refuse::<Self>(meta, format!("{count} {unit}")));
        }
        let mut chosen: Vec<C::Item> = Vec::with_capacity(items.len());
        for item in items {
            let Some(choice) = item.as_str().and_then(C::Item::from_wire) else {
                return Err(refuse::<Self>(meta, describe(item)));
            };
            if chosen.iter().any(|seen| seen.to_wire() == choice.to_wire()) {
                return Err(refuse::<Self>(meta, format!("{} twice", describe(item))));
            }
            chosen.push(choice);
        }
        Ok(C::from_distinct(chosen))
    }

    fn to_json(value: &C) -> Value {
        Value::Array(
            value
                .items()
                .map(|item| Value::String(item.to_wire().into()))
                .collect(),
        )
    }
}

/// Builds a form's requested schema, field by field in declaration order.
pub struct SchemaBuilder {
    form: &'static str,
    schema: ElicitRequestedSchema,
}

impl SchemaBuilder {
    /// The schema of the form called `form`, which will hold `fields` fields.
    pub fn new(form: &'static str, fields: usize) -> Self {
        Self {
            form,
            schema: ElicitRequestedSchema {
                properties: Vec::with_capacity(fields),
                ..ElicitRequestedSchema::default()
            },
        }
    }

    /// A field the user must fill in.
    ///
    /// # Panics
    ///
    /// When the field would refuse its own `default` as an answer.
    pub fn required<K: Kind>(&mut self, meta: &FieldMeta, default: Option<&K::Value>) {
        self.schema.required.push(meta.name.into());
        self.optional::<K>(meta, default);
    }

    /// A field the user may leave empty.
    ///
    /// # Panics
    ///
    /// When the field would refuse its own `default` as an answer.
    pub fn optional<K: Kind>(&mut self, meta: &FieldMeta, default: Option<&K::Value>) {
        if let Some(default) = default {
            defaults::check::<K>(self.form, meta, default);
        }
        self.schema
            .properties
            .push((meta.name.into(), K::schema(meta, default)));
    }

    /// The finished schema.
    pub fn finish(self) -> ElicitRequestedSchema {
        self.schema
    }
}

/// Parses accepted content field by field, collecting every error.
pub struct Parser<'a> {
    form: &'static str,
    content: &'a Map<String, Value>,
    errors: Vec<FieldError>,
}

impl<'a> Parser<'a> {
    /// A parser of `content`, the answer to the form called `form`.
    pub fn new(form: &'static str, content: &'a Map<String, Value>) -> Self {
        Self {
            form,
            content,
            errors: Vec::new(),
        }
    }

    fn present(&self, meta: &FieldMeta) -> Option<&'a Value> {
        self.content.get(meta.name).filter(|value| !value.is_null())
    }

    fn parse<K: Kind>(&mut self, meta: &FieldMeta, value: &Value) -> Option<K::Value> {
        match K::parse(value, meta) {
            Ok(parsed) => Some(parsed),
            Err(refusal) => {
                self.errors.push(FieldError {
                    field: meta.name.into(),
                    expected: refusal.expected,
                    got: refusal.got,
                });
                None
            }
        }
    }

    /// A required field; when absent (or null), `default` fills it, else it is an error.
    /// `None` means an error was recorded.
    ///
    /// # Panics
    ///
    /// When `default` fills the field with a value the field would refuse as an answer.
    pub fn required<K: Kind>(
        &mut self,
        meta: &FieldMeta,
        default: Option<fn() -> K::Value>,
    ) -> Option<K::Value> {
        match (self.present(meta), default) {
            (Some(value), _) => self.parse::<K>(meta, value),
            (None, Some(default)) => {
                let value = default();
                defaults::check::<K>(self.form, meta, &value);
                Some(value)
            }
            (None, None) => {
                self.errors.push(FieldError {
                    field: meta.name.into(),
                    expected: K::expected(meta),
                    got: "nothing".into(),
                });
                None
            }
        }
    }

    /// An optional field: absent or null is `Some(None)`. `None` means an error was recorded.
    pub fn optional<K: Kind>(&mut self, meta: &FieldMeta) -> Option<Option<K::Value>> {
        match self.present(meta) {
            Some(value) => self.parse::<K>(meta, value).map(Some),
            None => Some(None),
        }
    }

    /// The errors found: never empty once a field came back `None`.
    pub fn into_errors(self) -> FormErrors {
        FormErrors::from(self.errors)
    }
}

/// Writes a form value as wire content.
pub struct Writer {
    content: Map<String, Value>,
}

impl Writer {
    /// An empty content object.
    pub fn new() -> Self {
        Self {
            content: Map::new(),
        }
    }

    /// A field that always has a value.
    pub fn required<K: Kind>(&mut self, meta: &FieldMeta, value: &K::Value) {
        self.content.insert(meta.name.into(), K::to_json(value));
    }

    /// A field that may be empty; an empty one is left out.
    pub fn optional<K: Kind>(&mut self, meta: &FieldMeta, value: Option<&K::Value>) {
        if let Some(value) = value {
            self.required::<K>(meta, value);
        }
    }

    /// The content object.
    pub fn finish(self) -> Map<String, Value> {
        self.content
    }
}

impl Default for Writer {
    fn default() -> Self {
        Self::new()
    }
}

/// `Serialize` of a form: its content object, written field by field.
pub fn serialize_form<F, S>(form: &F, serializer: S) -> Result<S::Ok, S::Error>
where
    F: ElicitForm,
    S: serde::Serializer,
{
    form.serialize_content(serializer)
}

/// Writes a form's content object straight into a serialiser, as [`Writer`] builds it into
/// a map: the generated code drives both with the same calls.
pub struct MapWriter<M: serde::ser::SerializeMap> {
    map: M,
    error: Option<M::Error>,
}

impl<M: serde::ser::SerializeMap> MapWriter<M> {
    /// Starts the content object.
    pub fn new<S>(serializer: S) -> Result<Self, S::Error>
    where
        S: serde::Serializer<SerializeMap = M, Error = M::Error>,
    {
        Ok(Self {
            map: serializer.serialize_map(None)?,
            error: None,
        })
    }

    /// A field that always has a value.
    pub fn required<K: Kind>(&mut self, meta: &FieldMeta, value: &K::Value) {
        if self.error.is_none()
            && let Err(error) = K::write_entry(&mut self.map, meta.name, value)
        {
            self.error = Some(error);
        }
    }

    /// A field that may be empty; an empty one is left out.
    pub fn optional<K: Kind>(&mut self, meta: &FieldMeta, value: Option<&K::Value>) {
        if let Some(value) = value {
            self.required::<K>(meta, value);
        }
    }

    /// Ends the content object, or reports the first error.
    pub fn finish(self) -> Result<M::Ok, M::Error> {
        match self.error {
            Some(error) => Err(error),
            None => self.map.end(),
        }
    }
}

/// `Deserialize` of a form: a content object, validated like an answer.
pub fn deserialize_form<'de, F, D>(deserializer: D) -> Result<F, D::Error>
where
    F: ElicitForm,
    D: serde::Deserializer<'de>,
{
    let content = <Map<String, Value> as serde::Deserialize>::deserialize(deserializer)?;
    F::from_content(&content).map_err(serde::de::Error::custom)
}

/// `Serialize` of a choice: its wire value.
pub fn serialize_choice<T, S>(choice: &T, serializer: S) -> Result<S::Ok, S::Error>
where
    T: ElicitChoice,
    S: serde::Serializer,
{
    serializer.serialize_str(T::to_wire(*choice))
}

/// `Deserialize` of a choice: one of its wire values.
pub fn deserialize_choice<'de, T, D>(deserializer: D) -> Result<T, D::Error>
where
    T: ElicitChoice,
    D: serde::Deserializer<'de>,
{
    struct ChoiceVisitor<T>(PhantomData<T>);

    impl<T: ElicitChoice> serde::de::Visitor<'_> for ChoiceVisitor<T> {
        type Value = T;

        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "one of {}", one_of_words::<T>())
        }

        fn visit_str<E: serde::de::Error>(self, wire: &str) -> Result<T, E> {
            T::from_wire(wire)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(wire), &self))
        }
    }

    deserializer.deserialize_str(ChoiceVisitor(PhantomData))
}
