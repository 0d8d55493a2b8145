use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Word {
    word: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    names: Vec<String>,
}

#[tool]
async fn rename(args: Args, cx: Cx) -> ToolResult {
    let mut renamed = Vec::new();
    let mut names = args.names.iter();
    while let Some(name) = names.next() {
        let new: Word = cx.elicit(format!("A new name for {name}?")).await?;
        renamed.push(new.word);
    }
    Ok(text(renamed.join(", ")))
}

fn main() {}
