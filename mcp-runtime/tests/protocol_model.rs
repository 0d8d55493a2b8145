//! Values built in Rust validate against the 2026-07-28 schema, and the model's invariants
//! hold when building and when parsing.

mod common;

use std::collections::BTreeMap;

use common::schema_validate;
use mcp_runtime::protocol::*;
use serde_json::{Number, Value, json};

fn to_value<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serialisable")
}

fn meta() -> RequestMeta {
    RequestMeta {
        protocol_version: Some(PROTOCOL_VERSION.into()),
        client_capabilities: Some(ClientCapabilities::default()),
        client_info: Some(Implementation::new("client", "1.0.0")),
        progress_token: Some(RequestId::from(7)),
        ..Default::default()
    }
}

fn form_request() -> InputRequest {
    let schema = ElicitRequestedSchema {
        properties: vec![(
            "replicas".into(),
            PrimitiveSchema::Number(NumberSchema {
                kind: NumberKind::Integer,
                minimum: Some(1.into()),
                maximum: Some(12.into()),
                ..Default::default()
            }),
        )],
        required: vec!["replicas".into()],
        ..Default::default()
    };
    InputRequest::Elicit(ElicitRequestParams::Form(ElicitRequestFormParams::new(
        "How many?",
        schema,
    )))
}

fn every_input_request() -> Vec<(&'static str, InputRequest)> {
    let sampling = CreateMessageRequestParams {
        messages: vec![SamplingMessage {
            role: Role::User,
            content: SamplingContent::Single(SamplingContentBlock::Text(TextContent::new("Hi"))),
            meta: None,
        }],
        max_tokens: 100,
        model_preferences: Some(ModelPreferences {
            speed_priority: Some(0.5),
            ..Default::default()
        }),
        tool_choice: Some(ToolChoice {
            mode: Some(ToolChoiceMode::Auto),
        }),
        ..Default::default()
    };
    vec![
        ("ElicitRequest", form_request()),
        (
            "ElicitRequest",
            InputRequest::Elicit(ElicitRequestParams::Url(ElicitRequestUrlParams::new(
                "Set your key",
                "https://example.com/key",
            ))),
        ),
        (
            "CreateMessageRequest",
            InputRequest::CreateMessage(sampling),
        ),
        ("ListRootsRequest", InputRequest::ListRoots(None)),
        (
            "ListRootsRequest",
            InputRequest::ListRoots(Some(ListRootsRequestParams::default())),
        ),
    ]
}

#[test]
fn input_required_results_with_each_request_kind_validate() {
    for (def, request) in every_input_request() {
        let value = to_value(&request);
        schema_validate(def, &value);
        schema_validate("InputRequest", &value);
        assert_eq!(value["method"], request.method());
        assert!(value.get("jsonrpc").is_none() && value.get("id").is_none());
        assert_eq!(
            serde_json::from_value::<InputRequest>(value).unwrap(),
            request
        );

        let requests = InputRequests::from([("q".to_string(), request)]);
        for result in [
            InputRequiredResult::with_state(requests.clone(), "state"),
            InputRequiredResult::requests_only(requests.clone()),
        ] {
            let value = to_value(&result);
            assert_eq!(value["resultType"], "input_required");
            schema_validate("InputRequiredResult", &value);
            schema_validate(
                "CallToolResultResponse",
                &to_value(&JsonRpcResultResponse::new(
                    RequestId::from(1),
                    Outcome::<CallToolResult>::InputRequired(result.clone()),
                )),
            );
            assert_eq!(
                serde_json::from_value::<InputRequiredResult>(value).unwrap(),
                result
            );
        }
    }
    let roots_without_params = to_value(&InputRequest::ListRoots(None));
    assert_eq!(roots_without_params, json!({"method": "roots/list"}));
}

#[test]
fn input_required_result_needs_requests_or_state() {
    assert_eq!(
        InputRequiredResult::new(None, None),
        Err(EmptyInputRequired)
    );
    assert!(InputRequiredResult::new(Some(InputRequests::new()), None).is_ok());
    let state_only = InputRequiredResult::new(None, Some("s".into())).unwrap();
    assert_eq!(
        to_value(&state_only),
        json!({"resultType": "input_required", "requestState": "s"})
    );
    assert_eq!(state_only, InputRequiredResult::state_only("s"));

    for bad in [
        json!({"resultType": "input_required"}),
        json!({"resultType": "input_required", "inputRequests": null}),
        json!({"resultType": "input_required", "requestState": null}),
        json!({"resultType": "complete", "requestState": "s"}),
    ] {
        assert!(
            serde_json::from_value::<InputRequiredResult>(bad.clone()).is_err(),
            "{bad}"
        );
    }
    let err =
        serde_json::from_value::<InputRequiredResult>(json!({"resultType": "input_required"}))
            .unwrap_err()
            .to_string();
    assert!(err.contains("`inputRequests` or `requestState`"), "{err}");
}

