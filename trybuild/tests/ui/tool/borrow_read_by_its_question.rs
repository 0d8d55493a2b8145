use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Note {
    note: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Items {
    items: Vec<String>,
}

#[tool]
async fn annotate(args: Items, cx: Cx) -> ToolResult {
    let mut next = 0;
    let item = &args.items[next];
    next += 1;
    let note: Note = cx.elicit(format!("A note on {item}?")).await?;
    Ok(text(format!("{} ({next} read)", note.note)))
}

fn main() {}
