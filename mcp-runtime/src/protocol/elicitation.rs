//! Form and URL elicitation: the requested schema, every primitive field schema, the
//! `elicitation/create` parameters and the client's answer.
//!
//! Field order matters to users reading a form, so [`ElicitRequestedSchema::properties`] is a
//! `Vec` of `(name, schema)` pairs written to the wire in insertion order (and read back in
//! wire order when parsed straight from JSON text).

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::de::{Deserializer, Error as _};
use serde::{Deserialize, Serialize};
use serde_json::{Number, Value};

pub use super::field_schema::{
    BooleanSchema, LegacyTitledEnumSchema, NumberKind, NumberSchema, StringFormat, StringSchema,
    TitledItems, TitledMultiSelectEnumSchema, TitledOption, TitledSingleSelectEnumSchema,
    UntitledItems, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use super::tag::{FormModeTag, ObjectTag, UrlModeTag};

/// The `requestedSchema` of a form-mode elicitation: a flat object of primitive fields.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElicitRequestedSchema {
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub kind: ObjectTag,
    /// Optional `$schema` dialect URI.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// The fields, in the order the client should show them. Names must be unique.
    #[serde(with = "ordered_properties")]
    pub properties: Vec<(String, PrimitiveSchema)>,
    /// Names of the fields the user must fill in; omitted on the wire when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<String>,
}

impl ElicitRequestedSchema {
    /// The schema of the field called `name`, if there is one.
    pub fn property(&self, name: &str) -> Option<&PrimitiveSchema> {
        self.properties
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, schema)| schema)
    }
}

/// Serde for `properties`: a JSON object whose member order is the `Vec` order.
mod ordered_properties {
    use std::collections::HashSet;
    use std::fmt;

    use serde::de::{Deserializer, Error as _, MapAccess, Visitor};
    use serde::ser::{SerializeMap, Serializer};

    use super::PrimitiveSchema;

    pub(super) fn serialize<S: Serializer>(
        properties: &[(String, PrimitiveSchema)],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(properties.len()))?;
        for (name, schema) in properties {
            map.serialize_entry(name, schema)?;
        }
        map.end()
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<(String, PrimitiveSchema)>, D::Error> {
        struct PropertiesVisitor;

        impl<'de> Visitor<'de> for PropertiesVisitor {
            type Value = Vec<(String, PrimitiveSchema)>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of primitive field schemas")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut seen = HashSet::new();
                let mut properties = Vec::new();
                while let Some((name, schema)) = access.next_entry::<String, PrimitiveSchema>()? {
                    if !seen.insert(name.clone()) {
                        return Err(A::Error::custom(format_args!(
                            "duplicate property `{name}`"
                        )));
                    }
                    properties.push((name, schema));
                }
                Ok(properties)
            }
        }

        deserializer.deserialize_map(PropertiesVisitor)
    }
}

/// One field of a form: the schema's `PrimitiveSchemaDefinition`.
///
/// Serialises as the inner schema. Parsing picks the variant from the shape: `type` first,
/// then `oneOf` (titled single-select), `enum` with `enumNames` (legacy), `enum` (untitled
/// single-select), and for arrays `items.anyOf` (titled multi-select).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchema {
    /// Free text, optionally with a format.
    String(StringSchema),
    /// A number or an integer.
    Number(NumberSchema),
    /// A yes/no field.
    Boolean(BooleanSchema),
    /// One of a list of strings, shown as they are.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// One of a list of values, each with a display title.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Several of a list of strings.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Several of a list of values, each with a display title.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// The legacy `enumNames` single-select (deprecated, still in both schemas), read and
    /// written as itself; `#[choice(enum_names)]` asks for it.
    LegacyTitled(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Clone, Copy)]
        enum Shape {
            String,
            Number,
            Boolean,
            UntitledSingle,
            TitledSingle,
            UntitledMulti,
            TitledMulti,
            Legacy,
        }
        let value = Value::deserialize(deserializer)?;
        let object = value
            .as_object()
            .ok_or_else(|| D::Error::custom("a primitive field schema must be an object"))?;
        let has = |key: &str| object.contains_key(key);
        let shape = match object.get("type").and_then(Value::as_str) {
            Some("string") if has("oneOf") => Shape::TitledSingle,
            Some("string") if has("enum") && has("enumNames") => Shape::Legacy,
            Some("string") if has("enum") => Shape::UntitledSingle,
            Some("string") => Shape::String,
            Some("number" | "integer") => Shape::Number,
            Some("boolean") => Shape::Boolean,
            Some("array")
                if object
                    .get("items")
                    .is_some_and(|items| items.get("anyOf").is_some()) =>
            {
                Shape::TitledMulti
            }
            Some("array") => Shape::UntitledMulti,
            Some(other) => {
                return Err(D::Error::custom(format_args!(
                    "unsupported primitive field schema type `{other}`"
                )));
            }
            None => {
                return Err(D::Error::custom(
                    "missing field `type` in a primitive field schema",
                ));
            }
        };
        let parsed = match shape {
            Shape::String => serde_json::from_value(value).map(Self::String),
            Shape::Number => serde_json::from_value(value).map(Self::Number),
            Shape::Boolean => serde_json::from_value(value).map(Self::Boolean),
            Shape::UntitledSingle => serde_json::from_value(value).map(Self::UntitledSingleSelect),
            Shape::TitledSingle => serde_json::from_value(value).map(Self::TitledSingleSelect),
            Shape::UntitledMulti => serde_json::from_value(value).map(Self::UntitledMultiSelect),
            Shape::TitledMulti => serde_json::from_value(value).map(Self::TitledMultiSelect),
            Shape::Legacy => serde_json::from_value(value).map(Self::LegacyTitled),
        };
        parsed.map_err(D::Error::custom)
    }
}

