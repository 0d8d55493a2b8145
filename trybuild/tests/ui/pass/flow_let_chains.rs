//! `let` chains with a question after a `let`, in an `if` with `else if` and `else` branches
//! that give a value, and in a `while`.

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
async fn pick(args: Args, cx: Cx) -> ToolResult {
    let picked = if let Some(first) = args.items.first()
        && cx.elicit::<Yes>(format!("Take {first}?")).await?.ok
    {
        first.clone()
    } else if let Some(last) = args.items.last()
        && cx.elicit::<Yes>(format!("Take {last}?")).await?.ok
    {
        last.clone()
    } else {
        String::from("nothing")
    };
    let mut stack = args.items.clone();
    let mut kept = Vec::new();
    while let Some(top) = stack.pop()
        && cx.elicit::<Yes>(format!("Keep {top}?")).await?.ok
    {
        if top.is_empty() {
            continue;
        }
        kept.push(top);
    }
    Ok(text(format!("{picked}: {}", kept.join(", "))))
}

fn main() {}