#[test]
fn input_responses_must_be_an_object() {
    for bad in [json!(null), json!(3), json!("x"), json!([{}])] {
        assert!(
            serde_json::from_value::<InputResponses>(bad.clone()).is_err(),
            "{bad}"
        );
        let params = json!({"name": "t", "inputResponses": bad});
        assert!(
            serde_json::from_value::<CallToolRequestParams>(params.clone()).is_err(),
            "{params}"
        );
        let params = json!({"name": "p", "inputResponses": bad});
        assert!(serde_json::from_value::<GetPromptRequestParams>(params).is_err());
        let params = json!({"uri": "file:///a", "inputResponses": bad});
        assert!(serde_json::from_value::<ReadResourceRequestParams>(params).is_err());
    }
    let ok = json!({"name": "t", "inputResponses": {"q": {"action": "cancel"}, "other": 5}});
    let params: CallToolRequestParams = serde_json::from_value(ok).unwrap();
    let responses = params.input_responses.unwrap();
    assert_eq!(
        responses["other"],
        json!(5),
        "entries stay raw for the server to judge"
    );
    let answer: ElicitResult = serde_json::from_value(responses["q"].clone()).unwrap();
    assert_eq!(answer, ElicitResult::cancel());
}

#[test]
fn content_blocks_validate() {
    let annotations = Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    };
    let text_resource = ResourceContents::Text(TextResourceContents {
        uri: "file:///a.txt".into(),
        mime_type: Some("text/plain".into()),
        text: "hello".into(),
        meta: None,
    });
    let blob_resource = ResourceContents::Blob(BlobResourceContents {
        uri: "file:///a.bin".into(),
        blob: "AAEC".into(),
        ..Default::default()
    });
    let blocks = [
        (
            "TextContent",
            ContentBlock::Text(TextContent {
                annotations: Some(annotations),
                ..TextContent::new("hi")
            }),
        ),
        (
            "ImageContent",
            ContentBlock::Image(ImageContent {
                data: "iVBORw0K".into(),
                mime_type: "image/png".into(),
                ..Default::default()
            }),
        ),
        (
            "AudioContent",
            ContentBlock::Audio(AudioContent {
                data: "UklGRiQ=".into(),
                mime_type: "audio/wav".into(),
                ..Default::default()
            }),
        ),
        (
            "ResourceLink",
            ContentBlock::ResourceLink(ResourceLink {
                uri: "file:///a.txt".into(),
                name: "a".into(),
                size: Some(5),
                ..Default::default()
            }),
        ),
        (
            "EmbeddedResource",
            ContentBlock::Resource(EmbeddedResource {
                resource: text_resource.clone(),
                annotations: None,
                meta: None,
            }),
        ),
        (
            "EmbeddedResource",
            ContentBlock::Resource(EmbeddedResource {
                resource: blob_resource.clone(),
                annotations: None,
                meta: None,
            }),
        ),
    ];
    for (def, block) in &blocks {
        let value = to_value(block);
        schema_validate(def, &value);
        schema_validate("ContentBlock", &value);
        assert_eq!(
            &serde_json::from_value::<ContentBlock>(value).unwrap(),
            block
        );
    }
    let result = CallToolResult {
        structured_content: Some(json!({"n": 1})),
        ..CallToolResult::new(blocks.iter().map(|(_, block)| block.clone()).collect())
    };
    let value = to_value(&result);
    assert_eq!(value["resultType"], "complete");
    schema_validate("CallToolResult", &value);
    schema_validate(
        "CallToolResult",
        &to_value(&CallToolResult::error("bad input")),
    );

    let read = ReadResourceResult {
        contents: vec![text_resource, blob_resource],
        cache: CacheHints {
            ttl_ms: 1000,
            cache_scope: CacheScope::Public,
        },
        ..Default::default()
    };
    schema_validate("ReadResourceResult", &to_value(&read));
    let round: Outcome<ReadResourceResult> = serde_json::from_value(to_value(&read)).unwrap();
    assert_eq!(round, Outcome::Complete(read));
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "video", "data": "x"})).is_err());
}

