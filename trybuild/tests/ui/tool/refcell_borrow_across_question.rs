use std::cell::RefCell;

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool]
async fn count(cx: Cx) -> ToolResult {
    let names = RefCell::new(Vec::<String>::new());
    let mut list = names.borrow_mut();
    let who: Name = cx.elicit("Who?").await?;
    list.push(who.name);
    Ok(text(list.len().to_string()))
}

fn main() {}
