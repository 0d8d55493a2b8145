use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    names: Vec<String>,
}

#[tool]
async fn keep(args: Args, cx: Cx) -> ToolResult {
    let asks: Vec<_> = args
        .names
        .iter()
        .map(|name| async move { cx.elicit::<Yes>(format!("Keep {name}?")).await })
        .collect();
    Ok(text(format!("{} questions", asks.len())))
}

fn main() {}
