use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Target {
    production: bool,
    replicas: u32,
}

#[derive(ElicitForm)]
struct Confirm {
    ok: bool,
}

#[tool]
async fn deploy(cx: Cx) -> ToolResult {
    let target: Target = cx.elicit("Where should it go?").await?;
    let note: String = format!("{} replicas", target.replicas);
    if target.production {
        let confirm: Confirm = cx.elicit(format!("Ship {note} to production?")).await?;
        if !confirm.ok {
            return Ok(text("Nothing deployed."));
        }
    } else {
        println!("staging: no confirmation needed");
    }
    Ok(text(format!("Deployed {note}.")))
}

fn main() {
    let _ = Server::builder().tool(deploy).build();
}
