use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

// Compiled once for each way `debug_assertions` falls: each error is reported once.
#[tool]
async fn sized(cx: Cx) -> ToolResult {
    let size = 3;
    #[cfg(debug_assertions)]
    let size = size * 2;
    let label = match size {
        n if n > 2 && cx.elicit::<Yes>("Call it large?").await?.ok => "large",
        _ => "small",
    };
    Ok(text(label))
}

// The body's own errors are the compiler's, for the copy it builds.
#[tool]
async fn locked(cx: Cx) -> ToolResult {
    let count = std::rc::Rc::new(1);
    #[cfg(not(debug_assertions))]
    let count = 7;
    let sure = cx.elicit::<Yes>("Sure?").await?;
    Ok(text(format!("{count} {}", sure.ok)))
}

fn main() {}
