//! Every example of the vendored 2026-07-28 schema whose type the model covers parses into
//! that type and serialises back to an equal JSON value, which also validates against the
//! schema definition the example folder is named after.

mod common;

use std::collections::BTreeSet;

use mcp_runtime::protocol::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

type RoundTrip = fn(&Value) -> Result<Value, String>;

/// Parses `value` as `T` and serialises it back.
fn rt<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let parsed: T = serde_json::from_value(value.clone()).map_err(|err| err.to_string())?;
    serde_json::to_value(&parsed).map_err(|err| err.to_string())
}

/// A JSON-RPC request whose params must also round-trip as `P`.
fn request<P: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let out = rt::<JsonRpcRequest>(value)?;
    let params = value.get("params").ok_or("the example has no params")?;
    check_equal(params, &rt::<P>(params)?)?;
    Ok(out)
}

/// A JSON-RPC notification whose params must also round-trip as `P`.
fn notification<P: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let out = rt::<JsonRpcNotification>(value)?;
    let params = value.get("params").ok_or("the example has no params")?;
    check_equal(params, &rt::<P>(params)?)?;
    Ok(out)
}

/// A JSON-RPC error response whose `error.data` must also round-trip as `D`.
fn error_response<D: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let out = rt::<JsonRpcErrorResponse>(value)?;
    let data = &value["error"]["data"];
    check_equal(data, &rt::<D>(data)?)?;
    Ok(out)
}

/// What the round trip of `value` from folder `dir` must produce: the example itself, except
/// for the documented normalisations below.
fn expected_for(dir: &str, value: &Value) -> Value {
    let mut expected = value.clone();
    match dir {
        // The example carries an `id` that the bare `{method, params}` input request does not
        // have (a leftover of the JSON-RPC form); the model drops it.
        "ListRootsRequest" => {
            expected.as_object_mut().unwrap().remove("id");
        }
        // One example omits `ttlMs` and `cacheScope`, which `ReadResourceResult` requires (it
        // only validates through the `InputRequiredResult` branch of the `anyOf`). The model
        // fills the no-reuse default and always writes it.
        "ReadResourceResultResponse" => {
            let result = expected["result"].as_object_mut().unwrap();
            result.entry("ttlMs").or_insert(0.into());
            result.entry("cacheScope").or_insert("private".into());
        }
        _ => {}
    }
    expected
}

fn check_equal(expected: &Value, actual: &Value) -> Result<(), String> {
    if expected == actual {
        Ok(())
    } else {
        Err(format!(
            "round trip changed the value\nexpected: {}\nactual:   {}",
            serde_json::to_string(expected).unwrap(),
            serde_json::to_string(actual).unwrap()
        ))
    }
}

