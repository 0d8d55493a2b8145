use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

fn greeting() -> String {
    "Hello".to_owned()
}

fn greet(greeting: &str, name: Name) -> String {
    format!("{greeting}, {}", name.name)
}

#[tool]
async fn hello(cx: Cx) -> ToolResult {
    Ok(text(greet(&greeting(), cx.elicit("Who are you?").await?)))
}

fn main() {}
