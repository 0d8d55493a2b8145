use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn sized(cx: Cx) -> ToolResult {
    let size = 3;
    let label = match size {
        n if n > 2 && cx.elicit::<Yes>("Call it large?").await?.ok => "large",
        _ => "small",
    };
    Ok(text(label))
}

fn main() {}
