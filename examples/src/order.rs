//! The `order` tool: a loop that collects items, then a shared confirmation sub-flow.

use mcp_runtime::{Cx, ElicitForm, Refusal, ToolResult, elicit, text, tool};
use serde::{Deserialize, Serialize};

/// One line of the order, as the user fills it in.
#[derive(Debug, ElicitForm)]
pub struct LineItem {
    /// What to order.
    #[form(min_length = 1, max_length = 80)]
    pub product: String,
    /// How many.
    #[form(minimum = 1, maximum = 99, default = 1)]
    pub quantity: u32,
    /// Add another item after this one?
    pub more: bool,
}

/// One line of the order, as it travels in the request state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Line {
    /// What.
    pub product: String,
    /// How many.
    pub quantity: u32,
}

/// A yes-or-no answer.
#[derive(Debug, ElicitForm)]
pub struct Confirm {
    /// Go ahead?
    pub ok: bool,
}

/// Asks the user to confirm `question`; any flow can await it.
#[elicit]
pub async fn confirm(cx: &Cx, question: String) -> Result<bool, Refusal> {
    let answer: Confirm = cx.elicit(question).await?;
    Ok(answer.ok)
}

/// Take an order: asks for items one by one until the user is done, then confirms the total.
#[tool(
    title = "Take an order",
    annotations(destructive = false, idempotent = false, open_world)
)]
pub async fn order(cx: Cx) -> ToolResult {
    let mut lines: Vec<Line> = Vec::new();
    loop {
        let item: LineItem = cx
            .elicit(format!("Item {} of your order?", lines.len() + 1))
            .await?;
        lines.push(Line {
            product: item.product,
            quantity: item.quantity,
        });
        if !item.more {
            break;
        }
    }
    let total: u32 = lines.iter().map(|line| line.quantity).sum();
    let placed: bool = confirm(&cx, format!("Place the order for {total} items?")).await?;
    if !placed {
        return Ok(text("Order dropped; nothing was placed."));
    }
    let summary: Vec<String> = lines
        .iter()
        .map(|line| format!("{} x {}", line.quantity, line.product))
        .collect();
    Ok(text(format!(
        "Ordered {total} items: {}.",
        summary.join(", ")
    )))
}

#[cfg(test)]
mod tests {
    use mcp_runtime::testing::FlowTester;

    use super::{Confirm, LineItem, order};

    fn item(product: &str, quantity: u32, more: bool) -> LineItem {
        LineItem {
            product: product.to_owned(),
            quantity,
            more,
        }
    }

    /// Two items, then the sub-flow's confirmation, asked under the caller's key.
    #[tokio::test]
    async fn two_items_are_ordered_once_confirmed() {
        let first = FlowTester::tool(order).start().await;
        let second = first
            .answer_form("item", &item("coffee beans", 2, true))
            .await;
        let confirm = second
            .answer_form("item", &item("filter papers", 1, false))
            .await;
        assert_eq!(confirm.questions(), ["placed.answer"], "{confirm}");
        let done = confirm
            .answer_form("placed.answer", &Confirm { ok: true })
            .await;
        assert_eq!(
            done.text(),
            Some("Ordered 3 items: 2 x coffee beans, 1 x filter papers.")
        );
    }
}
