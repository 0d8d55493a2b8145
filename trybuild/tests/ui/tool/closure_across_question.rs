use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let greeting = String::from("Hello");
    let greet = move |s: &str| format!("{greeting}, {s}");
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(greet(&name.name)))
}

fn main() {}
