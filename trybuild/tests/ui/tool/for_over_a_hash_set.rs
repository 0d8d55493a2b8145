use std::collections::HashSet;

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Keep {
    ok: bool,
}

#[tool]
async fn review(cx: Cx) -> ToolResult {
    let names: HashSet<String> = HashSet::from(["a".to_owned(), "b".to_owned()]);
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        let keep: Keep = cx.elicit(format!("Keep {name}?")).await?;
        if keep.ok {
            kept.push(name);
        }
    }
    Ok(text(kept.join(",")))
}

fn main() {}
