use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[tool(
    name = "pair.names",
    title = "Pair",
    description = "Names two people.",
    max_rounds = 4
)]
async fn pair(cx: Cx) -> ToolResult {
    let first: Name = cx.elicit("First person?").key("person").await?;
    let second: Name = cx.elicit("Second person?").key("other_person").await?;
    cx.elicit_url("Sign the pairing form", "https://example.com/sign")
        .key("signature")
        .await?;
    Ok(text(format!("{} & {}", first.name, second.name)))
}

fn main() {
    let _ = Server::builder().tool(pair).build();
}
