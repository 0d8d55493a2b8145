use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

fn greeting() -> String {
    "Hello".to_owned()
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    Ok(text(format!("{} {}", greeting(), cx.elicit::<Name>("Who are you?").await?.name)))
}

fn main() {}
