use mcp_runtime::{Cx, ElicitForm, ToolResult, text, tool};

#[derive(ElicitForm)]
struct Keep {
    ok: bool,
}

/// A collection that can be iterated but not copied.
#[derive(serde::Serialize, serde::Deserialize)]
struct Names(Vec<String>);

impl IntoIterator for Names {
    type Item = String;
    type IntoIter = std::vec::IntoIter<String>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

#[tool]
async fn review(cx: Cx) -> ToolResult {
    let names: Names = Names(vec!["a".to_owned()]);
    let mut kept: Vec<String> = Vec::new();
    for name in names {
        let keep: Keep = cx.elicit(format!("Keep {name}?")).await?;
        if keep.ok {
            kept.push(name);
        }
    }
    Ok(text(kept.join(",")))
}

fn main() {}
