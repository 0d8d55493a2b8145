//! Parsing accepted content into forms: every field error at once, defaults, serde, and
//! property tests built from the schema's own constraints.

use std::collections::BTreeSet;

use mcp_runtime::form::FormErrors;
use mcp_runtime::{ElicitChoice, ElicitForm};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Color {
    Red,
    #[choice(title = "Leaf green")]
    Green,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "lowercase")]
enum Tag {
    Alpha,
    Beta,
    Gamma,
}

#[derive(Debug, Clone, PartialEq, ElicitForm)]
struct Order {
    #[form(min_length = 2, max_length = 5)]
    name: String,
    #[form(format = "email")]
    email: Option<String>,
    #[form(minimum = 1, maximum = 12, default = 2)]
    replicas: u8,
    #[form(minimum = -1.5, maximum = 1.5)]
    ratio: f64,
    express: bool,
    color: Color,
    #[form(min_items = 1, max_items = 2)]
    tags: Vec<Tag>,
    extras: Option<BTreeSet<Tag>>,
    count: Option<u64>,
    #[form(default = Color::Red)]
    backup: Option<Color>,
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

fn valid() -> Map<String, Value> {
    object(json!({
        "name": "Ada",
        "replicas": 3,
        "ratio": 0.5,
        "express": true,
        "color": "Green",
        "tags": ["alpha"],
    }))
}

fn with(key: &str, value: Value) -> Map<String, Value> {
    let mut content = valid();
    content.insert(key.into(), value);
    content
}

fn refused(content: &Map<String, Value>) -> FormErrors {
    match Order::from_content(content) {
        Ok(order) => panic!("accepted {order:?}"),
        Err(errors) => errors,
    }
}

#[test]
fn valid_content_parses() {
    let order = Order::from_content(&valid()).unwrap();
    assert_eq!(
        order,
        Order {
            name: "Ada".into(),
            email: None,
            replicas: 3,
            ratio: 0.5,
            express: true,
            color: Color::Green,
            tags: vec![Tag::Alpha],
            extras: None,
            count: None,
            backup: None,
        }
    );
}

#[test]
fn every_error_at_once_in_field_order() {
    let content = object(json!({
        "name": "A",
        "email": "not-an-email",
        "replicas": 13,
        "ratio": "half",
        "color": "Blue",
        "tags": ["alpha", "alpha"],
        "count": -1,
    }));
    let errors = refused(&content);
    assert_eq!(
        errors.to_string(),
        "`name`: expected a string from 2 to 5 characters, got 1 character\n\
         `email`: expected an e-mail address, got `not-an-email`\n\
         `replicas`: expected an integer from 1 to 12, got `13`\n\
         `ratio`: expected a number from -1.5 to 1.5, got `half`\n\
         `express`: expected `true` or `false`, got nothing\n\
         `color`: expected one of `Red`, `Green`, got `Blue`\n\
         `tags`: expected an array of 1 to 2 distinct values among `alpha`, `beta`, `gamma`, got `alpha` twice\n\
         `count`: expected an integer from 0 to 18446744073709551615, got `-1`"
    );
    let fields: Vec<_> = errors.iter().map(|error| error.field.as_str()).collect();
    assert_eq!(
        fields,
        [
            "name", "email", "replicas", "ratio", "express", "color", "tags", "count"
        ]
    );
    assert_eq!(errors.field("replicas").unwrap().got, "`13`");
}

#[test]
fn integers_accept_whole_floats_only_and_never_wrap() {
    assert_eq!(
        Order::from_content(&with("replicas", json!(3.0)))
            .unwrap()
            .replicas,
        3
    );
    for bad in [
        json!(3.5),
        json!(0),
        json!(-3),
        json!(256),
        json!(1e300),
        json!("3"),
    ] {
        let errors = refused(&with("replicas", bad.clone()));
        assert_eq!(errors.len(), 1, "{bad}");
        assert_eq!(errors.errors()[0].field, "replicas");
    }
    // No bound written: the type's own range still holds.
    let errors = refused(&with("count", json!(-1)));
    assert_eq!(errors.errors()[0].field, "count");
    let big = with("count", json!(u64::MAX));
    assert_eq!(Order::from_content(&big).unwrap().count, Some(u64::MAX));
}

#[test]
fn lengths_count_characters() {
    // Five characters, ten bytes.
    let order = Order::from_content(&with("name", json!("ééééé"))).unwrap();
    assert_eq!(order.name, "ééééé");
    assert_eq!(
        refused(&with("name", json!("éééééé"))).errors()[0].got,
        "6 characters"
    );
}

#[test]
fn formats_are_checked() {
    let ok = Order::from_content(&with("email", json!("ada@example.com"))).unwrap();
    assert_eq!(ok.email.as_deref(), Some("ada@example.com"));
    assert_eq!(
        refused(&with("email", json!("ada@"))).errors()[0].field,
        "email"
    );
}

#[test]
fn multi_select_counts_duplicates_and_values() {
    let ok = Order::from_content(&with("tags", json!(["gamma", "alpha"]))).unwrap();
    assert_eq!(ok.tags, [Tag::Gamma, Tag::Alpha]);
    for (bad, got) in [
        (json!([]), "0 items"),
        (json!(["alpha", "beta", "gamma"]), "3 items"),
        (json!(["beta", "beta"]), "`beta` twice"),
        (json!(["delta"]), "`delta`"),
        (json!([1]), "`1`"),
        (json!("alpha"), "`alpha`"),
    ] {
        let errors = refused(&with("tags", bad));
        assert_eq!(errors.errors()[0].field, "tags");
        assert_eq!(errors.errors()[0].got, got);
    }
    let set = Order::from_content(&with("extras", json!(["gamma", "alpha"]))).unwrap();
    assert_eq!(set.extras, Some(BTreeSet::from([Tag::Alpha, Tag::Gamma])));
}

#[test]
fn defaults_fill_absent_required_fields_only() {
    let mut content = valid();
    content.remove("replicas");
    let order = Order::from_content(&content).unwrap();
    assert_eq!(order.replicas, 2, "required field with a default");
    assert_eq!(order.backup, None, "optional field with a default");
    content.insert("replicas".into(), Value::Null);
    content.insert("backup".into(), Value::Null);
    let order = Order::from_content(&content).unwrap();
    assert_eq!(
        (order.replicas, order.backup),
        (2, None),
        "null counts as absent"
    );
    let schema = serde_json::to_value(Order::requested_schema()).unwrap();
    assert_eq!(
        schema["required"],
        json!(["name", "replicas", "ratio", "express", "color", "tags"])
    );
}

#[test]
fn unknown_keys_are_ignored() {
    let order = Order::from_content(&with("surprise", json!({"deep": [1, 2]}))).unwrap();
    assert_eq!(order, Order::from_content(&valid()).unwrap());
}

#[test]
fn to_content_round_trips_and_serde_revalidates() {
    let mut content = valid();
    content.insert("extras".into(), json!(["beta"]));
    content.insert("count".into(), json!(7));
    content.insert("backup".into(), json!("Red"));
    let order = Order::from_content(&content).unwrap();
    assert_eq!(Order::from_content(&order.to_content()).unwrap(), order);
    assert_eq!(order.to_content()["tags"], json!(["alpha"]));
    assert!(!order.to_content().contains_key("email"));

    let text = serde_json::to_string(&order).unwrap();
    assert_eq!(serde_json::from_str::<Order>(&text).unwrap(), order);
    let error = serde_json::from_value::<Order>(Value::Object(with("replicas", json!(99))))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("`replicas`: expected an integer from 1 to 12"),
        "{error}"
    );
    assert_eq!(serde_json::to_value(Color::Green).unwrap(), json!("Green"));
    assert_eq!(
        serde_json::from_value::<Tag>(json!("beta")).unwrap(),
        Tag::Beta
    );
    assert!(serde_json::from_value::<Tag>(json!("Beta")).is_err());
}

