//! `completion/complete` on both eras, over real sockets: prompt arguments and resource-template
//! variables, completers that are `async`, read `context.arguments`, the application state and
//! the request's context; the plain `fn(argument, value)` completers of before; the cap of 100
//! values; the errors. Every legacy message is checked against the 2025-11-25 schema.

#[path = "support/client.rs"]
mod client;
#[path = "support/legacy.rs"]
mod legacy;
#[path = "support/schema.rs"]
mod schema;

use legacy::Client;
use mcp_runtime::protocol::meta::META_CLIENT_INFO;
use mcp_runtime::protocol::{
    GetPromptResult, PromptMessage, ReadResourceResult, ResourceContents, Role,
    TextResourceContents,
};
use mcp_runtime::server::{CompletionRequest, Server};
use mcp_runtime::{PromptResult, ResourceResult, prompt, resource};
use serde_json::{Value, json};

/// The cities the completers know, by country: the application's state.
struct Cities {
    known: Vec<(&'static str, &'static str)>,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct TripArgs {
    /// Where the trip starts.
    country: String,
    /// The city in it.
    city: String,
}

/// Offers the cities of the country already chosen, read from the application state, after a
/// yield: completers may wait on I/O.
async fn cities(request: CompletionRequest) -> Vec<String> {
    tokio::task::yield_now().await;
    if request.argument != "city" {
        return Vec::new();
    }
    let Some(cities) = request.state::<Cities>() else {
        return vec!["no state".to_owned()];
    };
    let country = request.arguments.get("country").map(String::as_str);
    let client = request
        .context
        .client_info()
        .map(|info| info.name.clone())
        .unwrap_or_default();
    cities
        .known
        .iter()
        .filter(|(of, city)| Some(*of) == country && city.starts_with(&request.value))
        .map(|(_, city)| format!("{city} (for {client})"))
        .collect()
}

/// Plans a trip.
#[prompt(complete = cities)]
async fn trip(args: TripArgs) -> PromptResult {
    Ok(prompt_text(format!("{} in {}", args.city, args.country)))
}

fn colours(argument: &str, value: &str) -> Vec<String> {
    if argument != "colour" {
        return Vec::new();
    }
    (0..150).map(|n| format!("{value}{n:03}")).collect()
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PaintArgs {
    /// The colour.
    colour: String,
}

/// Paints, with the plain completer of before.
#[prompt(complete = colours)]
async fn paint(args: PaintArgs) -> PromptResult {
    Ok(prompt_text(args.colour))
}

async fn file_names(request: CompletionRequest) -> Vec<String> {
    match (request.argument.as_str(), request.arguments.get("folder")) {
        ("name", Some(folder)) => vec![format!("{folder}/readme.md"), format!("{folder}/notes.md")],
        ("folder", _) => vec!["docs".to_owned(), "src".to_owned()],
        _ => Vec::new(),
    }
}

fn prompt_text(text: String) -> GetPromptResult {
    GetPromptResult {
        messages: vec![PromptMessage::text(Role::User, text)],
        ..Default::default()
    }
}

fn resource_text(uri: String) -> ReadResourceResult {
    ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri,
            mime_type: None,
            text: "contents".to_owned(),
            meta: None,
        })],
        ..ReadResourceResult::default()
    }
}

/// The variables of `files://{folder}/{name}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct FileUri {
    /// The folder.
    folder: String,
    /// The file's name.
    name: String,
}

/// A file.
#[resource(uri = "files://{folder}/{name}", complete = file_names)]
async fn file(uri: FileUri) -> ResourceResult {
    Ok(resource_text(format!(
        "files://{}/{}",
        uri.folder, uri.name
    )))
}

async fn boom(_request: CompletionRequest) -> Vec<String> {
    panic!("the completer broke")
}

/// The variables of `notes://{id}`.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct NoteUri {
    /// The note.
    id: String,
}

/// A note, whose completer panics.
#[resource(uri = "notes://{id}", complete = boom)]
async fn note(uri: NoteUri) -> ResourceResult {
    Ok(resource_text(format!("notes://{}", uri.id)))
}

fn server() -> Server {
    Server::builder()
        .name("completion")
        .state(Cities {
            known: vec![
                ("fr", "Paris"),
                ("fr", "Pau"),
                ("fr", "Lyon"),
                ("it", "Parma"),
            ],
        })
        .prompt(trip)
        .prompt(paint)
        .resource(file)
        .resource(note)
        .build()
}

fn prompt_ref(name: &str) -> Value {
    json!({"type": "ref/prompt", "name": name})
}

fn template_ref(uri: &str) -> Value {
    json!({"type": "ref/resource", "uri": uri})
}

fn params(reference: Value, argument: &str, value: &str, context: Option<Value>) -> Value {
    let mut params = json!({"ref": reference, "argument": {"name": argument, "value": value}});
    if let Some(context) = context {
        params["context"] = json!({ "arguments": context });
    }
    params
}

