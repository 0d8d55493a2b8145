use mcp_runtime::{Cx, tool};

#[tool]
async fn greet(cx: Cx) {
    let _ = cx;
}

fn main() {}
