use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

fn shout(name: Name) -> String {
    name.name.to_uppercase()
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let loud = shout(cx.elicit::<Name>("Who are you?").await?);
    Ok(text(loud))
}

fn main() {}
