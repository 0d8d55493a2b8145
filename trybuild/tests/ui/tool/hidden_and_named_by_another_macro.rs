use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

/// A logging macro whose tokens the flow cannot read as code.
macro_rules! note {
    ($($tokens:tt)*) => {};
}

#[tool]
async fn tally(cx: Cx) -> ToolResult {
    let mut item = Some(String::from("total"));
    let mut count = 0;
    if let Some(item) = item.as_mut() {
        note!(item = ?item);
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        item.push('!');
        count += u32::from(keep.ok);
    }
    note!(item = ?item);
    Ok(text(format!("{item:?}: {count}")))
}

fn main() {}
