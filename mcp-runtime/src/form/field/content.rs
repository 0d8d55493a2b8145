//! A form's schema built field by field, its content read with every field error collected,
//! and written back.

use std::marker::PhantomData;

use serde_json::{Map, Value};

use crate::form::errors::{FieldError, FormErrors};
use crate::form::{ElicitChoice, ElicitForm};
use crate::protocol::ElicitRequestedSchema;

use super::choice::one_of_words;
use super::defaults;
use super::{FieldMeta, Kind};

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
