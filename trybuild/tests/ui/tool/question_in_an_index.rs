use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Pick {
    index: usize,
}

#[tool]
async fn choose(cx: Cx) -> ToolResult {
    let names = ["ada", "grace"];
    // The question is the index of an element, which the body cannot be split at.
    let name = names[cx.elicit::<Pick>("Which one?").await?.index];
    Ok(text(name))
}

fn main() {}
