//! Snapshots of generated form schemas, one per field kind and attribute, each reviewed as
//! JSON and validated against the vendored 2026-07-28 and 2025-11-25 schemas.

mod common;

use std::collections::BTreeSet;

use common::{legacy_schema_validate, schema_validate};
use mcp_runtime::{ElicitChoice, ElicitForm};
use serde_json::{Value, json};

/// Asserts `F`'s schema equals `expected`, and that it and each of its fields are valid.
fn snapshot<F: ElicitForm>(expected: &Value) {
    let schema = serde_json::to_value(F::requested_schema()).expect("serialisable");
    assert_eq!(
        &schema,
        expected,
        "schema differs:\n{}",
        serde_json::to_string_pretty(&schema).unwrap()
    );
    let params = json!({"message": "Fill this in", "requestedSchema": schema});
    schema_validate("ElicitRequestFormParams", &params);
    legacy_schema_validate("ElicitRequestFormParams", &params);
    for (_, field) in schema["properties"].as_object().expect("properties") {
        schema_validate("PrimitiveSchemaDefinition", field);
        legacy_schema_validate("PrimitiveSchemaDefinition", field);
    }
    // The fetch after the first returns the very same value.
    assert!(std::ptr::eq(F::requested_schema(), F::requested_schema()));
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Plain {
    Red,
    Green,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "kebab-case")]
enum Titled {
    #[choice(title = "EU (Ireland)")]
    EuWest,
    UsEast,
    #[choice(rename = "ap", title = "Asia Pacific")]
    AsiaPacific,
}

#[derive(ElicitForm)]
struct Texts {
    plain: String,
    /// Shown under the field.
    ///
    /// Second paragraph.
    documented: String,
    /// Overridden by the attribute.
    #[form(title = "Name", description = "Your full name")]
    titled: String,
    #[form(min_length = 2, max_length = 40, default = "Ada")]
    bounded: String,
    #[form(format = "email")]
    email: String,
    #[form(format = "uri")]
    uri: Option<String>,
    #[form(format = "date", default = String::from("2026-07-28"))]
    date: Option<String>,
    #[form(format = "date-time")]
    date_time: Option<String>,
}

#[test]
fn text_fields() {
    snapshot::<Texts>(&json!({
        "type": "object",
        "properties": {
            "plain": {"type": "string"},
            "documented": {"type": "string", "description": "Shown under the field.\n\nSecond paragraph."},
            "titled": {"type": "string", "title": "Name", "description": "Your full name"},
            "bounded": {"type": "string", "minLength": 2, "maxLength": 40, "default": "Ada"},
            "email": {"type": "string", "format": "email"},
            "uri": {"type": "string", "format": "uri"},
            "date": {"type": "string", "format": "date", "default": "2026-07-28"},
            "date_time": {"type": "string", "format": "date-time"},
        },
        "required": ["plain", "documented", "titled", "bounded", "email"],
    }));
}

#[derive(ElicitForm)]
struct Integers {
    #[form(minimum = -5, maximum = 5, default = -1)]
    a: i8,
    b: i16,
    c: i32,
    #[form(maximum = 9_223_372_036_854_775_807)]
    d: i64,
    e: isize,
    #[form(minimum = 1, maximum = 12, default = 2)]
    f: u8,
    g: u16,
    h: u32,
    #[form(maximum = 18_446_744_073_709_551_615)]
    i: u64,
    j: Option<usize>,
}

#[test]
fn integer_fields() {
    snapshot::<Integers>(&json!({
        "type": "object",
        "properties": {
            "a": {"type": "integer", "minimum": -5, "maximum": 5, "default": -1},
            "b": {"type": "integer"},
            "c": {"type": "integer"},
            "d": {"type": "integer", "maximum": 9_223_372_036_854_775_807_i64},
            "e": {"type": "integer"},
            "f": {"type": "integer", "minimum": 1, "maximum": 12, "default": 2},
            "g": {"type": "integer"},
            "h": {"type": "integer"},
            "i": {"type": "integer", "maximum": 18_446_744_073_709_551_615_u64},
            "j": {"type": "integer"},
        },
        "required": ["a", "b", "c", "d", "e", "f", "g", "h", "i"],
    }));
}

