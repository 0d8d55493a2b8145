//! A binding that hides the local of its name while reading it, with a question in its
//! scope and the hidden local used after it: a trimmed `let`, a `for` variable trimmed in
//! the loop, an `if let` over `as_mut()`, a `match` arm over `as_deref()`, and a sub-flow's
//! argument. The handlers compile as written, with no warning.
#![deny(warnings)]

use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Args {
    name: String,
    lines: Vec<String>,
}

#[tool]
async fn tidy(args: Args, cx: Cx) -> ToolResult {
    let name = args.name.clone();
    let name = name.trim();
    let sure: Yes = cx.elicit(format!("Use {name}?")).await?;
    let mut kept = Vec::new();
    for line in &args.lines {
        let line = line.trim();
        let keep: Yes = cx.elicit(format!("Keep {line}?")).await?;
        if keep.ok {
            kept.push(line.to_owned());
        }
    }
    let mut last = kept.last().cloned();
    if let Some(last) = last.as_mut() {
        let loud: Yes = cx.elicit("Loud?").await?;
        if loud.ok {
            last.make_ascii_uppercase();
        }
    }
    let label = match last.as_deref() {
        Some(last) => {
            let again: Yes = cx.elicit(format!("Again {last}?")).await?;
            format!("{last}{}", if again.ok { "+" } else { "" })
        }
        None => String::new(),
    };
    println!("{last:?}");
    Ok(text(format!("{name} {} {} {label}", sure.ok, kept.len())))
}

/// Asks `question`, trimmed, twice.
#[elicit]
async fn ask_trimmed(cx: &Cx, question: String) -> Result<bool, Refusal> {
    let question = question.trim();
    let first: Yes = cx.elicit(question.to_owned()).await?;
    let again: Yes = cx.elicit(format!("Sure about {question}?")).await?;
    Ok(first.ok && again.ok)
}

#[tool]
async fn twice(cx: Cx) -> ToolResult {
    let tea = ask_trimmed(&cx, " tea ".to_owned()).await?;
    Ok(text(tea.to_string()))
}

fn main() {}
