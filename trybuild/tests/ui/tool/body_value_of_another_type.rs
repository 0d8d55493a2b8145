use mcp_runtime::{Cx, ElicitForm, ToolResult, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

// The body's value is checked against the declared result where the user wrote it, as in a
// plain `async fn`: `text(..)` is missing around the string.
#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(format!("Hello, {}", name.name))
}

fn main() {}
