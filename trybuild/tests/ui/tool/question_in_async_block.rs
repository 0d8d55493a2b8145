use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let name = async { cx.elicit::<Name>("Who are you?").await }.await?;
    Ok(text(name.name))
}

fn main() {}
