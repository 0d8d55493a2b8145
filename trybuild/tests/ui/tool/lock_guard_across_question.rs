use std::sync::Mutex;

use mcp_runtime::{Cx, ElicitForm, State, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(Default)]
struct Guests(Mutex<Vec<String>>);

#[tool]
async fn invite(State(guests): State<Guests>, cx: Cx) -> ToolResult {
    let mut list = guests.0.lock().unwrap();
    let who: Name = cx.elicit("Who comes?").await?;
    list.push(who.name);
    Ok(text(format!("{} guests", list.len())))
}

fn main() {}
