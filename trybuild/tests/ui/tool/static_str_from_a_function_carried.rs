use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

fn greeting(formal: bool) -> &'static str {
    if formal { "Good day" } else { "Hi" }
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let hello = greeting(true);
    let go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{hello} {}", go.ok)))
}

fn main() {}
