use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    name: String,
    red: bool,
}

fn first_word(name: &str) -> &str {
    name.split(' ').next().unwrap_or(name)
}

enum Color {
    Red,
    Blue,
}

impl Color {
    fn name(&self) -> &'static str {
        match self {
            Color::Red => "red",
            Color::Blue => "blue",
        }
    }
}

#[tool]
async fn greet(args: Args, cx: Cx) -> ToolResult {
    let word = first_word(&args.name);
    let color = if args.red { Color::Red } else { Color::Blue };
    let shade = color.name();
    let go: Yes = cx.elicit("Go?").await?;
    Ok(text(format!("{word} {shade} {}", go.ok)))
}

fn words(name: &str) -> Vec<&str> {
    name.split(' ').collect()
}

#[tool]
async fn keep_words(args: Args, cx: Cx) -> ToolResult {
    let mut kept = Vec::new();
    for word in words(&args.name) {
        let keep: Yes = cx.elicit(format!("Keep {word}?")).await?;
        if keep.ok {
            kept.push(word.to_owned());
        }
    }
    Ok(text(kept.join(" ")))
}

fn main() {}
