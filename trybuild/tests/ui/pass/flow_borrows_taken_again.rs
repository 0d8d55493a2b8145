//! Borrows that a question separates from their use: taken again where the flow resumes,
//! from the place they borrow, with no warning on the handler as written.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};
use serde::Deserialize;

#[derive(ElicitForm)]
struct Name {
    name: String,
}

#[derive(Deserialize, schemars::JsonSchema)]
struct Args {
    name: String,
    nick: Option<String>,
    items: Vec<String>,
}

#[tool]
async fn borrow_of_a_local(cx: Cx) -> ToolResult {
    let greeting = String::from("Hello");
    let hello = &greeting;
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{hello}, {}", name.name)))
}

#[tool]
async fn typed_borrow_of_a_local(cx: Cx) -> ToolResult {
    let greeting = String::from("Hello");
    let hello: &str = &greeting;
    let name: Name = cx.elicit("Who are you?").await?;
    Ok(text(format!("{hello}, {}", name.name)))
}

#[tool]
async fn lent_by_a_method(args: Args, cx: Cx) -> ToolResult {
    let name = args.name.as_str();
    let nick = args.nick.as_deref().unwrap_or("none").trim();
    let go: Name = cx.elicit("Go?").await?;
    Ok(text(format!("{name} {nick} {}", go.name)))
}

#[tool]
async fn patterns_that_borrow(args: Args, cx: Cx) -> ToolResult {
    let mut said = Vec::new();
    if let Some(nick) = &args.nick
        && let Some(first) = args.items.first()
    {
        let name: Name = cx.elicit(format!("{nick}, {first}?")).key("both").await?;
        said.push(format!("{nick} {first} {}", name.name));
    }
    match args.items.as_slice() {
        [only] => {
            let name: Name = cx.elicit(format!("Only {only}?")).key("only").await?;
            said.push(format!("{only} {}", name.name));
        }
        [first, .., last] => {
            let name: Name = cx.elicit(format!("{first} to {last}?")).key("range").await?;
            said.push(format!("{first}-{last} {}", name.name));
        }
        [] => {}
    }
    let Some(last) = args.items.last() else {
        return Ok(text("no items"));
    };
    let name: Name = cx.elicit(format!("After {last}?")).key("after").await?;
    said.push(format!("{last} {}", name.name));
    Ok(text(said.join("; ")))
}

#[derive(ElicitForm)]
struct Pick {
    index: u32,
}

#[tool]
async fn collected_borrows(cx: Cx) -> ToolResult {
    let line = String::from("red,green,blue");
    let parts: Vec<&str> = line.split(',').collect();
    let pick: Pick = cx.elicit(format!("Which of {}?", parts.len())).await?;
    Ok(text(parts[pick.index as usize]))
}

fn main() {}