/// Example folder (= `$defs` name) → the Rust type it parses into.
const COVERED: &[(&str, RoundTrip)] = &[
    ("AudioContent", rt::<ContentBlock>),
    ("BlobResourceContents", rt::<ResourceContents>),
    ("BooleanSchema", rt::<BooleanSchema>),
    ("CallToolRequest", request::<CallToolRequestParams>),
    ("CallToolRequestParams", rt::<CallToolRequestParams>),
    ("CallToolResult", rt::<CallToolResult>),
    (
        "CallToolResultResponse",
        rt::<JsonRpcResultResponse<Outcome<CallToolResult>>>,
    ),
    (
        "CancelledNotification",
        notification::<CancelledNotificationParams>,
    ),
    (
        "CancelledNotificationParams",
        rt::<CancelledNotificationParams>,
    ),
    ("ClientCapabilities", rt::<ClientCapabilities>),
    ("CompleteRequest", request::<CompleteRequestParams>),
    ("CompleteRequestParams", rt::<CompleteRequestParams>),
    ("CompleteResult", rt::<CompleteResult>),
    (
        "CompleteResultResponse",
        rt::<JsonRpcResultResponse<CompleteResult>>,
    ),
    ("CreateMessageRequest", rt::<InputRequest>),
    (
        "CreateMessageRequestParams",
        rt::<CreateMessageRequestParams>,
    ),
    ("CreateMessageResult", rt::<CreateMessageResult>),
    ("DiscoverRequest", request::<RequestParams>),
    ("DiscoverResult", rt::<DiscoverResult>),
    (
        "DiscoverResultResponse",
        rt::<JsonRpcResultResponse<DiscoverResult>>,
    ),
    ("ElicitRequest", rt::<InputRequest>),
    ("ElicitRequestFormParams", rt::<ElicitRequestFormParams>),
    ("ElicitRequestURLParams", rt::<ElicitRequestUrlParams>),
    ("ElicitResult", rt::<ElicitResult>),
    ("EmbeddedResource", rt::<ContentBlock>),
    ("GetPromptRequest", request::<GetPromptRequestParams>),
    ("GetPromptRequestParams", rt::<GetPromptRequestParams>),
    ("GetPromptResult", rt::<GetPromptResult>),
    (
        "GetPromptResultResponse",
        rt::<JsonRpcResultResponse<Outcome<GetPromptResult>>>,
    ),
    ("HeaderMismatchError", rt::<JsonRpcErrorResponse>),
    ("ImageContent", rt::<ContentBlock>),
    ("InputRequests", rt::<InputRequests>),
    ("InputRequiredResult", rt::<InputRequiredResult>),
    ("InputResponses", rt::<InputResponses>),
    ("InternalError", rt::<ErrorObject>),
    ("InvalidParamsError", rt::<ErrorObject>),
    ("ListPromptsRequest", request::<PaginatedRequestParams>),
    ("ListPromptsResult", rt::<ListPromptsResult>),
    (
        "ListPromptsResultResponse",
        rt::<JsonRpcResultResponse<ListPromptsResult>>,
    ),
    (
        "ListResourceTemplatesRequest",
        request::<PaginatedRequestParams>,
    ),
    (
        "ListResourceTemplatesResult",
        rt::<ListResourceTemplatesResult>,
    ),
    (
        "ListResourceTemplatesResultResponse",
        rt::<JsonRpcResultResponse<ListResourceTemplatesResult>>,
    ),
    ("ListResourcesRequest", request::<PaginatedRequestParams>),
    ("ListResourcesResult", rt::<ListResourcesResult>),
    (
        "ListResourcesResultResponse",
        rt::<JsonRpcResultResponse<ListResourcesResult>>,
    ),
    ("ListRootsRequest", rt::<InputRequest>),
    ("ListRootsResult", rt::<ListRootsResult>),
    ("ListToolsRequest", request::<PaginatedRequestParams>),
    ("ListToolsResult", rt::<ListToolsResult>),
    (
        "ListToolsResultResponse",
        rt::<JsonRpcResultResponse<ListToolsResult>>,
    ),
    (
        "LoggingMessageNotification",
        notification::<LoggingMessageNotificationParams>,
    ),
    (
        "LoggingMessageNotificationParams",
        rt::<LoggingMessageNotificationParams>,
    ),
    ("MethodNotFoundError", rt::<ErrorObject>),
    (
        "MissingRequiredClientCapabilityError",
        error_response::<MissingCapabilityData>,
    ),
    ("ModelPreferences", rt::<ModelPreferences>),
    ("NumberSchema", rt::<NumberSchema>),
    ("PaginatedRequestParams", rt::<PaginatedRequestParams>),
    ("ParseError", rt::<ErrorObject>),
    (
        "ProgressNotification",
        notification::<ProgressNotificationParams>,
    ),
    (
        "ProgressNotificationParams",
        rt::<ProgressNotificationParams>,
    ),
    ("PromptListChangedNotification", rt::<JsonRpcNotification>),
    ("ReadResourceRequest", request::<ReadResourceRequestParams>),
    ("ReadResourceResult", rt::<ReadResourceResult>),
    (
        "ReadResourceResultResponse",
        rt::<JsonRpcResultResponse<Outcome<ReadResourceResult>>>,
    ),
    ("Resource", rt::<Resource>),
    ("ResourceLink", rt::<ContentBlock>),
    ("ResourceListChangedNotification", rt::<JsonRpcNotification>),
    ("Root", rt::<Root>),
    ("SamplingMessage", rt::<SamplingMessage>),
    ("ServerCapabilities", rt::<ServerCapabilities>),
    ("StringSchema", rt::<StringSchema>),
    ("TextContent", rt::<ContentBlock>),
    ("TextResourceContents", rt::<ResourceContents>),
    (
        "TitledMultiSelectEnumSchema",
        rt::<TitledMultiSelectEnumSchema>,
    ),
    (
        "TitledSingleSelectEnumSchema",
        rt::<TitledSingleSelectEnumSchema>,
    ),
    ("Tool", rt::<Tool>),
    ("ToolListChangedNotification", rt::<JsonRpcNotification>),
    ("ToolResultContent", rt::<SamplingContentBlock>),
    ("ToolUseContent", rt::<SamplingContentBlock>),
    (
        "UnsupportedProtocolVersionError",
        error_response::<UnsupportedVersionData>,
    ),
    (
        "UntitledMultiSelectEnumSchema",
        rt::<UntitledMultiSelectEnumSchema>,
    ),
    (
        "UntitledSingleSelectEnumSchema",
        rt::<UntitledSingleSelectEnumSchema>,
    ),
];

