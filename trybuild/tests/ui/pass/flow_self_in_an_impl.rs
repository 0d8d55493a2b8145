//! A handler and a sub-flow in an `impl` block whose bodies name `Self`: its associated
//! functions and constants, a `Self` value and a `Self` parameter.

use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
struct Service(u32);

impl Service {
    const NAME: &'static str = "service";

    fn name() -> &'static str {
        Self::NAME
    }

    #[elicit]
    async fn bumped(cx: &Cx, from: Self) -> Result<Self, Refusal> {
        let sure: Yes = cx.elicit(format!("Bump {}?", from.0)).await?;
        Ok(Self(from.0 + u32::from(sure.ok)))
    }

    #[tool]
    async fn greet(cx: Cx) -> ToolResult {
        let made: Self = Self(1);
        let bumped = Self::bumped(&cx, made).await?;
        Ok(text(format!("{} {}", Self::name(), bumped.0)))
    }
}

fn main() {
    assert!(Server::builder().tool(Service::greet).try_build().is_ok());
}
