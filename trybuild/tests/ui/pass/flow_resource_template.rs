use mcp_runtime::protocol::{ReadResourceResult, ResourceContents, TextResourceContents};
use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ResourceResult, resource};

#[derive(ElicitForm)]
struct Unlock {
    passphrase: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Vars {
    id: String,
}

/// A secret note, unlocked by a passphrase.
#[resource(uri = "notes://secret/{id}", mime_type = "text/plain")]
async fn secret_note(vars: Vars, cx: Cx) -> ResourceResult {
    let unlock: Unlock = cx.elicit("Passphrase?").await?;
    Ok(ReadResourceResult {
        contents: vec![ResourceContents::Text(TextResourceContents {
            uri: format!("notes://secret/{}", vars.id),
            mime_type: Some("text/plain".to_owned()),
            text: format!("{} characters", unlock.passphrase.len()),
            meta: None,
        })],
        ..ReadResourceResult::default()
    })
}

fn main() {
    let _ = Server::builder().resource(secret_note).build();
}