/// Example folders deliberately left out, with the reason.
const NOT_COVERED: &[(&str, &str)] = &[
    (
        "ResourceUpdatedNotification",
        "resource subscriptions are not modelled: this server sends no resource updates",
    ),
    (
        "ResourceUpdatedNotificationParams",
        "resource subscriptions are not modelled: this server sends no resource updates",
    ),
    (
        "SubscriptionsAcknowledgedNotification",
        "`subscriptions/listen` is not modelled: this server opens no notification streams",
    ),
    (
        "SubscriptionsListenRequest",
        "`subscriptions/listen` is not modelled: this server opens no notification streams",
    ),
    (
        "SubscriptionsListenResult",
        "`subscriptions/listen` is not modelled: this server opens no notification streams",
    ),
    (
        "SubscriptionsListenResultResponse",
        "`subscriptions/listen` is not modelled: this server opens no notification streams",
    ),
];

#[test]
fn every_example_folder_is_listed_once() {
    let covered: BTreeSet<&str> = COVERED.iter().map(|(name, _)| *name).collect();
    let skipped: BTreeSet<&str> = NOT_COVERED.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        covered.len(),
        COVERED.len(),
        "a folder is listed twice in COVERED"
    );
    assert!(
        covered.is_disjoint(&skipped),
        "a folder is both covered and skipped"
    );
    let folders: BTreeSet<String> = common::examples()
        .into_iter()
        .map(|(dir, _, _)| dir)
        .collect();
    let unlisted: Vec<&String> = folders
        .iter()
        .filter(|dir| !covered.contains(dir.as_str()) && !skipped.contains(dir.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "example folders in neither list: {unlisted:?}"
    );
    let stale: Vec<&&str> = covered
        .union(&skipped)
        .filter(|name| !folders.contains(**name))
        .collect();
    assert!(
        stale.is_empty(),
        "listed folders that do not exist: {stale:?}"
    );
}

#[test]
fn covered_examples_round_trip_and_validate() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (dir, file, value) in common::examples() {
        let Some((_, round_trip)) = COVERED.iter().find(|(name, _)| *name == dir) else {
            continue;
        };
        checked += 1;
        let outcome = round_trip(&value).and_then(|out| {
            check_equal(&expected_for(&dir, &value), &out)?;
            common::schema_check(&dir, &out)
        });
        if let Err(err) = outcome {
            failures.push(format!("{dir}/{file}: {err}"));
        }
    }
    assert!(checked > 100, "only {checked} examples checked");
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_validator_rejects_invalid_values() {
    use serde_json::json;
    assert!(common::schema_check("StringSchema", &json!({"type": "number"})).is_err());
    assert!(
        common::schema_check(
            "ElicitRequestURLParams",
            &json!({"mode": "url", "message": "m", "url": "not a uri"})
        )
        .is_err()
    );
    assert!(common::schema_check("CallToolResult", &json!({"content": []})).is_err());
    assert!(
        common::schema_check(
            "CallToolResult",
            &json!({"resultType": "complete", "content": []})
        )
        .is_ok()
    );
}
