//! A local that travels across a question while a `let` of its name in an inner block hides
//! it there: the handler compiles as written, with no warning, whether the hiding `let` is
//! typed, binds a pattern, gives up in its `else`, takes its value from a question, or stands
//! in a loop.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(ElicitForm)]
struct Word {
    word: String,
}

#[tool]
async fn shadowed(cx: Cx) -> ToolResult {
    let label = String::from("outer");
    let mut total = 0;
    {
        let label = total + 5;
        let go: Yes = cx.elicit("Inner?").await?;
        total += label + i32::from(go.ok);
    }
    Ok(text(format!("{label} {total}")))
}

#[tool]
async fn hidden_every_way(cx: Cx) -> ToolResult {
    let name = String::from("n");
    let pair = (1_u8, 2_u8);
    let count: u32 = 3;
    let mut rounds = 0;
    while rounds < 2 {
        let name: &str = "inner";
        let (left, pair) = (pair.0, u16::from(pair.1));
        let Some(count) = count.checked_sub(1) else {
            break;
        };
        let go: Yes = cx.elicit(format!("{name} {left} {pair} {count}?")).await?;
        if go.ok {
            rounds += 1;
        }
        let count = cx.elicit::<Word>("Again?").key("again").await?.word;
        let _last: Yes = cx.elicit(format!("Last {count}?")).await?;
        rounds += 1;
    }
    Ok(text(format!("{name} {pair:?} {count}")))
}

fn main() {}
