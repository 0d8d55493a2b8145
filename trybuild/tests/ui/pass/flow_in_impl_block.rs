//! Handlers as associated functions of an `impl` block, and a handler more visible than its
//! arguments type: the function is all the macro makes visible, so neither is refused.

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, State, ToolResult, elicit, text, tool};

struct Service {
    name: &'static str,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct PrivateArgs {
    who: String,
}

#[derive(ElicitForm)]
struct Ok {
    ok: bool,
}

impl Service {
    /// Greets, as an associated function.
    #[tool]
    pub async fn greet(args: PrivateArgs, cx: Cx, State(service): State<Service>) -> ToolResult {
        let sure: bool = Service::confirm(&cx).await?;
        Ok(text(format!("{} greets {}: {sure}", service.name, args.who)))
    }

    /// A sub-flow, as an associated function.
    #[elicit]
    async fn confirm(cx: &Cx) -> Result<bool, mcp_runtime::Refusal> {
        let answer: Ok = cx.elicit("Sure?").await?;
        Ok(answer.ok)
    }
}

/// More visible than its arguments type.
#[tool]
pub(crate) async fn visible(args: PrivateArgs, cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text(args.who))
}

fn main() {
    let server = Server::builder()
        .state(Service { name: "svc" })
        .tool(Service::greet)
        .tool(visible)
        .try_build();
    assert!(server.is_ok());
}
