//! Elicitation wire types: construction, schema validity, field order, legacy handling.

mod common;

use std::collections::BTreeMap;

use common::{legacy_schema_validate, schema_validate};
use mcp_runtime::protocol::*;
use serde_json::{Number, Value, json};

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialisable")
}

fn every_primitive() -> Vec<(&'static str, PrimitiveSchema)> {
    vec![
        (
            "StringSchema",
            PrimitiveSchema::String(StringSchema {
                title: Some("Email".into()),
                description: Some("Where we write".into()),
                min_length: Some(3),
                max_length: Some(50),
                format: Some(StringFormat::Email),
                default: Some("a@example.com".into()),
                ..Default::default()
            }),
        ),
        (
            "StringSchema",
            PrimitiveSchema::String(StringSchema::default()),
        ),
        (
            "NumberSchema",
            PrimitiveSchema::Number(NumberSchema {
                kind: NumberKind::Integer,
                minimum: Some(Number::from(1)),
                maximum: Some(Number::from(12)),
                default: Some(Number::from(2)),
                ..Default::default()
            }),
        ),
        (
            "NumberSchema",
            PrimitiveSchema::Number(NumberSchema {
                minimum: Number::from_f64(0.5),
                ..Default::default()
            }),
        ),
        (
            "BooleanSchema",
            PrimitiveSchema::Boolean(BooleanSchema {
                title: Some("Ok?".into()),
                default: Some(false),
                ..Default::default()
            }),
        ),
        (
            "UntitledSingleSelectEnumSchema",
            PrimitiveSchema::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                values: vec!["red".into(), "green".into()],
                default: Some("red".into()),
                ..Default::default()
            }),
        ),
        (
            "TitledSingleSelectEnumSchema",
            PrimitiveSchema::TitledSingleSelect(TitledSingleSelectEnumSchema {
                one_of: vec![TitledOption::new("prod", "Production (live)")],
                description: Some("where".into()),
                ..Default::default()
            }),
        ),
        (
            "UntitledMultiSelectEnumSchema",
            PrimitiveSchema::UntitledMultiSelect(UntitledMultiSelectEnumSchema {
                min_items: Some(1),
                max_items: Some(2),
                items: UntitledItems {
                    values: vec!["a".into(), "b".into()],
                    ..Default::default()
                },
                default: Some(vec!["a".into()]),
                ..Default::default()
            }),
        ),
        (
            "TitledMultiSelectEnumSchema",
            PrimitiveSchema::TitledMultiSelect(TitledMultiSelectEnumSchema {
                items: TitledItems {
                    any_of: vec![TitledOption::new("a", "A")],
                },
                title: Some("Pick".into()),
                ..Default::default()
            }),
        ),
        (
            "LegacyTitledEnumSchema",
            PrimitiveSchema::LegacyTitled(LegacyTitledEnumSchema {
                title: Some("Env".into()),
                description: Some("Where".into()),
                values: vec!["stg".into(), "prod".into()],
                enum_names: vec!["Staging".into(), "Production".into()],
                default: Some("stg".into()),
                ..Default::default()
            }),
        ),
        (
            "LegacyTitledEnumSchema",
            PrimitiveSchema::LegacyTitled(LegacyTitledEnumSchema {
                values: vec!["a".into()],
                ..Default::default()
            }),
        ),
    ]
}

#[test]
fn every_primitive_schema_validates_and_round_trips() {
    for (def, schema) in every_primitive() {
        let value = to_value(&schema);
        schema_validate(def, &value);
        schema_validate("PrimitiveSchemaDefinition", &value);
        legacy_schema_validate(def, &value);
        legacy_schema_validate("PrimitiveSchemaDefinition", &value);
        let back: PrimitiveSchema = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(back, schema, "{def} round trip");
        assert_eq!(to_value(&back), value);
    }
}

#[test]
fn optional_fields_are_omitted() {
    let value = to_value(&StringSchema::default());
    assert_eq!(value, json!({"type": "string"}));
    let value = to_value(&NumberSchema {
        kind: NumberKind::Integer,
        ..Default::default()
    });
    assert_eq!(value, json!({"type": "integer"}));
}

