//! JSON-RPC envelopes, error codes and request `_meta`: exact round trips, schema validity
//! and classification of incoming messages.

mod common;

use common::schema_validate;
use mcp_runtime::protocol::*;
use serde_json::{Value, json};

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialisable")
}

#[test]
fn request_ids_round_trip_exactly() {
    for text in [
        "0",
        "\"0\"",
        "1.5",
        "-1",
        "18446744073709551615",
        "-9223372036854775808",
        "\"\"",
    ] {
        let id: RequestId = serde_json::from_str(text).unwrap();
        assert_eq!(serde_json::to_string(&id).unwrap(), text);
    }
    let number: RequestId = serde_json::from_str("0").unwrap();
    let string: RequestId = serde_json::from_str("\"0\"").unwrap();
    assert_ne!(number, string);
    assert!(matches!(number, RequestId::Number(_)));
    for bad in ["null", "true", "[1]", "{}"] {
        assert!(serde_json::from_str::<RequestId>(bad).is_err(), "{bad}");
    }
    let response = JsonRpcResultResponse::new(
        serde_json::from_str("1.5").unwrap(),
        CallToolResult::new(vec![ContentBlock::text("ok")]),
    );
    assert_eq!(to_value(&response)["id"], json!(1.5));
}

#[test]
fn errors_carry_every_code_and_typed_data() {
    let codes = [
        (ErrorCode::PARSE_ERROR, -32700, "ParseError"),
        (ErrorCode::INVALID_REQUEST, -32600, "InvalidRequestError"),
        (ErrorCode::METHOD_NOT_FOUND, -32601, "MethodNotFoundError"),
        (ErrorCode::INVALID_PARAMS, -32602, "InvalidParamsError"),
        (ErrorCode::INTERNAL_ERROR, -32603, "InternalError"),
    ];
    for (code, number, def) in codes {
        assert_eq!(i64::from(code), number);
        let error = ErrorObject::new(code, "boom").with_data(json!({"why": "because"}));
        schema_validate(def, &to_value(&error));
        let response = JsonRpcErrorResponse::new(Some(RequestId::from("a")), error);
        schema_validate("JSONRPCErrorResponse", &to_value(&response));
    }
    assert_eq!(i64::from(ErrorCode::HEADER_MISMATCH), -32020);
    assert_eq!(
        i64::from(ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY),
        -32021
    );
    assert_eq!(i64::from(ErrorCode::UNSUPPORTED_PROTOCOL_VERSION), -32022);

    let mismatch = JsonRpcErrorResponse::new(
        Some(RequestId::from(1)),
        ErrorObject::new(ErrorCode::HEADER_MISMATCH, "header mismatch"),
    );
    schema_validate("HeaderMismatchError", &to_value(&mismatch));

    let required = ClientCapabilities {
        elicitation: Some(ElicitationCapability {
            url: Some(JsonObject::new()),
            ..Default::default()
        }),
        ..Default::default()
    };
    let data = MissingCapabilityData {
        required_capabilities: required,
    };
    let missing = JsonRpcErrorResponse::new(
        Some(RequestId::from(2)),
        ErrorObject::new(
            ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY,
            "needs url elicitation",
        )
        .with_data(to_value(&data)),
    );
    let value = to_value(&missing);
    schema_validate("MissingRequiredClientCapabilityError", &value);
    assert_eq!(
        value["error"]["data"],
        json!({"requiredCapabilities": {"elicitation": {"url": {}}}})
    );

    let data = UnsupportedVersionData {
        supported: vec![PROTOCOL_VERSION.into()],
        requested: "1900-01-01".into(),
    };
    let unsupported = JsonRpcErrorResponse::new(
        None,
        ErrorObject::new(
            ErrorCode::UNSUPPORTED_PROTOCOL_VERSION,
            "unsupported protocol version",
        )
        .with_data(to_value(&data)),
    );
    let value = to_value(&unsupported);
    assert!(
        value.get("id").is_none(),
        "an unknown id is left out, never null"
    );
    schema_validate("UnsupportedProtocolVersionError", &value);
}

#[test]
fn request_meta_and_capabilities_keep_unknown_keys() {
    let value = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "elicitation": {"form": {}, "future": true},
            "sampling": {"context": {}},
            "roots": {},
            "somethingNew": {"x": 1}
        },
        "io.modelcontextprotocol/logLevel": "debug",
        "progressToken": 0,
        "vendor.example/trace": "abc"
    });
    schema_validate("RequestMetaObject", &value);
    let meta: RequestMeta = serde_json::from_value(value.clone()).unwrap();
    assert_eq!(meta.protocol_version.as_deref(), Some(PROTOCOL_VERSION));
    assert_eq!(meta.progress_token, Some(RequestId::Number(0.into())));
    assert_eq!(meta.log_level, Some(LoggingLevel::Debug));
    assert_eq!(meta.extra["vendor.example/trace"], "abc");
    let caps = meta.client_capabilities.as_ref().unwrap();
    assert!(caps.elicitation.as_ref().unwrap().form.is_some());
    assert!(caps.elicitation.as_ref().unwrap().url.is_none());
    assert_eq!(caps.extra["somethingNew"], json!({"x": 1}));
    assert_eq!(to_value(&meta), value);

    let missing: RequestMeta = serde_json::from_value(json!({})).unwrap();
    assert!(missing.protocol_version.is_none() && missing.client_capabilities.is_none());
}

#[test]
fn messages_are_classified_by_their_members() {
    let request: JsonRpcMessage =
        serde_json::from_value(json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list"})).unwrap();
    assert!(matches!(request, JsonRpcMessage::Request(_)));
    let notification: JsonRpcMessage = serde_json::from_value(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}}),
    )
    .unwrap();
    assert!(matches!(notification, JsonRpcMessage::Notification(_)));
    let response: JsonRpcMessage = serde_json::from_value(
        json!({"jsonrpc": "2.0", "id": 1, "result": {"resultType": "complete"}}),
    )
    .unwrap();
    assert!(matches!(
        response,
        JsonRpcMessage::Response(JsonRpcResponse::Result(_))
    ));
    let error: JsonRpcMessage = serde_json::from_value(
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}),
    )
    .unwrap();
    assert!(matches!(
        error,
        JsonRpcMessage::Response(JsonRpcResponse::Error(_))
    ));
    for bad in [
        json!({"jsonrpc": "2.0", "id": null, "method": "tools/list"}),
        json!({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}),
        json!({"id": 1, "method": "tools/list"}),
        json!([]),
    ] {
        assert!(
            serde_json::from_value::<JsonRpcMessage>(bad.clone()).is_err(),
            "{bad}"
        );
    }
}
