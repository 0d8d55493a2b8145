//! Flat elicitation forms: the [`ElicitForm`] schema and answer validation.
//!
//! A form is a flat struct deriving [`ElicitForm`](macro@crate::ElicitForm); a single- or
//! multi-select field is an enum deriving [`ElicitChoice`](macro@crate::ElicitChoice).
//!
//! ```
//! use mcp_runtime::{ElicitChoice, ElicitForm};
//!
//! #[derive(Debug, Clone, Copy, PartialEq, ElicitChoice)]
//! #[choice(rename_all = "lowercase")]
//! enum Environment {
//!     Staging,
//!     #[choice(title = "Production (live)")]
//!     Production,
//! }
//!
//! #[derive(Debug, ElicitForm)]
//! struct Target {
//!     /// Where the service goes.
//!     #[form(default = Environment::Staging)]
//!     environment: Environment,
//!     #[form(minimum = 1, maximum = 12, default = 2)]
//!     replicas: u32,
//!     #[form(max_length = 200)]
//!     reason: Option<String>,
//! }
//!
//! let schema = serde_json::to_value(Target::requested_schema()).unwrap();
//! assert_eq!(schema["required"], serde_json::json!(["environment", "replicas"]));
//!
//! let content = serde_json::json!({"environment": "production", "replicas": 3.0});
//! let target = Target::from_content(content.as_object().unwrap()).unwrap();
//! assert_eq!(target.environment, Environment::Production);
//! assert_eq!(target.replicas, 3);
//! assert_eq!(target.reason, None);
//!
//! let bad = serde_json::json!({"environment": "moon", "replicas": 13});
//! let errors = Target::from_content(bad.as_object().unwrap()).unwrap_err();
//! assert_eq!(
//!     errors.to_string(),
//!     "`environment`: expected one of `staging`, `production`, got `moon`\n\
//!      `replicas`: expected an integer from 1 to 12, got `13`"
//! );
//! ```
//!
//! # Field kinds
//!
//! | Rust field type | wire schema | attributes |
//! |---|---|---|
//! | `String` | `string` | `min_length`, `max_length` (in characters), `format` (`"email"`, `"uri"`, `"date"`, `"date-time"`) |
//! | `i8` … `i64`, `u8` … `u64`, `isize`, `usize` | `integer` | `minimum`, `maximum` (integer literals) |
//! | `f32`, `f64` | `number` | `minimum`, `maximum` |
//! | `bool` | `boolean` | |
//! | an enum deriving `ElicitChoice` | single-select (`enum`, or `oneOf` once any variant has a title, or `enum` + `enumNames` with `#[choice(enum_names)]`) | |
//! | `Vec<E>` or `BTreeSet<E>` of such an enum | multi-select (`type: array`) | `min_items`, `max_items` |
//! | a date type of `jiff` or `chrono` (features of the same names; [`FormDate`]) | `string` of format `date` or `date-time` | |
//! | `Option<T>` of any of the above | the same field, left out of `required` | as for `T` |
//!
//! Every field takes `title`, `description` (the doc comment is the default), `default` and
//! `rename`; the struct takes `rename_all`. A requested schema has no title or description
//! of its own: say what the form is for in the elicitation message.
//!
//! # Decisions
//!
//! - **`required`** lists exactly the fields whose type is not `Option`, whether or not they
//!   carry a `default`. The default is what a client pre-fills; the field still needs a value.
//! - **Absent fields.** A conforming client pre-fills defaults and sends them back, so content
//!   normally carries every required field. When a required field with a `default` is
//!   missing anyway, the server fills in that default (the value the author chose to offer).
//!   A required field without a default that is missing is an error. An absent `Option`
//!   field is `None` even when it has a `default`: the user cleared a pre-filled value. A
//!   JSON `null` counts as absent.
//! - **`default` of an `Option<T>` field** is written as a `T` (it is what the client shows);
//!   of a `String` field it may be a string literal.
//! - **A default must be an answer its own field accepts**: not outside `minimum`/`maximum`,
//!   not shorter or longer than `min_length`/`max_length`, in its `format`, selecting neither
//!   fewer than `min_items` nor more than `max_items` values, and none twice.
//!   - A default the derive can read is checked at compile time, by the rules answers are,
//!     and refused with an error at the default: a number literal (negated or not), a string
//!     literal (also as `String::from("...")`, or followed by `.to_owned()`, `.to_string()` or
//!     `.into()`), and a selection written `vec![a, b]`, `Vec::from([a, b])`, `Vec::new()` or
//!     `BTreeSet::new()`. A choice default is a variant, which the compiler checks.
//!   - Any other default (a `const`, a call, `BTreeSet::from([...])`), and a value selected
//!     twice, are checked at run time by the field's own parser, as if a client had sent the
//!     default back. A default the field refuses panics with a message naming the form and
//!     the field, the first time the form's schema is built (before any client is asked) and
//!     whenever the default fills an absent answer. A test that calls `requested_schema()`
//!     finds it.
//! - **Integers**: a JSON number with no fraction is accepted (`3.0` is 3); `3.5` is refused;
//!   so is any value outside the Rust type's range, even where no bound is written (no
//!   wrapping, no saturation). The schema shows only the bounds the author wrote.
//! - **Floats**: any JSON number within the bounds that is finite in the Rust type. An `f32`
//!   goes on the wire as the shortest decimal that reads back as it (`0.1`, not
//!   `0.10000000149011612`), so a value at a bound stays within it.
//! - **Lengths** count Unicode scalar values (`char`s), not bytes.
//! - **Formats** are checked for syntax only: an RFC 5321 mailbox, an RFC 3986 URI with a
//!   scheme, an RFC 3339 full-date (a real calendar day), an RFC 3339 date-time.
//! - **Multi-select**: the item count must be within `min_items`/`max_items`, every item
//!   one of the enum's wire values, no value twice. A `Vec` keeps the order sent.
//! - **Unknown keys** in the content are ignored. Each wrong field yields one
//!   [`FieldError`]; all of them come back together in [`FormErrors`].
//!
//! # Serde
//!
//! Both derives also implement `serde::Serialize` and `serde::Deserialize` through the wire
//! representation: a form as its content object (deserialising re-validates it with
//! [`ElicitForm::from_content`]), a choice as its wire string. Do not also derive
//! `Serialize` or `Deserialize` on these types; users never need serde as a dependency.
//! A choice also implements `schemars::JsonSchema` as its wire strings, so a structured
//! result holding one is listed in its tool's `outputSchema` as it is written; do not derive
//! `JsonSchema` on it either.

