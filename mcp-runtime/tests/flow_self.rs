//! Handlers and sub-flows declared in an `impl` block whose bodies name `Self`: its associated
//! functions and constants, a `Self` value, and a sub-flow called as `Self::name`, with
//! questions before and after, and without any; and handlers taking `State<Self>` and
//! `&self`. Each runs round by round through the server's own dispatch (a prompt through its
//! own).

#![warn(clippy::pedantic)]

use mcp_runtime::protocol::{GetPromptResult, PromptMessage, Role};
use mcp_runtime::server::Server;
use mcp_runtime::testing::FlowTester;
use mcp_runtime::{Cx, PromptResult, Refusal, State, ToolResult, elicit, prompt, text, tool};
use serde_json::json;

#[path = "common/answers.rs"]
mod answers;

use answers::{Args, Word, Yes, answered, args, finish, word, yes};

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
struct Meters(u32);

impl Meters {
    const UNIT: &'static str = "m";

    fn label(self) -> String {
        format!("{}{}", self.0, Self::UNIT)
    }

    /// Asks whether to double, by `Self`.
    #[elicit]
    async fn doubled(cx: &Cx, of: Self) -> Result<Self, Refusal> {
        let sure = cx.elicit::<Yes>(format!("Double {}?", of.label())).await?;
        Ok(if sure.ok { Self(of.0 * 2) } else { of })
    }

    /// Measures the items, asking about each, through `Self`'s helpers.
    #[tool]
    async fn measure(args: Args, cx: Cx) -> ToolResult {
        let mut total = Self(args.start);
        for item in &args.items {
            let length = Self(u32::try_from(item.len()).unwrap_or(u32::MAX));
            total = Self(total.0 + Self::doubled(&cx, length).await?.0);
        }
        let unit: Word = cx.elicit(format!("Unit, not {}?", Self::UNIT)).await?;
        Ok(text(format!("{} ({})", total.label(), unit.word)))
    }

    /// Names `Self` and asks nothing; its `?` converts an error of its own.
    #[tool]
    async fn unit(args: Args, cx: Cx) -> ToolResult {
        let _ = cx;
        let scale: u32 = args.items.first().map_or("1", String::as_str).parse()?;
        Ok(text(Self(args.start * scale).label()))
    }

    /// Names `Self` beside a `let` under `#[cfg]`: each copy of the handler takes its step
    /// with it.
    #[tool]
    async fn scaled(args: Args, cx: Cx) -> ToolResult {
        let scale = args.start;
        #[cfg(test)]
        let scale = scale * 10;
        let sure: Yes = cx.elicit("Scale?").await?;
        #[cfg(not(test))]
        let scale = 0;
        Ok(text(Self(if sure.ok { scale } else { 1 }).label()))
    }

    /// Takes the registered `Meters` as `State<Self>`, its body naming no `Self`.
    #[tool]
    async fn registered(cx: Cx, State(meters): State<Self>) -> ToolResult {
        let sure: Yes = cx.elicit("Show?").await?;
        Ok(text(format!("{} {}", meters.label(), sure.ok)))
    }

    /// Takes the registered `Meters` as `&self`, before and after questions and in a loop.
    #[tool]
    async fn added(&self, args: Args, cx: Cx) -> ToolResult {
        let mut total = self.0;
        for item in &args.items {
            if cx
                .elicit::<Yes>(format!("Add {item} to {}?", self.label()))
                .await?
                .ok
            {
                total += u32::try_from(item.len()).unwrap_or(0);
            }
        }
        let unit = cx.elicit::<Word>("Unit?").await?;
        let copied: Self = *self;
        let sum = Self::sum(copied, Self(total));
        Ok(text(format!("{} {} {}", sum.label(), unit.word, copied.0)))
    }

    fn sum(self, other: Self) -> Self {
        Self(self.0 + other.0)
    }

    /// Takes `&self` and reads nothing of it.
    #[tool]
    async fn ignored(&self, cx: Cx) -> ToolResult {
        let said = cx.elicit::<Word>("Word?").await?;
        Ok(text(said.word))
    }

    /// A prompt that names `Self` after a question.
    #[prompt]
    async fn describe(cx: Cx) -> PromptResult {
        let said: Word = cx.elicit("How long?").await?;
        let length = Self(u32::try_from(said.word.len()).unwrap_or(0));
        Ok(GetPromptResult {
            messages: vec![PromptMessage::text(Role::User, length.label())],
            ..GetPromptResult::default()
        })
    }
}

#[tokio::test]
async fn a_tool_in_an_impl_block_names_self_across_questions_and_sub_flows() {
    let answers = [yes(true), yes(false), word("metric")];
    let out = answered(Meters::measure, args(1, &["ab", "xyz"]), &answers).await;
    assert_eq!(out, "8m (metric)", "1 + 2*2 + 3");
}

#[tokio::test]
async fn a_tool_that_asks_nothing_names_self() {
    let out = answered(Meters::unit, args(2, &["3"]), &[]).await;
    assert_eq!(out, "6m");
    let failed = FlowTester::tool(Meters::unit)
        .arguments(args(2, &["three"]))
        .start()
        .await;
    assert!(
        failed
            .text()
            .is_some_and(|text| text.contains("invalid digit")),
        "{failed}"
    );
}

#[tokio::test]
async fn a_tool_in_an_impl_block_names_self_beside_a_let_under_cfg() {
    let out = answered(Meters::scaled, args(2, &[]), &[yes(true)]).await;
    assert_eq!(out, "20m");
}

#[tokio::test]
async fn a_tool_in_an_impl_block_takes_its_type_as_state_by_self() {
    let tester = FlowTester::tool(Meters::registered).state(Meters(7));
    assert_eq!(finish(tester, &[yes(true)]).await, "7m true");
    let server = Server::builder().tool(Meters::registered).try_build();
    let refused = server.err().map(|error| error.to_string());
    assert!(
        refused
            .as_deref()
            .is_some_and(|error| error.contains("Meters")),
        "{refused:?}"
    );
}

#[tokio::test]
async fn a_tool_taking_self_reads_the_registered_value_each_round() {
    let tester = FlowTester::tool(Meters::added)
        .arguments(args(0, &["ab", "xyz"]))
        .state(Meters(5));
    let done = finish(tester, &[yes(true), yes(false), word("metric")]).await;
    assert_eq!(done, "12m metric 5", "5 + (5 + 2)");
    let server = Server::builder().tool(Meters::added).try_build();
    assert!(server.is_err(), "no `Meters` given to the server");
}

#[tokio::test]
async fn a_tool_taking_self_and_reading_none_of_it() {
    let tester = FlowTester::tool(Meters::ignored).state(Meters(1));
    assert_eq!(finish(tester, &[word("w")]).await, "w");
}

#[tokio::test]
async fn a_prompt_in_an_impl_block_names_self_after_a_question() {
    let rounds = FlowTester::prompt(Meters::describe)
        .script([json!({"said": {"action": "accept", "content": {"word": "four"}}})])
        .await;
    assert_eq!(rounds[0].questions(), ["said"]);
    let messages = rounds[1].result().and_then(|result| result.get("messages"));
    assert_eq!(
        messages,
        Some(&json!([{"role": "user", "content": {"type": "text", "text": "4m"}}]))
    );
}
