use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

struct Greeter {
    greeted: u32,
}

impl Greeter {
    // Calls share the registered `Greeter`: it cannot be borrowed mutably.
    #[tool]
    async fn greet(&mut self, cx: Cx) -> ToolResult {
        let name: Name = cx.elicit("Who are you?").await?;
        self.greeted += 1;
        Ok(text(name.name))
    }
}

fn main() {}
