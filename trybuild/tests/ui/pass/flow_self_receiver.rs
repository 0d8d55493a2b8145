//! A handler taking `&self`: the `Greeter` given to the server with `.state(..)`.

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

struct Greeter {
    greeting: String,
}

impl Greeter {
    fn greeting(&self) -> &str {
        &self.greeting
    }

    #[tool]
    async fn greet(&self, cx: Cx) -> ToolResult {
        let name: Name = cx.elicit(format!("{}, who are you?", self.greeting())).await?;
        Ok(text(format!("{} {}", self.greeting, name.name)))
    }
}

fn main() {
    let greeter = Greeter {
        greeting: "Hello".to_owned(),
    };
    assert!(Server::builder().state(greeter).tool(Greeter::greet).try_build().is_ok());
}