/// Parameters of a form-mode `elicitation/create` (`ElicitRequestFormParams`).
///
/// `mode` is optional on the wire (absent means form). [`Default`] and
/// [`ElicitRequestFormParams::new`] set it, so what this server writes always says
/// `"mode": "form"`; a parsed value keeps whether the peer wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitRequestFormParams {
    /// `Some` writes `"mode": "form"`; `None` leaves the mode implicit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<FormModeTag>,
    /// What the user is asked.
    pub message: String,
    /// The form: borrowed when it is a form type's schema, built once per type.
    pub requested_schema: Cow<'static, ElicitRequestedSchema>,
}

impl Default for ElicitRequestFormParams {
    fn default() -> Self {
        Self {
            mode: Some(FormModeTag),
            message: String::new(),
            requested_schema: Cow::Owned(ElicitRequestedSchema::default()),
        }
    }
}

impl ElicitRequestFormParams {
    /// Form-mode parameters with an explicit `"mode": "form"`.
    pub fn new(message: impl Into<String>, requested_schema: ElicitRequestedSchema) -> Self {
        Self {
            mode: Some(FormModeTag),
            message: message.into(),
            requested_schema: Cow::Owned(requested_schema),
        }
    }

    /// Form-mode parameters around a schema that lives for the whole program (such as
    /// `ElicitForm::requested_schema()`), which is then borrowed rather than copied.
    pub fn with_static_schema(
        message: impl Into<String>,
        requested_schema: &'static ElicitRequestedSchema,
    ) -> Self {
        Self {
            mode: Some(FormModeTag),
            message: message.into(),
            requested_schema: Cow::Borrowed(requested_schema),
        }
    }
}

/// Parameters of a URL-mode `elicitation/create` (`ElicitRequestURLParams`). Revision
/// 2026-07-28 has no `elicitationId` (correlation travels in `requestState`); 2025-11-25
/// requires one, which the server sets when it asks on a legacy session.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ElicitRequestUrlParams {
    /// Always `"url"`.
    pub mode: UrlModeTag,
    /// Why the user should open the URL.
    pub message: String,
    /// The page to open.
    pub url: String,
    /// `elicitationId` (2025-11-25 only): names the elicitation in
    /// `notifications/elicitation/complete`.
    #[serde(
        rename = "elicitationId",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub elicitation_id: Option<String>,
}

impl ElicitRequestUrlParams {
    /// URL-mode parameters.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            mode: UrlModeTag,
            message: message.into(),
            url: url.into(),
            elicitation_id: None,
        }
    }
}

/// The `params` of `elicitation/create` (`ElicitRequestParams`), told apart by `mode`.
///
/// Serialises as the inner parameters. A missing `mode` parses as form mode, as the schema
/// allows.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitRequestParams {
    /// `mode: "form"` (or no mode): ask for structured data in the client.
    Form(ElicitRequestFormParams),
    /// `mode: "url"`: send the user to a web page.
    Url(ElicitRequestUrlParams),
}

impl<'de> Deserialize<'de> for ElicitRequestParams {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase")]
        struct Raw {
            #[serde(default)]
            mode: Option<String>,
            message: String,
            #[serde(default)]
            requested_schema: Option<ElicitRequestedSchema>,
            #[serde(default)]
            url: Option<String>,
            #[serde(default)]
            elicitation_id: Option<String>,
        }
        let raw = Raw::deserialize(deserializer)?;
        match raw.mode.as_deref() {
            None | Some("form") => {
                let requested_schema = raw
                    .requested_schema
                    .ok_or_else(|| D::Error::missing_field("requestedSchema"))?;
                Ok(Self::Form(ElicitRequestFormParams {
                    mode: raw.mode.map(|_| FormModeTag),
                    message: raw.message,
                    requested_schema: Cow::Owned(requested_schema),
                }))
            }
            Some("url") => {
                let url = raw.url.ok_or_else(|| D::Error::missing_field("url"))?;
                Ok(Self::Url(ElicitRequestUrlParams {
                    mode: UrlModeTag,
                    message: raw.message,
                    url,
                    elicitation_id: raw.elicitation_id,
                }))
            }
            Some(other) => Err(D::Error::unknown_variant(other, &["form", "url"])),
        }
    }
}

/// What the user did with an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form or agreed to open the URL.
    Accept,
    /// The user explicitly refused.
    Decline,
    /// The user dismissed the request without choosing.
    Cancel,
}

/// One value of accepted form content: string, number, boolean or array of strings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A string (text fields and single-selects).
    String(String),
    /// A boolean.
    Bool(bool),
    /// A number, kept exactly as sent (integers and floats both parse).
    Number(Number),
    /// The values chosen in a multi-select.
    StringArray(Vec<String>),
}

/// The client's answer to `elicitation/create` (`ElicitResult`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted fields, for an accepted form; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
}

impl ElicitResult {
    /// An accepted form with the given content.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
        }
    }

    /// An accepted URL-mode request (no content).
    pub fn accept_url() -> Self {
        Self {
            action: ElicitAction::Accept,
            content: None,
        }
    }

    /// A declined request.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
        }
    }

    /// A cancelled request.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
        }
    }
}
