use mcp_runtime::{Cx, tool};

#[tool]
async fn count(cx: Cx) -> u32 {
    let _ = cx;
    3
}

fn main() {}
