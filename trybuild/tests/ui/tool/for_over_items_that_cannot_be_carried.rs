use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Keep {
    ok: bool,
}

/// A connection: no state can hold it.
struct Conn {
    name: String,
}

fn connections() -> Vec<Conn> {
    vec![Conn { name: "a".to_owned() }]
}

#[tool]
async fn review(cx: Cx) -> ToolResult {
    let mut kept: Vec<String> = Vec::new();
    for conn in connections() {
        let keep: Keep = cx.elicit(format!("Keep {}?", conn.name)).await?;
        if keep.ok {
            kept.push(conn.name);
        }
    }
    Ok(text(kept.join(",")))
}

fn main() {}
