use mcp_runtime::server::Server;
use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(ElicitForm)]
struct Colour {
    colour: String,
}

#[tool]
async fn survey(cx: Cx) -> ToolResult {
    let (name, colour) = (
        cx.elicit::<Name>("Who are you?"),
        cx.elicit::<Colour>("Favourite colour?"),
    )
        .await;
    let name: Name = name?;
    let colour: Colour = colour?;
    let (again, other) = (
        cx.elicit::<Name>("Anyone else?"),
        cx.elicit::<Colour>("Their colour?"),
    )
        .await;
    Ok(text(format!(
        "{} likes {}; also {}",
        name.name, colour.colour, again?.name
    )))
}

fn main() {
    let _ = Server::builder().tool(survey).build();
}
