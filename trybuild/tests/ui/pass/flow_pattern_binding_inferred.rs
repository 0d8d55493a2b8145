use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Sure {
    ok: bool,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let Ok(answer) = cx.elicit::<Name>("Who are you?").await else {
        return Ok(text("declined"));
    };
    let sure: Sure = cx.elicit("Sure?").await?;
    Ok(text(format!("{} {}", answer.name, sure.ok)))
}

fn main() {}