mod dates;
mod errors;
mod field;
mod formats;
mod schema;

pub use dates::FormDate;
pub use errors::{FieldError, FormErrors};

use crate::protocol::ElicitRequestedSchema;

/// A type a form field may have beyond the ones the derive knows by name: an enum deriving
/// [`ElicitChoice`] (which implements it), or a `Vec` or `BTreeSet` of one.
///
/// `String`, the integers, `f32`, `f64` and `bool` are recognised by name, and `Option` around
/// any field type; every other field type must implement this trait. It exists so that a field
/// of another type (a nested struct, a foreign type, an alias) is reported once, at the type,
/// in these words.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a field of an elicitation form",
    label = "not an elicitation form field type",
    note = "a form field is a `String`, an integer, `f32`, `f64`, `bool`, an enum deriving `ElicitChoice`, a `Vec` or `BTreeSet` of such an enum, a date type of `jiff` or `chrono` (with `mcp-runtime`'s feature of that name), or an `Option` of one of these, written out by name",
    note = "forms are flat: a struct cannot be nested in a form, and type aliases are not followed"
)]
pub trait FormField {
    /// How the field is asked, read and written.
    #[doc(hidden)]
    type Kind;
}

#[diagnostic::do_not_recommend]
impl<T: ElicitChoice> FormField for Vec<T> {
    type Kind = field::Multi<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: ElicitChoice + Ord> FormField for std::collections::BTreeSet<T> {
    type Kind = field::Multi<Self>;
}

/// A flat form: its requested schema, and a validating parser of accepted content.
///
/// Implement it with `#[derive(ElicitForm)]`; see the [module docs](self).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a form: `cx.elicit` asks for a struct deriving `ElicitForm`",
    label = "the answer to this question is a form",
    note = "derive `ElicitForm` on a struct of the fields to ask for; to ask for one choice \
            or value, make it the field of a form: \
            `#[derive(ElicitForm)] struct Pick {{ choice: {Self} }}`"
)]
pub trait ElicitForm: Sized {
    /// The schema, built once per type; no allocation after the first call.
    fn requested_schema() -> &'static ElicitRequestedSchema;

