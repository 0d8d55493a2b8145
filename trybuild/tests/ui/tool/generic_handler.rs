use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet<T: Default>(cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(name.name))
}

fn main() {}
