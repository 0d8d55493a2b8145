use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

struct Greeter;

impl Greeter {
    #[tool]
    async fn greet(&self, cx: Cx) -> ToolResult {
        let name: Name = cx.elicit("Who are you?").await?;
        Ok(text(name.name))
    }
}

fn main() {}
