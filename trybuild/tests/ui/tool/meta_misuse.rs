use mcp_runtime::{Cx, ToolResult, text, tool};

#[tool(meta = "[1, 2]")]
async fn meta_not_an_object(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(meta = r#"{"io.modelcontextprotocol/owner": "me"}"#)]
async fn meta_reserved_key(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(meta = r#"{"a": 1}"#, meta = r#"{"b": 2}"#)]
async fn meta_twice(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(meta = r#"{"com.example/my key": 1}"#)]
async fn meta_malformed_key(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

fn main() {}
