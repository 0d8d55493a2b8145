use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Pick {
    index: u32,
}

#[tool]
async fn choose(cx: Cx) -> ToolResult {
    let line = String::from("red,green,blue");
    let parts: Vec<&str> = line.split(',').collect();
    let pick: Pick = cx.elicit(format!("Which of {}?", parts.len())).await?;
    Ok(text(parts[pick.index as usize]))
}

fn main() {}
