use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    println!("{}", cx.elicit::<Name>("Who are you?").await?.name);
    Ok(text("Hello"))
}

fn main() {}
