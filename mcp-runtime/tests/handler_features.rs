//! What real servers need around their flows: application state handed to every round,
//! presentation metadata in the lists, and structured results that match their schema.

mod common;

use std::sync::Mutex;

use mcp_runtime::server::{BuildError, Outcome, RequestFacts, Server};
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, ElicitForm, Json, PromptResult, ResourceResult, State, ToolResult};
use mcp_runtime::{prompt, resource, text, tool};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A registry the handlers share: application state.
#[derive(Default)]
struct Ledger {
    entries: Mutex<Vec<String>>,
}

#[derive(ElicitForm)]
struct Entry {
    text: String,
}

/// Writes one entry, asked for, into the ledger.
#[tool(title = "Write an entry")]
async fn write(cx: Cx, State(ledger): State<Ledger>) -> ToolResult {
    let entry: Entry = cx.elicit("What should the entry say?").await?;
    let mut entries = ledger
        .entries
        .lock()
        .map_err(|_| "the ledger is poisoned")?;
    entries.push(entry.text);
    Ok(text(format!("{} entries", entries.len())))
}

#[tokio::test]
async fn every_round_is_handed_the_one_registered_value() {
    let tester = FlowTester::tool(write).state(Ledger::default());
    let first = tester.start().await;
    assert_eq!(first.questions(), ["entry"], "{first}");
    let done = first
        .answer(json!({"entry": {"action": "accept", "content": {"text": "hello"}}}))
        .await;
    assert_eq!(done.text(), Some("1 entries"), "{done}");
    // A second flow on the same tester sees what the first stored.
    let again = tester.start().await;
    let done = again
        .answer(json!({"entry": {"action": "accept", "content": {"text": "again"}}}))
        .await;
    assert_eq!(done.text(), Some("2 entries"), "{done}");
}

#[tokio::test]
async fn state_reaches_every_round_of_a_flow_served_by_the_server() {
    let ledger = Ledger::default();
    let server = Server::builder().state(ledger).tool(write).build();
    let (_, first) = call(&server, json!({"name": "write", "arguments": {}})).await;
    let token = first["result"]["requestState"]
        .as_str()
        .expect("the flow asks");
    let (_, done) = call(
        &server,
        json!({
            "name": "write",
            "arguments": {},
            "requestState": token,
            "inputResponses": {"entry": {"action": "accept", "content": {"text": "kept"}}},
        }),
    )
    .await;
    assert_eq!(done["result"]["content"][0]["text"], "1 entries", "{done}");
}

#[test]
fn a_server_whose_handler_needs_unregistered_state_is_not_built() {
    let Err(error) = Server::builder().tool(write).try_build() else {
        panic!("built without the ledger");
    };
    assert!(
        matches!(&error, BuildError::MissingState { handler, type_name }
            if handler == "write" && type_name.ends_with("Ledger")),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(message.contains("State<"), "{message}");
    assert!(message.contains(".state(value)"), "{message}");
}

#[test]
#[should_panic(expected = "takes `State<")]
fn build_panics_with_the_same_message() {
    let _ = Server::builder().tool(write).build();
}

#[derive(Serialize, schemars::JsonSchema)]
struct Forecast {
    city: String,
    celsius: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    warning: Option<String>,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct City {
    city: String,
}

#[derive(ElicitForm)]
struct Go {
    ok: bool,
}

/// Tomorrow's weather.
#[tool(
    annotations(read_only, open_world = false),
    icon(src = "https://example.com/sun.png", mime_type = "image/png", sizes = ["48x48", "any"]),
    icon(src = "data:image/svg+xml;base64,PHN2Zy8+", theme = "dark"),
    meta = r#"{"com.example/team": "weather", "com.example/cost": 2}"#,
)]
async fn forecast(args: City, cx: Cx) -> ToolResult<Json<Forecast>> {
    if args.city == "Atlantis" {
        let go: Go = cx
            .elicit("Atlantis is under water. Forecast anyway?")
            .await?;
        if !go.ok {
            return Err(mcp_runtime::Refusal::Declined.into());
        }
    }
    Ok(Json(Forecast {
        warning: (args.city == "Atlantis").then(|| "wet".to_owned()),
        city: args.city,
        celsius: 21.5,
    }))
}

/// A greeting.
#[prompt(title = "Greeting", icon(src = "https://example.com/hi.png"))]
async fn greeting(cx: Cx) -> PromptResult {
    let _ = cx;
    Ok(Default::default())
}

/// The notes.
#[resource(
    uri = "notes://all",
    annotations(audience(user, assistant), priority = 0.25),
    meta = r#"{"com.example/kind": "notes"}"#
)]
async fn notes(cx: Cx) -> ResourceResult {
    let _ = cx;
    Ok(Default::default())
}

fn features() -> Server {
    Server::builder()
        .tool(forecast)
        .prompt(greeting)
        .resource(notes)
        .build()
}

