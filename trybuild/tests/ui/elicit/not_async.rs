use mcp_runtime::{Cx, elicit};

#[elicit]
fn confirm(cx: &Cx) -> bool {
    let _ = cx;
    true
}

fn main() {}
