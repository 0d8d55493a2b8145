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
    let hello = greeting();
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{hello}, {}", name.name)))
}

fn main() {}
