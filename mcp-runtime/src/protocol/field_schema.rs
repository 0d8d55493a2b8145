//! The primitive field schemas of a form (`StringSchema`, `NumberSchema`, `BooleanSchema`,
//! the single- and multi-select enum schemas and the legacy `enumNames` form), exactly as the
//! 2026-07-28 schema defines them. [`PrimitiveSchema`](super::PrimitiveSchema) gathers them.

use serde::{Deserialize, Serialize};
use serde_json::Number;

use super::tag::{ArrayTag, BooleanTag, StringTag};

/// The `format` of a string field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringFormat {
    /// `email`: an e-mail address.
    #[serde(rename = "email")]
    Email,
    /// `uri`: an absolute URI.
    #[serde(rename = "uri")]
    Uri,
    /// `date`: a full date (`YYYY-MM-DD`).
    #[serde(rename = "date")]
    Date,
    /// `date-time`: an RFC 3339 timestamp.
    #[serde(rename = "date-time")]
    DateTime,
}

/// A free-text field (`StringSchema`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length in characters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// Expected format of the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// Whether a [`NumberSchema`] accepts any number or integers only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberKind {
    /// `"number"`: any JSON number.
    #[default]
    Number,
    /// `"integer"`: whole numbers only.
    Integer,
}

/// A number or integer field (`NumberSchema`).
///
/// Bounds and default are [`serde_json::Number`] so that `0` stays `0` and `0.5` stays `0.5`
/// on the wire; build them with `Number::from(12)` or `Number::from_f64(0.5)`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub kind: NumberKind,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inclusive lower bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<Number>,
    /// Inclusive upper bound.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<Number>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Number>,
}

/// A yes/no field (`BooleanSchema`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub kind: BooleanTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Pre-filled value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

/// A single choice among plain strings (`UntitledSingleSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values (`enum`).
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// One titled option: `{"const": value, "title": label}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TitledOption {
    /// The value the client sends back (`const`).
    #[serde(rename = "const")]
    pub value: String,
    /// What the user sees.
    pub title: String,
}

impl TitledOption {
    /// An option with the given value and display title.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            value: value.into(),
            title: title.into(),
        }
    }
}

/// A single choice among titled options (`TitledSingleSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options (`oneOf`).
    pub one_of: Vec<TitledOption>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// The `items` of an untitled multi-select: `{"type": "string", "enum": [...]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UntitledItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringTag,
    /// The allowed values (`enum`).
    #[serde(rename = "enum")]
    pub values: Vec<String>,
}

/// The `items` of a titled multi-select: `{"anyOf": [{const, title}, ...]}`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledItems {
    /// The options (`anyOf`).
    pub any_of: Vec<TitledOption>,
}

/// Several choices among plain strings (`UntitledMultiSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// Several choices among titled options (`TitledMultiSelectEnumSchema`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub kind: ArrayTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledItems,
    /// Pre-selected values.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

/// The legacy titled single-select (`LegacyTitledEnumSchema`): `enum` plus `enumNames`.
///
/// Deprecated by the schema in favour of [`TitledSingleSelectEnumSchema`], but still listed
/// by 2025-11-25 and 2026-07-28, so it is both read and written as itself: `type`, `title`,
/// `description`, `enum`, `enumNames`, `default`. `enumNames` is always written (an empty
/// list included), so what this type writes parses back as this type. A choice enum opts
/// into this shape with `#[choice(enum_names)]`; [`LegacyTitledEnumSchema::to_titled`] gives
/// the modern equivalent.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub kind: StringTag,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values (`enum`).
    #[serde(rename = "enum")]
    pub values: Vec<String>,
    /// Display titles, position by position (`enumNames`).
    #[serde(default)]
    pub enum_names: Vec<String>,
    /// Pre-selected value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl LegacyTitledEnumSchema {
    /// The modern equivalent: each value paired with the name at the same position; a value
    /// without a name is titled with itself, and names beyond the last value are dropped.
    pub fn to_titled(&self) -> TitledSingleSelectEnumSchema {
        let one_of = self
            .values
            .iter()
            .enumerate()
            .map(|(index, value)| {
                let title = self.enum_names.get(index).unwrap_or(value);
                TitledOption::new(value.clone(), title.clone())
            })
            .collect();
        TitledSingleSelectEnumSchema {
            kind: StringTag,
            title: self.title.clone(),
            description: self.description.clone(),
            one_of,
            default: self.default.clone(),
        }
    }
}
