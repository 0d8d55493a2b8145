use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitChoice, ElicitForm, ToolResult, text, tool};

#[derive(Clone, Copy, PartialEq, Eq, ElicitChoice)]
enum Size {
    Small,
    Large,
}

#[derive(ElicitForm)]
struct Order {
    size: Size,
}

#[derive(ElicitForm)]
struct Extra {
    cheese: bool,
}

#[derive(ElicitForm)]
struct Count {
    slices: u32,
}

#[tool]
async fn order(cx: Cx) -> ToolResult {
    let choice: Order = cx.elicit("What size?").await?;
    let label: String = match choice.size {
        Size::Small => "small".to_owned(),
        Size::Large => "large".to_owned(),
    };
    let summary = match choice.size {
        Size::Small => {
            let extra: Extra = cx.elicit("Extra cheese?").await?;
            format!("{label}, cheese: {}", extra.cheese)
        }
        Size::Large => {
            let count: Count = cx.elicit("How many slices?").await?;
            format!("{label}, {} slices", count.slices)
        }
    };
    Ok(text(summary))
}

fn main() {
    let _ = Server::builder().tool(order).build();
}
