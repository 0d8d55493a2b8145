use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    name: String,
}

#[tool]
async fn borrowed(args: Args, cx: Cx) -> ToolResult {
    let name = args.name.as_str();
    let go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{name} {}", go.ok)))
}

fn main() {}
