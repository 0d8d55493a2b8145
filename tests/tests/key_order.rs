//! Argument key order never changes what a state is bound to: the same arguments sent as JSON
//! text in another member order continue a state, over HTTP as a client sends them.
//!
//! In the default build `serde_json::Map` sorts its keys as it parses, so these tests can only
//! fail when the map keeps the order of the text: run them that way too with
//! `cargo test -p mcp-tests --features preserve-order --test key_order` (as `.ci/run` does).

#[path = "../../mcp-runtime/tests/common/binding_vector.rs"]
mod binding_vector;
#[path = "support/client.rs"]
mod client;
#[path = "support/handlers.rs"]
mod handlers;

use std::net::SocketAddr;

use binding_vector::{VECTOR_ARGUMENTS, VECTOR_BINDING, vector_cx};
use mcp_runtime::state::{BindingContext, default_binding};
use proptest::prelude::*;
use serde_json::{Map, Value, json};

/// The keys of the object `text`, in the order this build's map keeps them.
fn kept_order(text: &str) -> Vec<String> {
    let map: Map<String, Value> = serde_json::from_str(text).expect("a JSON object");
    map.keys().cloned().collect()
}

#[test]
fn maps_keep_the_key_order_this_build_says() {
    let keys = kept_order(r#"{"b":1,"a":2,"c":3}"#);
    if cfg!(feature = "preserve-order") {
        assert_eq!(keys, ["b", "a", "c"], "preserve_order is not on");
    } else {
        assert_eq!(keys, ["a", "b", "c"]);
    }
}

#[test]
fn the_binding_test_vector_holds_whatever_order_the_arguments_arrive_in() {
    let sorted: Value = serde_json::from_str(r#"{"env":"prod","replicas":3}"#).unwrap();
    for text in [VECTOR_ARGUMENTS, r#"{"env":"prod","replicas":3}"#] {
        let arguments: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            format!("{:?}", default_binding(&vector_cx(&arguments))),
            VECTOR_BINDING,
            "{text}"
        );
    }
    assert_ne!(
        default_binding(&vector_cx(&sorted)),
        default_binding(&vector_cx(&json!({"env": "prod", "replicas": 4})))
    );
}

/// A `tools/call` of `ask` whose `arguments` are exactly the JSON text `arguments`.
async fn ask(addr: SocketAddr, arguments: &str, state: Option<&str>) -> Value {
    let meta = client::meta();
    let mut tail = String::new();
    if let Some(state) = state {
        tail = format!(
            r#","requestState":{},"inputResponses":{{"name":{{"action":"accept","content":{{"name":"Ada"}}}}}}"#,
            Value::from(state)
        );
    }
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"ask","arguments":{arguments},"_meta":{meta}{tail}}}}}"#
    );
    client::send(addr, "POST", &[], body.as_bytes())
        .await
        .json()
}

#[tokio::test]
async fn a_state_continues_with_its_arguments_in_another_key_order_over_http() {
    let running = client::start(handlers::fixture_server()).await;
    let addr = running.addr;
    let minted_with = r#"{"zone":"eu","spec":{"size":2,"labels":[{"k":"a","v":"b"}],"dry":true}}"#;
    let first = ask(addr, minted_with, None).await;
    let state = first["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no state in {first}"))
        .to_owned();
    for reordered in [
        r#"{"spec":{"dry":true,"labels":[{"v":"b","k":"a"}],"size":2},"zone":"eu"}"#,
        r#"{"zone":"eu","spec":{"labels":[{"k":"a","v":"b"}],"size":2,"dry":true}}"#,
    ] {
        let answer = ask(addr, reordered, Some(&state)).await;
        assert_eq!(
            answer["result"]["content"][0]["text"], "hello Ada",
            "{reordered}: {answer}"
        );
    }
    // The arguments are bound: other values, or an array in another order, are refused.
    for other in [
        r#"{"spec":{"dry":true,"labels":[{"v":"b","k":"a"}],"size":3},"zone":"eu"}"#,
        r#"{"zone":"eu","spec":{"size":2,"labels":[{"k":"a","v":"b"}],"dry":true},"extra":1}"#,
        r#"{"zone":["eu"],"spec":{"size":2,"labels":[{"k":"a","v":"b"}],"dry":true}}"#,
    ] {
        let answer = ask(addr, other, Some(&state)).await;
        assert!(client::is_state_refusal(&answer), "{other}: {answer}");
    }
}

/// A JSON object with unique keys, as (key, value) pairs in some order.
fn members() -> impl Strategy<Value = Vec<(String, Value)>> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z]{0,6}".prop_map(Value::from),
    ];
    let value = leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..4)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    });
    proptest::collection::btree_map("[a-z]{1,4}", value, 0..6)
        .prop_map(|map| map.into_iter().collect())
}

/// The JSON text of an object with `members` in this order.
fn text(members: &[(String, Value)]) -> String {
    let body: Vec<String> = members
        .iter()
        .map(|(key, value)| format!("{}:{value}", Value::from(key.as_str())))
        .collect();
    format!("{{{}}}", body.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn member_order_never_changes_the_binding(
        members in members(),
        rotate_by in any::<usize>(),
    ) {
        let mut reordered = members.clone();
        if !reordered.is_empty() {
            let by = rotate_by % reordered.len();
            reordered.rotate_left(by);
        }
        reordered.reverse();
        let keys = |members: &[(String, Value)]| -> Vec<String> {
            members.iter().map(|(key, _)| key.clone()).collect()
        };
        let (first, second) = (text(&members), text(&reordered));
        // With `preserve_order` the two maps really hold their members in two orders.
        if cfg!(feature = "preserve-order") {
            prop_assert_eq!(kept_order(&first), keys(&members));
            prop_assert_eq!(kept_order(&second), keys(&reordered));
        }
        let bind = |text: &str| {
            let arguments: Value = serde_json::from_str(text).expect("valid JSON");
            default_binding(&BindingContext::new("tools/call", "t").with_arguments(Some(&arguments)))
        };
        prop_assert_eq!(bind(&first), bind(&second));
    }
}
