//! Application state in every handler kind and position, every presentation key, and a
//! structured result: all compile, and the server built from them serves them.

use std::sync::Mutex;

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, Json, PromptResult, ResourceResult, State, ToolResult};
use mcp_runtime::{elicit, prompt, resource, text, tool};

#[derive(Default)]
struct Store {
    notes: Mutex<Vec<String>>,
}

struct Config {
    greeting: &'static str,
}

#[derive(ElicitForm)]
struct Note {
    text: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    tag: String,
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Saved {
    count: usize,
}

/// Asks for a note; takes its store from the caller.
#[elicit]
async fn ask(cx: &Cx, store: State<Store>) -> Result<usize, mcp_runtime::HandlerError> {
    let note: Note = cx.elicit("Note?").await?;
    let mut notes = store.notes.lock().map_err(|_| "poisoned")?;
    notes.push(note.text);
    Ok(notes.len())
}

/// State first, the arguments last.
#[tool(
    title = "Save a note",
    annotations(destructive = false, idempotent = false, read_only = false, open_world = false),
    icon(src = "https://example.com/note.png", mime_type = "image/png", sizes = ["16x16", "any"], theme = "light"),
    icon(src = "data:image/png;base64,AAAA"),
    meta = r#"{"com.example/area": "notes", "com.example/weight": [1, 2]}"#,
    single_use,
)]
async fn save(
    State(config): State<Config>,
    store: State<Store>,
    cx: Cx,
    args: Args,
) -> ToolResult<Json<Saved>> {
    let count = ask(&cx, store.clone()).await?;
    let _ = (config.greeting, args.tag);
    Ok(Json(Saved { count }))
}

/// A tool with state and nothing else.
#[tool(annotations(read_only))]
async fn count(store: State<Store>) -> ToolResult {
    let notes = store.notes.lock().map_err(|_| "poisoned")?;
    Ok(text(notes.len().to_string()))
}

/// A prompt with state.
#[prompt(title = "Hello", icon(src = "https://example.com/hi.png"), meta = r#"{"k": true}"#)]
async fn hello(cx: Cx, State(config): State<Config>) -> PromptResult {
    let _ = (cx, config.greeting);
    Ok(Default::default())
}

/// A resource with state.
#[resource(uri = "notes://{tag}", annotations(audience(user), priority = 1.0), icon(src = "https://example.com/r.png"))]
async fn notes(args: Args, cx: Cx, store: mcp_runtime::server::State<Store>) -> ResourceResult {
    let _ = (args.tag, cx, store.notes.lock().map(|notes| notes.len()));
    Ok(Default::default())
}

fn main() {
    let server = Server::builder()
        .state(Store::default())
        .state(Config { greeting: "hi" })
        .tool(save)
        .tool(count)
        .prompt(hello)
        .resource(notes)
        .try_build();
    assert!(server.is_ok());
}
