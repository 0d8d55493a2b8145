use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[tool]
async fn greet(cx: Cx) -> ToolResult {
    let prefix: String = String::from("Dear");
    let line = {
        let name: Name = cx.elicit("Who are you?").await?;
        let inner: String = format!("{prefix} {}", name.name);
        {
            let confirm: Confirm = cx.elicit(format!("Is \"{inner}\" right?")).await?;
            if confirm.ok { inner } else { prefix }
        }
    };
    Ok(text(line))
}

fn main() {
    let _ = Server::builder().tool(greet).build();
}