#[test]
fn string_formats_use_the_schema_spelling() {
    for (format, wire) in [
        (StringFormat::Email, "email"),
        (StringFormat::Uri, "uri"),
        (StringFormat::Date, "date"),
        (StringFormat::DateTime, "date-time"),
    ] {
        let schema = StringSchema {
            format: Some(format),
            ..Default::default()
        };
        let value = to_value(&schema);
        assert_eq!(value["format"], wire);
        schema_validate("StringSchema", &value);
    }
}

#[test]
fn requested_schema_keeps_insertion_order_on_the_wire() {
    let schema = ElicitRequestedSchema {
        properties: vec![
            (
                "zeta".into(),
                PrimitiveSchema::String(StringSchema::default()),
            ),
            (
                "alpha".into(),
                PrimitiveSchema::Boolean(BooleanSchema::default()),
            ),
            (
                "mid".into(),
                PrimitiveSchema::Number(NumberSchema::default()),
            ),
        ],
        required: vec!["zeta".into()],
        ..Default::default()
    };
    let text = serde_json::to_string(&schema).unwrap();
    let (z, a, m) = (
        text.find("zeta").unwrap(),
        text.find("alpha").unwrap(),
        text.find("mid").unwrap(),
    );
    assert!(z < a && a < m, "order lost: {text}");
    let back: ElicitRequestedSchema = serde_json::from_str(&text).unwrap();
    assert_eq!(back, schema);
    let names: Vec<_> = back
        .properties
        .iter()
        .map(|(name, _)| name.as_str())
        .collect();
    assert_eq!(names, ["zeta", "alpha", "mid"]);
    assert!(back.property("alpha").is_some());
    assert!(back.property("nope").is_none());

    let params = ElicitRequestParams::Form(ElicitRequestFormParams::new("Fill", schema));
    let value = to_value(&params);
    assert_eq!(value["mode"], "form");
    schema_validate("ElicitRequestFormParams", &value);
    schema_validate("ElicitRequestParams", &value);
}

#[test]
fn requested_schema_rejects_duplicates_and_non_primitives() {
    let dup = r#"{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"boolean"}}}"#;
    assert!(serde_json::from_str::<ElicitRequestedSchema>(dup).is_err());
    let nested = json!({"type": "object", "properties": {"a": {"type": "object"}}});
    assert!(serde_json::from_value::<ElicitRequestedSchema>(nested).is_err());
    let untyped = json!({"type": "object", "properties": {"a": {"title": "x"}}});
    assert!(serde_json::from_value::<ElicitRequestedSchema>(untyped).is_err());
    let wrong_type = json!({"type": "array", "properties": {}});
    assert!(serde_json::from_value::<ElicitRequestedSchema>(wrong_type).is_err());
}

#[test]
fn legacy_enum_names_are_read_and_written_as_themselves() {
    let legacy = json!({
        "type": "string",
        "title": "Env",
        "enum": ["stg", "prod", "dev"],
        "enumNames": ["Staging", "Production"],
        "default": "stg"
    });
    schema_validate("LegacyTitledEnumSchema", &legacy);
    legacy_schema_validate("LegacyTitledEnumSchema", &legacy);
    let parsed: PrimitiveSchema = serde_json::from_value(legacy.clone()).unwrap();
    let PrimitiveSchema::LegacyTitled(inner) = &parsed else {
        panic!("expected the legacy variant, got {parsed:?}")
    };
    assert_eq!(inner.enum_names, ["Staging", "Production"]);
    let written = to_value(&parsed);
    assert_eq!(written, legacy);
    assert!(written.get("oneOf").is_none());
    // Members in the order of the schema's definition.
    let text = serde_json::to_string(&parsed).unwrap();
    assert_eq!(
        text,
        r#"{"type":"string","title":"Env","enum":["stg","prod","dev"],"enumNames":["Staging","Production"],"default":"stg"}"#
    );
}

