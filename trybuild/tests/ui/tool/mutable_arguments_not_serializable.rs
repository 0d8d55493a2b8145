use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    items: Vec<String>,
}

#[tool]
async fn sorted(mut args: Args, cx: Cx) -> ToolResult {
    args.items.sort();
    let sure: Yes = cx.elicit("Sort them?").await?;
    Ok(text(format!("{} {}", args.items.join(","), sure.ok)))
}

fn main() {}
