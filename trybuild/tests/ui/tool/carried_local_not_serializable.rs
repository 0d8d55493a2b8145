use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let started: std::time::Instant = std::time::Instant::now();
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{} after {:?}", name.name, started.elapsed())))
}

fn main() {}
