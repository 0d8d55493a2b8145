use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let ask = async |cx: &Cx| cx.elicit::<Name>("Who are you?").await;
    let name = ask(&cx).await?;
    Ok(text(name.name))
}

fn main() {}
