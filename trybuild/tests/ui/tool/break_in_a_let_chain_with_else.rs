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
    let mut kept = Vec::new();
    for item in args.items {
        if let Some(initial) = item.chars().next()
            && cx.elicit::<Yes>(format!("Stop at {initial}?")).await?.ok
        {
            break;
        } else {
            kept.push(item);
        }
    }
    Ok(text(kept.join(", ")))
}

fn main() {}