#[test]
fn legacy_enum_names_convert_to_titled_one_of() {
    let legacy = LegacyTitledEnumSchema {
        title: Some("Env".into()),
        values: vec!["stg".into(), "prod".into(), "dev".into()],
        enum_names: vec!["Staging".into(), "Production".into()],
        default: Some("stg".into()),
        ..Default::default()
    };
    let titled = to_value(&legacy.to_titled());
    assert_eq!(
        titled,
        json!({
            "type": "string",
            "title": "Env",
            "oneOf": [
                {"const": "stg", "title": "Staging"},
                {"const": "prod", "title": "Production"},
                {"const": "dev", "title": "dev"}
            ],
            "default": "stg"
        })
    );
    schema_validate("TitledSingleSelectEnumSchema", &titled);
}

#[test]
fn legacy_enum_without_names_is_still_written_with_enum_names() {
    let bare = LegacyTitledEnumSchema {
        values: vec!["a".into()],
        ..Default::default()
    };
    let written = to_value(&PrimitiveSchema::LegacyTitled(bare.clone()));
    assert_eq!(
        written,
        json!({"type": "string", "enum": ["a"], "enumNames": []})
    );
    assert_eq!(
        serde_json::from_value::<PrimitiveSchema>(written).unwrap(),
        PrimitiveSchema::LegacyTitled(bare)
    );
}

#[test]
fn url_mode_params_have_no_elicitation_id() {
    let params = ElicitRequestParams::Url(ElicitRequestUrlParams::new(
        "Set your key",
        "https://example.com/key",
    ));
    let value = to_value(&params);
    assert_eq!(
        value,
        json!({"mode": "url", "message": "Set your key", "url": "https://example.com/key"})
    );
    let implicit = ElicitRequestFormParams {
        mode: None,
        ..Default::default()
    };
    let implicit = to_value(&ElicitRequestParams::Form(implicit));
    assert!(implicit.get("mode").is_none());
    schema_validate("ElicitRequestFormParams", &implicit);
    let back: ElicitRequestParams = serde_json::from_value(implicit.clone()).unwrap();
    assert_eq!(to_value(&back), implicit);
    schema_validate("ElicitRequestURLParams", &value);
    assert_eq!(
        serde_json::from_value::<ElicitRequestParams>(value).unwrap(),
        params
    );
}

#[test]
fn elicit_params_mode_defaults_to_form_and_rejects_unknown_modes() {
    let no_mode = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
    assert!(matches!(
        serde_json::from_value::<ElicitRequestParams>(no_mode).unwrap(),
        ElicitRequestParams::Form(_)
    ));
    let odd = json!({"mode": "voice", "message": "m"});
    assert!(serde_json::from_value::<ElicitRequestParams>(odd).is_err());
    let url_without_url = json!({"mode": "url", "message": "m"});
    assert!(serde_json::from_value::<ElicitRequestParams>(url_without_url).is_err());
}

#[test]
fn elicit_results_cover_every_action_and_value_kind() {
    let content = BTreeMap::from([
        ("name".to_string(), ElicitValue::String("octocat".into())),
        ("replicas".to_string(), ElicitValue::Number(Number::from(3))),
        ("ok".to_string(), ElicitValue::Bool(true)),
        (
            "tags".to_string(),
            ElicitValue::StringArray(vec!["a".into(), "b".into()]),
        ),
    ]);
    for result in [
        ElicitResult::accept(content),
        ElicitResult::accept_url(),
        ElicitResult::decline(),
        ElicitResult::cancel(),
    ] {
        let value = to_value(&result);
        schema_validate("ElicitResult", &value);
        assert_eq!(
            serde_json::from_value::<ElicitResult>(value).unwrap(),
            result
        );
    }
    assert_eq!(
        to_value(&ElicitResult::decline()),
        json!({"action": "decline"})
    );

    let float: ElicitResult =
        serde_json::from_value(json!({"action": "accept", "content": {"x": 1.5}})).unwrap();
    assert_eq!(
        to_value(&float),
        json!({"action": "accept", "content": {"x": 1.5}})
    );
    assert!(serde_json::from_value::<ElicitResult>(json!({"action": "maybe"})).is_err());
    let nested = json!({"action": "accept", "content": {"x": {"y": 1}}});
    assert!(serde_json::from_value::<ElicitResult>(nested).is_err());
}
