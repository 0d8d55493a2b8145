//! A body the macro refuses is still read as written: its own mistakes are reported beside the
//! macro's error, in the same build, and the names it uses count as used.

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    names: Vec<String>,
}

#[tool]
async fn tally(args: Args, cx: Cx) -> ToolResult {
    let pick = args.names[usize::from(cx.elicit::<Confirm>("The second?").await?.ok)].clone();
    let count: u32 = args.names.len();
    Ok(text(format!("{pick} of {count}")))
}

fn main() {}
