use mcp_runtime::{Cx, ToolResult, text, tool};

#[tool(icon(mime_type = "image/png"))]
async fn icon_without_src(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(icon(src = "ftp://example.com/a.png"))]
async fn icon_from_ftp(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(icon(src = "https://example.com/a.png", theme = "blue"))]
async fn icon_of_another_theme(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(icon(src = "https://example.com/a.png", sizes = ["48"]))]
async fn icon_size_without_height(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(icon(src = "https://example.com/a.png", mime_type = "text/html"))]
async fn icon_not_an_image(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

#[tool(icon(src = "https://example.com/a.png", alt = "a sun"))]
async fn icon_unknown_key(cx: Cx) -> ToolResult {
    let _ = cx;
    Ok(text("ok"))
}

fn main() {}