#[test]
fn tools_prompts_resources_and_lists_validate() {
    let tool = Tool {
        name: "deploy".into(),
        title: Some("Deploy".into()),
        input_schema: serde_json::from_value(json!({"type": "object", "properties": {}})).unwrap(),
        annotations: Some(ToolAnnotations {
            destructive_hint: Some(true),
            ..Default::default()
        }),
        icons: Some(vec![Icon {
            src: "https://example.com/i.png".into(),
            theme: Some(IconTheme::Dark),
            ..Default::default()
        }]),
        ..Default::default()
    };
    schema_validate("Tool", &to_value(&tool));
    let list = ListToolsResult {
        tools: vec![tool],
        next_cursor: Some("c".into()),
        ..Default::default()
    };
    let value = to_value(&list);
    assert_eq!(
        (&value["ttlMs"], &value["cacheScope"]),
        (&json!(0), &json!("private"))
    );
    schema_validate("ListToolsResult", &value);

    let prompt = Prompt {
        name: "review".into(),
        arguments: Some(vec![PromptArgument {
            name: "code".into(),
            required: Some(true),
            ..Default::default()
        }]),
        ..Default::default()
    };
    schema_validate("Prompt", &to_value(&prompt));
    schema_validate(
        "ListPromptsResult",
        &to_value(&ListPromptsResult {
            prompts: vec![prompt],
            ..Default::default()
        }),
    );
    let get = GetPromptResult {
        messages: vec![PromptMessage::text(Role::User, "hi")],
        ..Default::default()
    };
    schema_validate("GetPromptResult", &to_value(&get));

    let resource = Resource {
        uri: "file:///a".into(),
        name: "a".into(),
        ..Default::default()
    };
    schema_validate("Resource", &to_value(&resource));
    schema_validate(
        "ListResourcesResult",
        &to_value(&ListResourcesResult {
            resources: vec![resource],
            ..Default::default()
        }),
    );
    let template = ResourceTemplate {
        uri_template: "file:///{path}".into(),
        name: "files".into(),
        ..Default::default()
    };
    schema_validate("ResourceTemplate", &to_value(&template));
    schema_validate(
        "ListResourceTemplatesResult",
        &to_value(&ListResourceTemplatesResult {
            resource_templates: vec![template],
            ..Default::default()
        }),
    );

    let call = CallToolRequestParams {
        name: "deploy".into(),
        arguments: Some(JsonObject::new()),
        input_responses: Some(InputResponses::from([(
            "q".to_string(),
            to_value(&ElicitResult::decline()),
        )])),
        request_state: Some("state".into()),
        meta: Some(meta()),
    };
    schema_validate("CallToolRequestParams", &to_value(&call));
    let request = JsonRpcRequest::new(1, method::TOOLS_CALL, Some(to_value(&call)));
    schema_validate("CallToolRequest", &to_value(&request));
    let get = GetPromptRequestParams {
        name: "review".into(),
        meta: Some(meta()),
        request_state: Some("s".into()),
        ..Default::default()
    };
    schema_validate("GetPromptRequestParams", &to_value(&get));
    let read = ReadResourceRequestParams {
        uri: "file:///a".into(),
        meta: Some(meta()),
        ..Default::default()
    };
    schema_validate("ReadResourceRequestParams", &to_value(&read));
    let page = PaginatedRequestParams {
        meta: Some(meta()),
        cursor: Some("c".into()),
    };
    schema_validate("PaginatedRequestParams", &to_value(&page));
}

#[test]
fn discover_completion_and_notifications_validate() {
    let discover = DiscoverResult {
        supported_versions: vec![PROTOCOL_VERSION.into()],
        capabilities: ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            resources: Some(ResourcesCapability {
                list_changed: Some(false),
                ..Default::default()
            }),
            ..Default::default()
        },
        instructions: Some("Be kind".into()),
        meta: Some(ResultMeta {
            server_info: Some(Implementation::new("server", "0.1.0")),
            ..Default::default()
        }),
        ..Default::default()
    };
    let value = to_value(&discover);
    assert_eq!(
        value["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "server"
    );
    schema_validate("DiscoverResult", &value);

    let complete = CompleteRequestParams {
        reference: CompletionReference::Prompt {
            name: "review".into(),
            title: None,
        },
        argument: CompletionArgument {
            name: "language".into(),
            value: "py".into(),
        },
        context: Some(CompletionContext {
            arguments: Some(BTreeMap::from([("a".into(), "b".into())])),
        }),
        meta: Some(meta()),
    };
    schema_validate("CompleteRequestParams", &to_value(&complete));
    let complete = CompleteRequestParams {
        reference: CompletionReference::ResourceTemplate {
            uri: "file:///{path}".into(),
        },
        ..complete
    };
    schema_validate("CompleteRequestParams", &to_value(&complete));
    let result = CompleteResult {
        completion: Completion {
            values: vec!["python".into()],
            total: Some(1),
            has_more: Some(false),
        },
        ..Default::default()
    };
    schema_validate("CompleteResult", &to_value(&result));

    let progress = ProgressNotificationParams {
        progress_token: RequestId::from("tok"),
        progress: Number::from(50),
        total: Some(Number::from(100)),
        message: Some("half".into()),
        meta: None,
    };
    let notification =
        JsonRpcNotification::new(method::NOTIFICATION_PROGRESS, Some(to_value(&progress)));
    schema_validate("ProgressNotification", &to_value(&notification));
    let log = LoggingMessageNotificationParams {
        level: LoggingLevel::Warning,
        logger: None,
        data: json!({"a": 1}),
        meta: None,
    };
    schema_validate("LoggingMessageNotificationParams", &to_value(&log));
}
