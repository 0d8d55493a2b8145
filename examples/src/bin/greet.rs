//! The README's first server: one tool that asks one form, and `main` with the entry point.
//!
//! ```sh
//! cargo run -p mcp-examples --bin greet                  # HTTP on 127.0.0.1:3000, endpoint /mcp
//! ```

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

/// Who the user is.
#[derive(ElicitForm)]
struct Name {
    /// What should I call you?
    #[form(min_length = 1, max_length = 40)]
    name: String,
}

/// Greet the user by name.
#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let who: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("Hello, {}!", who.name)))
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::builder()
        .name("greeter")
        .version("0.1.0")
        .tool(greet)
        .run()
        .await
}

#[cfg(test)]
mod tests {
    use mcp_runtime::testing::FlowTester;

    use super::{Name, greet};

    #[tokio::test]
    async fn greets_by_name() {
        let first = FlowTester::tool(greet).start().await;
        assert_eq!(first.questions(), ["who"]);
        let done = first.answer_form("who", &Name { name: "Ada".into() }).await;
        assert_eq!(done.text(), Some("Hello, Ada!"));
    }
}
