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
async fn first(args: Args, cx: Cx) -> ToolResult {
    if let Some(first) = args.items.first()
        && cx.elicit::<Yes>(format!("Keep {first}?")).await?.ok
    {
        Ok(text(first.clone()))
    } else {
        Ok(text("none"))
    }
}

fn main() {}
