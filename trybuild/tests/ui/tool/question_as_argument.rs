use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

fn greeting() -> String {
    String::from("Hello")
}

fn greet_by_name(greeting: String, name: Name) -> String {
    format!("{greeting}, {}", name.name)
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    // `greeting()` runs before the question: the call cannot resume at it.
    let line = greet_by_name(greeting(), cx.elicit::<Name>("Who are you?").await?);
    Ok(text(line))
}

fn main() {}
