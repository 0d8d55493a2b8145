use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    names: Vec<String>,
    pick: usize,
}

#[tool]
async fn borrowed(args: Args, cx: Cx) -> ToolResult {
    let mut pick = args.pick;
    pick %= args.names.len();
    let name = args.names[pick].as_str();
    let go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{name} {}", go.ok)))
}

fn main() {}
