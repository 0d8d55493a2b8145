//! Carried values that JSON cannot hold come back as they were, and a value that cannot be
//! written fails the stop with an internal error naming its local.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;

use mcp_runtime::protocol::ErrorCode;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Value, json};

mod support;
use support::logs::{capture, serial};

#[derive(Debug, ElicitForm)]
struct Confirm {
    ok: bool,
}

/// A user type whose absent fields are left out when written.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Sparse {
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    count: Option<u32>,
    name: String,
}

fn by_id() -> BTreeMap<u32, String> {
    BTreeMap::from([
        (0, "zero".into()),
        (7, "seven".into()),
        (u32::MAX, "max".into()),
    ])
}

fn grid() -> HashMap<(u8, u8), bool> {
    HashMap::from([((0, 0), true), ((0, 1), false), ((255, 3), true)])
}

fn sparse() -> [Sparse; 3] {
    [
        Sparse {
            note: None,
            count: Some(3),
            name: "no note".into(),
        },
        Sparse {
            note: Some("noted".into()),
            count: None,
            name: "no count".into(),
        },
        Sparse {
            note: None,
            count: None,
            name: "neither".into(),
        },
    ]
}

/// Each value that differs from what the flow carried, by name.
fn differences(values: &[(&str, bool)]) -> String {
    let wrong: Vec<&str> = values
        .iter()
        .filter(|(_, same)| !same)
        .map(|(name, _)| *name)
        .collect();
    if wrong.is_empty() {
        "same".to_owned()
    } else {
        format!("changed: {}", wrong.join(", "))
    }
}

fn same<T: PartialEq + Debug>(carried: &T, expected: &T) -> bool {
    carried == expected
}

/// Carries every awkward value across two questions and compares them after each.
#[tool]
async fn extremes(cx: Cx) -> ToolResult {
    let lowest: f64 = f64::INFINITY;
    let highest: f64 = f64::NEG_INFINITY;
    let unknown: f64 = f64::NAN;
    let smallest: i128 = i128::MIN;
    let largest: u128 = u128::MAX;
    let names: BTreeMap<u32, String> = by_id();
    let cells: HashMap<(u8, u8), bool> = grid();
    let records: [Sparse; 3] = sparse();
    let _first: Confirm = cx.elicit("First?").await?;
    let after_first: String = differences(&[
        ("lowest", same(&lowest, &f64::INFINITY)),
        ("highest", same(&highest, &f64::NEG_INFINITY)),
        ("unknown", unknown.is_nan()),
        ("smallest", same(&smallest, &i128::MIN)),
        ("largest", same(&largest, &u128::MAX)),
        ("names", same(&names, &by_id())),
        ("cells", same(&cells, &grid())),
        ("records", same(&records, &sparse())),
    ]);
    let _second: Confirm = cx.elicit("Second?").await?;
    let after_second: String = differences(&[
        ("lowest", same(&lowest, &f64::INFINITY)),
        ("highest", same(&highest, &f64::NEG_INFINITY)),
        ("unknown", unknown.is_nan()),
        ("smallest", same(&smallest, &i128::MIN)),
        ("largest", same(&largest, &u128::MAX)),
        ("names", same(&names, &by_id())),
        ("cells", same(&cells, &grid())),
        ("records", same(&records, &sparse())),
    ]);
    Ok(text(format!("{after_first}; {after_second}")))
}

/// A sub-flow keeping a running minimum across its question, as its caller keeps another.
#[elicit]
async fn lowest_of(cx: &Cx, values: Vec<f64>) -> Result<f64, Refusal> {
    let lowest: f64 = values.into_iter().fold(f64::INFINITY, f64::min);
    let _go: Confirm = cx.elicit("Go on?").await?;
    Ok(lowest)
}

#[tool]
async fn nested_minimum(cx: Cx) -> ToolResult {
    let outer: f64 = f64::NEG_INFINITY;
    let lowest: f64 = lowest_of(&cx, Vec::new()).await?;
    let _done: Confirm = cx.elicit("Done?").await?;
    Ok(text(format!("{lowest} {outer}")))
}

/// Serde shapes that need a self-describing format: untagged, internally tagged, flattened.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Loose {
    Number(u32),
    Words { words: Vec<String> },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind")]
