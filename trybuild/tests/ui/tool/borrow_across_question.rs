use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let greetings = [String::from("Hello"), String::from("Hi")];
    let mut pick = greetings.len();
    pick -= 1;
    let hello = &greetings[pick];
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{hello}, {}", name.name)))
}

fn main() {}