    /// Parses accepted content (the `content` object of an accept `ElicitResult`),
    /// reporting every field error at once.
    fn from_content(
        content: &serde_json::Map<String, serde_json::Value>,
    ) -> Result<Self, FormErrors>;

    /// This value as wire content: the inverse of [`from_content`](Self::from_content).
    fn to_content(&self) -> serde_json::Map<String, serde_json::Value>;

    /// Serialises this value as its content object; the derive writes the fields straight
    /// into the serialiser instead of building [`to_content`](Self::to_content)'s map.
    #[doc(hidden)]
    fn serialize_content<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde::Serialize::serialize(&self.to_content(), serializer)
    }

    /// Reads a client's answer to a question for this form. Named by the code `#[tool]`
    /// writes at a form question, so that a type that is no form is reported at the
    /// question as this trait's error alone.
    #[doc(hidden)]
    fn read_answer(raw: &serde_json::Value) -> crate::flow::Reading<Result<Self, crate::Refusal>> {
        crate::flow::read_form(raw)
    }
}

/// One variant of an [`ElicitChoice`] enum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Choice<T> {
    /// The variant.
    pub value: T,
    /// Its wire value.
    pub wire: &'static str,
    /// Its display title, from `#[choice(title = "...")]`.
    pub title: Option<&'static str>,
}

/// A unit-only enum offered as a single- or multi-select field.
///
/// Implement it with `#[derive(ElicitChoice)]`: the derive also makes the enum usable as a
/// form field. The schema is titled (`oneOf`/`anyOf` of `const`/`title`) as soon as one
/// variant has a title; the others are then titled with their wire value.
///
/// # Attributes
///
/// - On a variant, `#[choice(title = "...")]` (display title) and `#[choice(rename = "...")]`
///   (wire value).
/// - On the enum, `#[choice(rename_all = "...")]` (wire values from a case rule:
///   `"lowercase"`, `"UPPERCASE"`, `"PascalCase"`, `"camelCase"`, `"snake_case"`,
///   `"SCREAMING_SNAKE_CASE"`, `"kebab-case"`, `"SCREAMING-KEBAB-CASE"`).
/// - On the enum, `#[choice(enum_names)]` (a bare word, no value): a single-select of this
///   enum is written in the legacy titled shape (`LegacyTitledEnumSchema`, deprecated by the
///   schema but still listed) instead of `oneOf`: `enum` holds the wire values and
///   `enumNames` the titles, position by position, every variant without a title named by
///   its wire value. Use it only for clients that read `enumNames` and not `oneOf`.
///   A multi-select (`Vec` or `BTreeSet`) of the enum keeps its usual shape, since the
///   schema has no `enumNames` form for arrays. Answers are the wire values either way.
///
/// ```
/// use mcp_runtime::{ElicitChoice, ElicitForm};
///
/// #[derive(Clone, Copy, ElicitChoice)]
/// #[choice(rename_all = "lowercase", enum_names)]
/// enum Plan {
///     #[choice(title = "Free tier")]
///     Free,
///     Pro,
/// }
///
/// #[derive(ElicitForm)]
/// struct Signup {
///     plan: Plan,
/// }
///
/// let schema = serde_json::to_value(Signup::requested_schema()).unwrap();
/// assert_eq!(
///     schema["properties"]["plan"],
///     serde_json::json!({
///         "type": "string",
///         "enum": ["free", "pro"],
///         "enumNames": ["Free tier", "pro"],
///     })
/// );
/// ```
pub trait ElicitChoice: Sized + Copy + 'static {
    /// Every variant, in declaration order.
    const CHOICES: &'static [Choice<Self>];

    /// Whether a single-select of this enum is written in the legacy `enum` + `enumNames`
    /// shape; `true` with `#[choice(enum_names)]`. Multi-selects ignore it.
    const ENUM_NAMES: bool = false;

    /// The variant whose wire value is `wire`.
    fn from_wire(wire: &str) -> Option<Self>;

    /// This variant's wire value.
    fn to_wire(self) -> &'static str;

    /// This variant's display title, if it has one.
    fn title(self) -> Option<&'static str> {
        let wire = self.to_wire();
        Self::CHOICES
            .iter()
            .find(|choice| choice.wire == wire)
            .and_then(|choice| choice.title)
    }
}

/// Used by the generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use super::dates::Dated;
    pub use super::field::*;
    pub use super::schema::choice_schema;
}
