use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn shadowed(cx: Cx) -> ToolResult {
    let label = String::from("outer");
    let mut total = 0;
    {
        let label = total + 5;
        let go: Yes = cx.elicit("Inner?").await?;
        total += label + i32::from(go.ok);
    }
    Ok(text(format!("{label} {total}")))
}

fn main() {}
