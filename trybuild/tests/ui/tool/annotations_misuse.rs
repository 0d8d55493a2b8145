use mcp_runtime::{Cx, ToolResult, text, tool};

#[tool(annotations(readonly))]
async fn unknown_hint(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(annotations(read_only, read_only = false))]
async fn hint_twice(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(annotations(destructive = "yes"))]
async fn hint_not_a_bool(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(annotations(idempotent), annotations(open_world))]
async fn annotations_twice(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[mcp_runtime::prompt(annotations(read_only))]
async fn prompt_with_annotations(cx: Cx) -> mcp_runtime::PromptResult {
    let _ = cx;
    Ok(Default::default())
}

#[mcp_runtime::resource(uri = "notes://all", annotations(priority = 2.0))]
async fn priority_out_of_range(cx: Cx) -> mcp_runtime::ResourceResult {
    let _ = cx;
    Ok(Default::default())
}

#[mcp_runtime::resource(uri = "notes://one", annotations(audience(model)))]
async fn unknown_role(cx: Cx) -> mcp_runtime::ResourceResult {
    let _ = cx;
    Ok(Default::default())
}

fn main() {}
