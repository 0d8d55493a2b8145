use mcp_runtime::{Cx, ToolResult, text, tool};

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Who {
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct How {
    loud: bool,
}

#[tool]
async fn greet(who: Who, how: How, cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text(if how.loud {
        who.name.to_uppercase()
    } else {
        who.name
    }))
}

fn main() {}
