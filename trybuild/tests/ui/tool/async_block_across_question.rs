use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let greeting = async { String::from("Hello") };
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{}, {}", greeting.await, name.name)))
}

fn main() {}
