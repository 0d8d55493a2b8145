use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

fn greeting() -> String {
    String::from("Hello, NAME")
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    // The question is an argument of a method of what `greeting()` gives, not of a local.
    let line = greeting().replace("NAME", &cx.elicit::<Name>("Who are you?").await?.name);
    Ok(text(line))
}

fn main() {}
