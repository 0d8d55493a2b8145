use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who are you?")?;
    Ok(text(who.name))
}

fn main() {}
