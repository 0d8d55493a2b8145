use mcp_runtime::{Cx, ElicitChoice, ToolResult, text, tool};

#[derive(Clone, Copy, ElicitChoice)]
enum Environment {
    Staging,
    Production,
}

#[tool]
async fn pick(cx: Cx) -> ToolResult {
    let environment: Environment = cx.elicit("Where?").await?;
    Ok(text(match environment {
        Environment::Staging => "staging",
        Environment::Production => "production",
    }))
}

fn main() {}
