use mcp_runtime::{Cx, ToolResult, text, tool};

struct Service;

impl Service {
    fn name() -> &'static str {
        "service"
    }

    #[tool]
    async fn greet(cx: Cx) -> ToolResult {
        let _ = cx;
        let made: Self = Service;
        let _ = made;
        Ok(text(Self::name()))
    }
}

fn main() {}
