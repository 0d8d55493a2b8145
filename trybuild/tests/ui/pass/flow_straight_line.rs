use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Age {
    years: u32,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    greeting: String,
}

/// Greets someone by name and age.
#[tool]
async fn greet(args: Args, cx: Cx) -> ToolResult {
    let name: Name = cx.elicit("Who are you?").await?;
    let shout: String = name.name.to_uppercase();
    let age: Age = cx.elicit(format!("How old are you, {shout}?")).await?;
    Ok(text(format!(
        "{}, {} ({} years)",
        args.greeting, name.name, age.years
    )))
}

fn main() {
    let _ = Server::builder().tool(greet).build();
}
