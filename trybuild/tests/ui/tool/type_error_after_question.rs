use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Who are you?").await?;
    let count: u32 = "three";
    Ok(text(format!("{} x{count}", name.name)))
}

fn main() {}