#[tokio::test]
async fn lists_carry_titles_annotations_icons_meta_and_output_schemas() {
    let server = features();
    let (_, tools) = send(&server, "tools/list", json!({})).await;
    common::schema_validate("ListToolsResult", &tools["result"]);
    let tool = &tools["result"]["tools"][0];
    assert_eq!(
        tool["annotations"],
        json!({"readOnlyHint": true, "openWorldHint": false})
    );
    assert_eq!(
        tool["icons"],
        json!([
            {"src": "https://example.com/sun.png", "mimeType": "image/png", "sizes": ["48x48", "any"]},
            {"src": "data:image/svg+xml;base64,PHN2Zy8+", "theme": "dark"},
        ])
    );
    assert_eq!(
        tool["_meta"],
        json!({"com.example/team": "weather", "com.example/cost": 2})
    );
    let schema = &tool["outputSchema"];
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["required"], json!(["city", "celsius"]), "{schema}");

    let (_, prompts) = send(&server, "prompts/list", json!({})).await;
    common::schema_validate("ListPromptsResult", &prompts["result"]);
    let prompt = &prompts["result"]["prompts"][0];
    assert_eq!(prompt["title"], "Greeting");
    assert_eq!(
        prompt["icons"],
        json!([{"src": "https://example.com/hi.png"}])
    );

    let (_, resources) = send(&server, "resources/list", json!({})).await;
    common::schema_validate("ListResourcesResult", &resources["result"]);
    let resource = &resources["result"]["resources"][0];
    assert_eq!(
        resource["annotations"],
        json!({"audience": ["user", "assistant"], "priority": 0.25})
    );
    assert_eq!(resource["_meta"], json!({"com.example/kind": "notes"}));
}

#[tokio::test]
async fn structured_results_match_their_output_schema_and_repeat_as_text() {
    let server = features();
    let (_, tools) = send(&server, "tools/list", json!({})).await;
    let schema = tools["result"]["tools"][0]["outputSchema"].clone();
    for city in ["Lisbon", "Oslo"] {
        let (_, answer) = call(
            &server,
            json!({"name": "forecast", "arguments": {"city": city}}),
        )
        .await;
        let result = &answer["result"];
        common::schema_validate("CallToolResult", result);
        let structured = &result["structuredContent"];
        assert_eq!(structured["city"], city, "{result}");
        common::check_against(&schema, structured).unwrap_or_else(|report| panic!("{report}"));
        // The text block is the same JSON, for clients that read only `content`.
        let text = result["content"][0]["text"].as_str().expect("a text block");
        assert_eq!(&serde_json::from_str::<Value>(text).unwrap(), structured);
        assert!(result.get("isError").is_none(), "{result}");
    }
    // The schema really checks: a value of another shape fails it.
    assert!(common::check_against(&schema, &json!({"city": 3})).is_err());
}

#[tokio::test]
async fn a_structured_tool_refused_by_the_user_says_so_as_an_error_result() {
    let tester = FlowTester::tool(forecast).arguments(json!({"city": "Atlantis"}));
    let first = tester.start().await;
    assert_eq!(first.questions(), ["go"], "{first}");
    let declined = first.answer(json!({"go": {"action": "decline"}})).await;
    let result = declined.result().expect("a final result");
    // No structured content: the result must not claim success against the output schema.
    assert_eq!(result["isError"], true, "{result}");
    assert!(result.get("structuredContent").is_none(), "{result}");
    let accepted = first
        .answer(json!({"go": {"action": "accept", "content": {"ok": true}}}))
        .await;
    let result = accepted.result().expect("a final result");
    assert_eq!(result["structuredContent"]["warning"], "wet", "{result}");
}

#[derive(Serialize, schemars::JsonSchema)]
struct NotAnObject(Vec<u32>);

/// Returns a list at the root, which `structuredContent` cannot be.
#[tool]
async fn listing(cx: Cx) -> ToolResult<Json<NotAnObject>> {
    let _ = cx;
    Ok(Json(NotAnObject(vec![1])))
}

#[test]
fn a_structured_result_that_is_not_an_object_is_refused_at_build() {
    let Err(error) = Server::builder().tool(listing).try_build() else {
        panic!("built with an array as structured content");
    };
    assert_eq!(
        error,
        BuildError::OutputSchemaNotObject {
            tool: "listing".to_owned()
        }
    );
}

async fn send(server: &Server, method: &str, params: Value) -> (u16, Value) {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {"form": {}}},
    });
    let message = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let Outcome { status, body, .. } = server
        .handle(
            &serde_json::to_vec(&message).unwrap(),
            RequestFacts::stdio(),
        )
        .finish()
        .await;
    let body = body.expect("an answer");
    (status, serde_json::from_slice(&body).unwrap())
}

async fn call(server: &Server, params: Value) -> (u16, Value) {
    send(server, "tools/call", params).await
}
