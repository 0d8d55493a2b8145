//! Loops and sub-flows compile, and register in a server.
#![deny(warnings)]

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};

#[derive(ElicitForm)]
struct Item {
    name: String,
    more: bool,
}

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

/// Confirms anything.
#[elicit]
async fn confirm(cx: &Cx, question: String) -> Result<bool, Refusal> {
    let answer: Confirm = cx.elicit(question).await?;
    Ok(answer.ok)
}

/// Collects, then confirms each, then confirms all.
#[tool]
async fn collect(cx: Cx) -> ToolResult {
    let mut items: Vec<String> = Vec::new();
    'asking: loop {
        let item: Item = cx.elicit("Item?").await?;
        items.push(item.name);
        if item.more {
            continue 'asking;
        }
        break;
    }
    let all: Vec<String> = items.clone();
    let mut kept: Vec<String> = Vec::new();
    for name in all {
        let keep: bool = confirm(&cx, format!("Keep {name}?")).await?;
        if keep {
            kept.push(name);
        }
    }
    let mut left: usize = kept.len();
    while left > 0 {
        let sure: Confirm = cx.elicit(format!("{left} left; go on?")).await?;
        if !sure.ok {
            return Ok(text("stopped"));
        }
        left -= 1;
    }
    Ok(text(kept.join(",")))
}

fn main() {
    let _server = Server::builder().name("pass").version("1").tool(collect).build();
}