#[derive(ElicitForm)]
struct Floats {
    #[form(minimum = 0.5, maximum = 2, default = 1.25)]
    ratio: f64,
    #[form(minimum = -1.5)]
    single: f32,
    optional: Option<f64>,
}

#[test]
fn float_fields() {
    snapshot::<Floats>(&json!({
        "type": "object",
        "properties": {
            "ratio": {"type": "number", "minimum": 0.5, "maximum": 2, "default": 1.25},
            "single": {"type": "number", "minimum": -1.5},
            "optional": {"type": "number"},
        },
        "required": ["ratio", "single"],
    }));
}

#[derive(ElicitForm)]
struct Booleans {
    /// Tick to agree.
    #[form(title = "Agree", default = true)]
    agree: bool,
    optional: Option<bool>,
}

#[test]
fn boolean_fields() {
    snapshot::<Booleans>(&json!({
        "type": "object",
        "properties": {
            "agree": {"type": "boolean", "title": "Agree", "description": "Tick to agree.", "default": true},
            "optional": {"type": "boolean"},
        },
        "required": ["agree"],
    }));
}

#[derive(ElicitForm)]
struct Singles {
    #[form(default = Plain::Green)]
    plain: Plain,
    #[form(title = "Region", default = Titled::UsEast)]
    titled: Titled,
    optional: Option<Plain>,
}

#[test]
fn single_select_fields() {
    snapshot::<Singles>(&json!({
        "type": "object",
        "properties": {
            "plain": {"type": "string", "enum": ["Red", "Green"], "default": "Green"},
            "titled": {
                "type": "string",
                "title": "Region",
                "oneOf": [
                    {"const": "eu-west", "title": "EU (Ireland)"},
                    {"const": "us-east", "title": "us-east"},
                    {"const": "ap", "title": "Asia Pacific"},
                ],
                "default": "us-east",
            },
            "optional": {"type": "string", "enum": ["Red", "Green"]},
        },
        "required": ["plain", "titled"],
    }));
}

/// Written in the legacy `enum` + `enumNames` shape when single-select.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "lowercase", enum_names)]
enum Named {
    #[choice(title = "Option One")]
    Opt1,
    Opt2,
    #[choice(rename = "third", title = "Option Three")]
    Opt3,
}

/// `enum_names` with no title at all: every name is the wire value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ElicitChoice)]
#[choice(enum_names)]
enum NamedPlain {
    Red,
    Green,
}

#[derive(ElicitForm)]
struct LegacyNamed {
    /// Select one option (legacy)
    legacy_enum: Option<Named>,
    #[form(title = "Pick", default = Named::Opt2)]
    required: Named,
    plain: NamedPlain,
    #[form(min_items = 1)]
    multi: Vec<Named>,
    set: Option<BTreeSet<Named>>,
}

#[test]
fn enum_names_single_select_fields() {
    let titled_items = json!({"anyOf": [
        {"const": "opt1", "title": "Option One"},
        {"const": "opt2", "title": "opt2"},
        {"const": "third", "title": "Option Three"},
    ]});
    snapshot::<LegacyNamed>(&json!({
        "type": "object",
        "properties": {
            "legacy_enum": {
                "type": "string",
                "description": "Select one option (legacy)",
                "enum": ["opt1", "opt2", "third"],
                "enumNames": ["Option One", "opt2", "Option Three"],
            },
            "required": {
                "type": "string",
                "title": "Pick",
                "enum": ["opt1", "opt2", "third"],
                "enumNames": ["Option One", "opt2", "Option Three"],
                "default": "opt2",
            },
            "plain": {"type": "string", "enum": ["Red", "Green"], "enumNames": ["Red", "Green"]},
            "multi": {"type": "array", "items": titled_items, "minItems": 1},
            "set": {"type": "array", "items": titled_items},
        },
        "required": ["required", "plain", "multi"],
    }));
    let legacy = &serde_json::to_value(LegacyNamed::requested_schema()).unwrap()["properties"]["legacy_enum"];
    schema_validate("LegacyTitledEnumSchema", legacy);
    legacy_schema_validate("LegacyTitledEnumSchema", legacy);
    // On the wire, members in the order of the schema's definition.
    let field = LegacyNamed::requested_schema()
        .property("legacy_enum")
        .expect("present");
    assert_eq!(
        serde_json::to_string(field).unwrap(),
        r#"{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","third"],"enumNames":["Option One","opt2","Option Three"]}"#
    );
    const { assert!(Named::ENUM_NAMES && NamedPlain::ENUM_NAMES && !Titled::ENUM_NAMES) };
}