enum Tagged {
    Circle { radius: f64 },
    Square { side: u8 },
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Outer {
    id: u8,
    #[serde(flatten)]
    rest: BTreeMap<String, Value>,
}

type Shapes = (Vec<Loose>, Tagged, Outer, Value, Option<u8>);

fn shapes() -> Shapes {
    (
        vec![
            Loose::Number(4),
            Loose::Words {
                words: vec!["a".into()],
            },
        ],
        Tagged::Circle { radius: 1.5 },
        Outer {
            id: 9,
            rest: BTreeMap::from([("extra".to_owned(), json!([1, "two", null]))]),
        },
        json!({"nested": {"list": [1.5, -2, "x"], "none": null}}),
        None,
    )
}

#[tool]
async fn serde_shapes(cx: Cx) -> ToolResult {
    let carried: Shapes = shapes();
    let _go: Confirm = cx.elicit("Go?").await?;
    Ok(text(if carried == shapes() {
        "same".to_owned()
    } else {
        format!("changed: {carried:?}")
    }))
}

/// A sub-flow whose parameter has a `'static` lifetime only: it owns what it holds.
#[elicit]
async fn labelled(cx: &Cx, label: Cow<'static, str>) -> Result<String, Refusal> {
    let _go: Confirm = cx.elicit("Label?").await?;
    Ok(format!("[{label}]"))
}

/// `Cow<'static, str>` in either variant, written out as a type: no borrow, so it travels.
#[tool]
async fn static_cows(cx: Cx) -> ToolResult {
    let fixed: Cow<'static, str> = Cow::Borrowed("fixed");
    let made: Cow<'static, str> = Cow::Owned(format!("made {}", 1));
    let _go: Confirm = cx.elicit("Go?").await?;
    let label = labelled(&cx, made.clone()).await?;
    Ok(text(format!("{fixed} {made} {label}")))
}

fn yes() -> Value {
    json!({"action": "accept", "content": {"ok": true}})
}

#[tokio::test]
async fn values_json_cannot_hold_come_back_after_each_question() {
    let rounds = FlowTester::tool(extremes)
        .script([json!({"_first": yes()}), json!({"_second": yes()})])
        .await;
    assert_eq!(rounds.len(), 3, "two questions, then the answer");
    assert_eq!(rounds[0].questions(), ["_first"]);
    assert_eq!(rounds[1].questions(), ["_second"]);
    assert_eq!(
        rounds[2].text(),
        Some("same; same"),
        "{:?}",
        rounds[2].error()
    );
}

#[tokio::test]
async fn untagged_internally_tagged_flattened_and_json_values_come_back() {
    let rounds = FlowTester::tool(serde_shapes)
        .script([json!({"_go": yes()})])
        .await;
    let last = rounds.last().expect("the script ran");
    assert_eq!(last.text(), Some("same"), "{last}");
}

#[tokio::test]
async fn a_static_cow_written_as_a_type_travels_as_an_owned_value() {
    let rounds = FlowTester::tool(static_cows)
        .script([json!({"_go": yes()}), json!({"label._go": yes()})])
        .await;
    let last = rounds.last().expect("the script ran");
    assert_eq!(last.text(), Some("fixed made 1 [made 1]"), "{last}");
}

#[tokio::test]
async fn a_sub_flow_carries_infinity_inside_its_callers_state() {
    let tester = FlowTester::tool(nested_minimum);
    let rounds = tester
        .script([json!({"lowest._go": yes()}), json!({"_done": yes()})])
        .await;
    assert_eq!(
        rounds[0].questions(),
        ["lowest._go"],
        "{:?}",
        rounds[0].error()
    );
    let last = rounds.last().expect("the script ran");
    assert_eq!(last.text(), Some("inf -inf"), "{last}");
}

/// A value whose `Serialize` always fails.
#[derive(Debug)]
struct Unwritable;

impl Serialize for Unwritable {
    fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("a live handle cannot be written"))
    }
}

impl<'de> Deserialize<'de> for Unwritable {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        <()>::deserialize(deserializer).map(|()| Unwritable)
    }
}

/// A value written as a string that reads only from a number: written, it fails to read back.
#[derive(Debug)]
struct Lopsided;

impl Serialize for Lopsided {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str("lopsided")
    }
}

impl<'de> Deserialize<'de> for Lopsided {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        u8::deserialize(deserializer).map(|_| Lopsided)
    }
}

#[tool]
async fn carries_a_handle(cx: Cx) -> ToolResult {
    let before: u32 = 7;
    let handle: Unwritable = Unwritable;
    let _go: Confirm = cx.elicit("Go?").await?;
    Ok(text(format!("{before} {handle:?}")))
}

#[tool]
async fn carries_a_lopsided_value(cx: Cx) -> ToolResult {
    let before: u32 = 7;
    let lopsided: Vec<Lopsided> = vec![Lopsided];
    let _go: Confirm = cx.elicit("Go?").await?;
    Ok(text(format!("{before} {lopsided:?}")))
}

#[tokio::test]
async fn a_value_that_cannot_be_written_fails_the_stop_naming_its_local() {
    let _serial = serial().await;
    let (guard, captured) = capture();
    let round = FlowTester::tool(carries_a_handle).start().await;
    drop(guard);
    let log = captured.text();
    assert!(
        log.lines()
            .any(|line| line.contains("ERROR") && line.contains("`handle`")),
        "the server logs the failure: {log}"
    );

    let error = round.error().expect("the stop fails");
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR, "{error:?}");
    assert!(error.message.contains("`handle`"), "{}", error.message);
    assert!(
        error.message.contains("a live handle cannot be written"),
        "{}",
        error.message
    );
    assert!(!error.message.contains("`before`"), "{}", error.message);
    assert!(round.state().is_none(), "no state is handed out");
}

// Release builds skip the read-back (see the payload module).
#[cfg(debug_assertions)]
#[tokio::test]
async fn a_value_that_does_not_read_back_fails_the_stop_naming_its_local() {
    let _serial = serial().await;
    let round = FlowTester::tool(carries_a_lopsided_value).start().await;
    let error = round.error().expect("the stop fails");
    assert_eq!(error.code, ErrorCode::INTERNAL_ERROR, "{error:?}");
    assert!(error.message.contains("`lopsided`"), "{}", error.message);
    assert!(
        error
            .message
            .contains("does not read back (at `lopsided[0]`)"),
        "{}",
        error.message
    );
    assert!(round.state().is_none(), "no state is handed out");
}
