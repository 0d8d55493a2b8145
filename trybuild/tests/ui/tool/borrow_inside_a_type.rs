use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Pick {
    index: u32,
}

fn longest(lines: &[String]) -> &str {
    lines.iter().max_by_key(|line| line.len()).map_or("", String::as_str)
}

#[tool]
async fn choose(cx: Cx) -> ToolResult {
    let lines = [String::from("red,green,blue"), String::from("cyan")];
    let parts: Vec<&str> = longest(&lines).split(',').collect();
    let pick: Pick = cx.elicit(format!("Which of {}?", parts.len())).await?;
    Ok(text(parts[pick.index as usize]))
}

fn main() {}