/// The wire values of [`Color`], as declared.
const COLORS: [&str; 2] = ["Red", "Green"];

#[test]
fn the_colour_list_names_every_variant() {
    let wire: Vec<&str> = Color::CHOICES.iter().map(|choice| choice.wire).collect();
    assert_eq!(wire, COLORS);
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
        prop::sample::select(vec!["alpha", "beta", "Red", "Green", "a@b.c"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(2, 8, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map("[a-z]{1,3}", inner, 0..3)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

const FIELDS: [&str; 10] = [
    "name", "email", "replicas", "ratio", "express", "color", "tags", "extras", "count", "backup",
];

prop_compose! {
    fn valid_content()(
        name in "[a-zé]{2,5}",
        email in proptest::option::of("[a-z]{1,8}@[a-z]{1,8}\\.(com|org)"),
        replicas in 1u8..=12,
        replicas_as_float in any::<bool>(),
        ratio in -1.5f64..=1.5,
        express in any::<bool>(),
        color in prop::sample::select(COLORS.to_vec()),
        tags in prop::sample::subsequence(vec!["alpha", "beta", "gamma"], 1..=2).prop_shuffle(),
        extras in proptest::option::of(prop::sample::subsequence(vec!["alpha", "beta", "gamma"], 0..=3)),
        count in proptest::option::of(any::<u64>()),
    ) -> Map<String, Value> {
        let mut content = object(json!({
            "name": name,
            "replicas": if replicas_as_float { json!(f64::from(replicas)) } else { json!(replicas) },
            "ratio": ratio,
            "express": express,
            "color": color,
            "tags": tags,
        }));
        if let Some(email) = email { content.insert("email".into(), json!(email)); }
        if let Some(extras) = extras { content.insert("extras".into(), json!(extras)); }
        if let Some(count) = count { content.insert("count".into(), json!(count)); }
        content
    }
}

/// One field and a value breaking exactly one of its constraints.
fn one_violation() -> impl Strategy<Value = (&'static str, Value)> {
    prop_oneof![
        prop_oneof![
            "[a-z]{0,1}".prop_map(Value::from),
            "[a-z]{6,9}".prop_map(Value::from),
            Just(json!(12))
        ]
        .prop_map(|value| ("name", value)),
        prop_oneof!["[a-z]{1,8}".prop_map(Value::from), Just(json!("a@@b"))]
            .prop_map(|value| ("email", value)),
        prop_oneof![
            (13u64..1000).prop_map(Value::from),
            Just(json!(0)),
            Just(json!(2.5)),
            Just(json!("3"))
        ]
        .prop_map(|value| ("replicas", value)),
        prop_oneof![
            (1.5001f64..1e9).prop_map(Value::from),
            (-1e9f64..-1.5001).prop_map(Value::from),
            Just(json!(true))
        ]
        .prop_map(|value| ("ratio", value)),
        prop_oneof![Just(json!("true")), Just(json!(1))].prop_map(|value| ("express", value)),
        prop_oneof![
            // Near misses: another case, padding, the display title, nothing.
            prop::sample::select(vec!["red", "GREEN", " Red", "Green ", "Leaf green", ""])
                .prop_map(str::to_owned),
            "[A-Z][a-z]{2,5}".prop_filter("not a variant", |text| !COLORS.contains(&&**text)),
        ]
        .prop_map(|value| ("color", Value::from(value))),
        prop_oneof![
            Just(json!([])),
            Just(json!(["alpha", "beta", "gamma"])),
            Just(json!(["beta", "beta"])),
            Just(json!(["delta"]))
        ]
        .prop_map(|value| ("tags", value)),
        prop_oneof![Just(json!(["alpha", "alpha"])), Just(json!({}))]
            .prop_map(|value| ("extras", value)),
        prop_oneof![Just(json!(-1)), Just(json!(1.5)), Just(json!(1e20))]
            .prop_map(|value| ("count", value)),
        Just(("backup", json!("Purple"))),
    ]
}

proptest! {
    #[test]
    fn content_within_the_constraints_parses(content in valid_content()) {
        let order = Order::from_content(&content);
        prop_assert!(order.is_ok(), "{:?} refused: {}", content, order.unwrap_err());
        let order = order.unwrap();
        prop_assert_eq!(Order::from_content(&order.to_content()).unwrap(), order);
    }

    #[test]
    fn content_breaking_one_constraint_names_that_field(
        content in valid_content(),
        (field, value) in one_violation(),
    ) {
        let mut content = content;
        content.insert(field.into(), value.clone());
        let errors = Order::from_content(&content).expect_err("must be refused");
        prop_assert_eq!(errors.len(), 1, "{} = {}: {}", field, value, errors);
        prop_assert_eq!(errors.errors()[0].field.as_str(), field);
    }

    #[test]
    fn every_field_is_judged_on_its_own(
        values in prop::collection::vec(arbitrary_json(), FIELDS.len()),
    ) {
        // Each value alone, in otherwise valid content: the fields it makes invalid.
        let mut bad: Vec<&str> = FIELDS
            .iter()
            .zip(&values)
            .filter(|(name, value)| {
                let mut alone = valid();
                alone.insert((**name).to_owned(), (*value).clone());
                Order::from_content(&alone).is_err()
            })
            .map(|(name, _)| *name)
            .collect();
        bad.sort_unstable();
        let content: Map<String, Value> = FIELDS
            .iter()
            .zip(values)
            .map(|(name, value)| ((*name).to_owned(), value))
            .collect();
        // All of them at once: exactly those fields are named, each once.
        match Order::from_content(&content) {
            Ok(order) => {
                prop_assert!(bad.is_empty(), "accepted, yet {:?} are invalid", bad);
                prop_assert_eq!(Order::from_content(&order.to_content()).unwrap(), order);
            }
            Err(errors) => {
                let mut named: Vec<&str> =
                    errors.errors().iter().map(|error| error.field.as_str()).collect();
                named.sort_unstable();
                prop_assert_eq!(named, bad, "{}", errors);
            }
        }
    }
}

#[test]
fn a_form_serialises_as_its_content_and_back() {
    let order = Order::from_content(&valid()).unwrap();
    let written = serde_json::to_value(&order).unwrap();
    assert_eq!(written, Value::Object(order.to_content()));
    let bytes = serde_json::to_vec(&order).unwrap();
    let read: Order = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(read, order);
}

/// Asked in the legacy `enum` + `enumNames` shape; answered with wire values as any choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
#[choice(rename_all = "lowercase", enum_names)]
enum Legacy {
    #[choice(title = "Option One")]
    Opt1,
    #[choice(title = "Option Two")]
    Opt2,
    Opt3,
}

#[derive(Debug, Clone, PartialEq, ElicitForm)]
#[form(rename_all = "camelCase")]
struct LegacyAnswers {
    legacy_enum: Legacy,
    #[form(default = Legacy::Opt3)]
    maybe: Option<Legacy>,
    many: Vec<Legacy>,
}

#[test]
fn enum_names_fields_parse_wire_values_only() {
    let content = object(json!({"legacyEnum": "opt2", "many": ["opt3", "opt1"]}));
    let answers = LegacyAnswers::from_content(&content).unwrap();
    assert_eq!(
        answers,
        LegacyAnswers {
            legacy_enum: Legacy::Opt2,
            maybe: None,
            many: vec![Legacy::Opt3, Legacy::Opt1],
        }
    );
    assert_eq!(Value::Object(answers.to_content()), Value::Object(content));
    let read: LegacyAnswers =
        serde_json::from_value(json!({"legacyEnum": "opt1", "maybe": "opt3", "many": []})).unwrap();
    assert_eq!(read.maybe, Some(Legacy::Opt3));

    // A display name is not an answer.
    let errors = LegacyAnswers::from_content(&object(json!({
        "legacyEnum": "Option One",
        "maybe": "Opt2",
        "many": ["Option Two"],
    })))
    .unwrap_err();
    assert_eq!(
        errors.to_string(),
        "`legacyEnum`: expected one of `opt1`, `opt2`, `opt3`, got `Option One`\n\
         `maybe`: expected one of `opt1`, `opt2`, `opt3`, got `Opt2`\n\
         `many`: expected an array of distinct values among `opt1`, `opt2`, `opt3`, got `Option Two`"
    );
}
