//! A local that travels across a question while a pattern binding of its name hides it
//! there (a `for` variable, an `if let`, a `match` arm): the handler compiles as written,
//! with no warning.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[tool]
async fn tally(cx: Cx) -> ToolResult {
    let item = String::from("total");
    let mut count = 0;
    for item in ["a", "b"] {
        let keep: Yes = cx.elicit(format!("Keep {item}?")).await?;
        count += u32::from(keep.ok);
    }
    let pick = Some(3_u32);
    if let Some(pick) = &pick {
        let sure: Yes = cx.elicit(format!("Pick {pick}?")).await?;
        count += u32::from(sure.ok);
    }
    match count {
        0 => {}
        item => {
            let again: Yes = cx.elicit(format!("Again {item}?")).await?;
            count += u32::from(again.ok);
        }
    }
    Ok(text(format!("{item}: {count} {pick:?}")))
}

fn main() {}
