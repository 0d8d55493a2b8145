use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    greeting: Option<String>,
}

#[tool]
async fn greet(args: Args, cx: Cx) -> ToolResult {
    match args.greeting {
        Some(greeting) => {
            let name: Name = cx.elicit("Who are you?").await?;
            Ok(text(format!("{greeting}, {}", name.name)))
        }
        None => Ok(text("Hello")),
    }
}

fn main() {}
