//! Closures defined before a question and called after it: made again where the flow
//! resumes, from the locals they borrow, with no warning on the handler as written.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    factor: u32,
    name: String,
}

#[tool]
async fn closures(args: Args, cx: Cx) -> ToolResult {
    let factor = args.factor;
    let scale = |n: u32| n * factor;
    let shout = |s: &str| format!("{}!", s.to_uppercase());
    let mut count = 0;
    let mut bump = |by: u32| count += by;
    bump(1);
    let a: Yes = cx.elicit(shout("first")).await?;
    bump(2);
    let b: Yes = cx.elicit("second").await?;
    if b.ok {
        bump(scale(1));
    }
    Ok(text(format!(
        "{} {} {count}",
        scale(u32::from(a.ok) + 1),
        shout(&args.name)
    )))
}

fn main() {}