#[derive(ElicitForm)]
struct Multis {
    #[form(min_items = 1, max_items = 2, default = vec![Plain::Red])]
    plain: Vec<Plain>,
    #[form(description = "Where to deploy")]
    titled: BTreeSet<Titled>,
    optional: Option<Vec<Titled>>,
    #[form(max_items = 1, default = BTreeSet::from([Plain::Green]))]
    optional_set: Option<BTreeSet<Plain>>,
}

#[test]
fn multi_select_fields() {
    let titled_items = json!({"anyOf": [
        {"const": "eu-west", "title": "EU (Ireland)"},
        {"const": "us-east", "title": "us-east"},
        {"const": "ap", "title": "Asia Pacific"},
    ]});
    snapshot::<Multis>(&json!({
        "type": "object",
        "properties": {
            "plain": {
                "type": "array",
                "items": {"type": "string", "enum": ["Red", "Green"]},
                "minItems": 1,
                "maxItems": 2,
                "default": ["Red"],
            },
            "titled": {"type": "array", "description": "Where to deploy", "items": titled_items},
            "optional": {"type": "array", "items": titled_items},
            "optional_set": {
                "type": "array",
                "items": {"type": "string", "enum": ["Red", "Green"]},
                "maxItems": 1,
                "default": ["Green"],
            },
        },
        "required": ["plain", "titled"],
    }));
}

#[derive(ElicitForm)]
#[form(rename_all = "camelCase")]
struct Renamed {
    user_name: String,
    #[form(rename = "mail")]
    email_address: String,
    r#type: Option<String>,
}

#[derive(ElicitForm)]
#[form(rename_all = "SCREAMING-KEBAB-CASE")]
struct Screaming {
    max_replicas: u8,
}

#[test]
fn renamed_fields() {
    snapshot::<Renamed>(&json!({
        "type": "object",
        "properties": {
            "userName": {"type": "string"},
            "mail": {"type": "string"},
            "type": {"type": "string"},
        },
        "required": ["userName", "mail"],
    }));
    snapshot::<Screaming>(&json!({
        "type": "object",
        "properties": {"MAX-REPLICAS": {"type": "integer"}},
        "required": ["MAX-REPLICAS"],
    }));
}

#[derive(ElicitForm)]
struct Empty {}

#[test]
fn empty_form() {
    snapshot::<Empty>(&json!({"type": "object", "properties": {}}));
}

#[test]
fn properties_follow_field_order() {
    let text = serde_json::to_string(Texts::requested_schema()).unwrap();
    let positions: Vec<usize> = [
        "\"plain\"",
        "\"documented\"",
        "\"titled\"",
        "\"bounded\"",
        "\"email\"",
        "\"uri\"",
        "\"date\"",
        "\"date_time\"",
    ]
    .iter()
    .map(|name| text.find(name).expect("present"))
    .collect();
    assert!(positions.is_sorted(), "{text}");
}

#[test]
fn choices_expose_wire_values_and_titles() {
    assert_eq!(Titled::AsiaPacific.to_wire(), "ap");
    assert_eq!(Titled::from_wire("eu-west"), Some(Titled::EuWest));
    assert_eq!(Titled::from_wire("EuWest"), None);
    assert_eq!(Titled::EuWest.title(), Some("EU (Ireland)"));
    assert_eq!(Titled::UsEast.title(), None);
    let wires: Vec<_> = Titled::CHOICES.iter().map(|choice| choice.wire).collect();
    assert_eq!(wires, ["eu-west", "us-east", "ap"]);
}
