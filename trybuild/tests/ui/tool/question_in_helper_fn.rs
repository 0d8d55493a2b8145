use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

async fn ask_name(cx: &Cx) -> Result<Name, Refusal> {
    cx.elicit("Who are you?").await
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let name: Name = ask_name(&cx).await?;
    Ok(text(name.name))
}

fn main() {}