/// The cases both eras answer alike: the parameters, and the values expected.
fn cases(client: &str) -> Vec<(Value, Vec<String>)> {
    vec![
        (
            params(
                prompt_ref("trip"),
                "city",
                "Pa",
                Some(json!({"country": "fr"})),
            ),
            vec![
                format!("Paris (for {client})"),
                format!("Pau (for {client})"),
            ],
        ),
        (
            params(
                prompt_ref("trip"),
                "city",
                "Pa",
                Some(json!({"country": "it"})),
            ),
            vec![format!("Parma (for {client})")],
        ),
        (params(prompt_ref("trip"), "city", "Pa", None), vec![]),
        (
            params(template_ref("files://{folder}/{name}"), "folder", "", None),
            vec!["docs".to_owned(), "src".to_owned()],
        ),
        (
            params(
                template_ref("files://{folder}/{name}"),
                "name",
                "",
                Some(json!({"folder": "docs"})),
            ),
            vec!["docs/readme.md".to_owned(), "docs/notes.md".to_owned()],
        ),
        // The revision lets `ref/resource` name a URI as well: the template matching it.
        (
            params(template_ref("files://src/main.rs"), "folder", "", None),
            vec!["docs".to_owned(), "src".to_owned()],
        ),
    ]
}

fn values(result: &Value) -> Vec<String> {
    serde_json::from_value(result["completion"]["values"].clone())
        .unwrap_or_else(|_| panic!("no values in {result}"))
}

#[tokio::test]
async fn stateless_completers_see_the_other_arguments_the_state_and_the_caller() {
    let running = client::start(server()).await;
    let discovered = client::call(running.addr, json!(0), "server/discover", json!({})).await;
    assert_eq!(
        discovered.json()["result"]["capabilities"]["completions"],
        json!({})
    );
    for (id, (mut params, expected)) in cases("modern").into_iter().enumerate() {
        let mut meta = client::meta();
        meta[META_CLIENT_INFO] = json!({"name": "modern", "version": "1"});
        params["_meta"] = meta;
        let answer = client::call(running.addr, json!(id), "completion/complete", params).await;
        let response = answer.json();
        schema::assert_valid("JSONRPCResultResponse", &response);
        let result = &response["result"];
        assert_eq!(values(result), expected, "{response}");
        assert_eq!(result["completion"]["total"], expected.len());
        assert_eq!(result["completion"]["hasMore"], false);
        assert_eq!(
            result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
            "completion"
        );
    }
}

#[tokio::test]
async fn legacy_completers_see_the_same_and_the_session_client() {
    let running = client::start(server()).await;
    let session = Client::open(running.addr).await;
    for (id, (params, expected)) in cases("legacy-test").into_iter().enumerate() {
        let response = session
            .request(id as u64 + 1, "completion/complete", params)
            .await;
        schema::assert_legacy_valid("CompleteResult", &response["result"]);
        assert_eq!(values(&response["result"]), expected, "{response}");
        assert!(response["result"].get("_meta").is_none(), "{response}");
    }
}

#[tokio::test]
async fn plain_completers_still_work_and_answers_stop_at_100_values() {
    let running = client::start(server()).await;
    let session = Client::open(running.addr).await;
    let modern = client::call(
        running.addr,
        json!(1),
        "completion/complete",
        params(prompt_ref("paint"), "colour", "red-", None),
    )
    .await
    .json();
    let legacy = session
        .request(
            2,
            "completion/complete",
            params(prompt_ref("paint"), "colour", "red-", None),
        )
        .await;
    for response in [modern, legacy] {
        let completion = &response["result"]["completion"];
        let values = values(&response["result"]);
        assert_eq!(values.len(), 100, "{response}");
        assert_eq!(values[0], "red-000");
        assert_eq!(completion["total"], 150);
        assert_eq!(completion["hasMore"], true);
    }
}

#[tokio::test]
async fn unknown_references_are_invalid_params_and_a_panic_is_an_internal_error() {
    let running = client::start(server()).await;
    let session = Client::open(running.addr).await;
    for (reference, code) in [
        (prompt_ref("nowhere"), -32602),
        (template_ref("files://{nothing}"), -32602),
        (template_ref("notes://{id}"), -32603),
    ] {
        let asked = params(reference.clone(), "id", "", None);
        let modern = client::call(running.addr, json!(1), "completion/complete", asked.clone())
            .await
            .json();
        assert_eq!(modern["error"]["code"], code, "{modern}");
        let legacy = session.request(2, "completion/complete", asked).await;
        assert_eq!(legacy["error"]["code"], code, "{legacy}");
        assert_eq!(
            legacy["error"]["message"]
                .as_str()
                .map(|m| m.contains("broke")),
            Some(false),
            "a panic's message stays in the log"
        );
    }
}
