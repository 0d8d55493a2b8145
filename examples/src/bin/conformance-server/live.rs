//! The hooks the suite's listen checks call to change the lists while a `subscriptions/listen`
//! stream is open: each adds its list's dynamic item when absent and removes it when present,
//! through the server's `Registry`, which announces the change.

use mcp_runtime::server::Registry;
use mcp_runtime::{PromptResult, State, ToolResult, prompt, text, tool};

/// A tool that comes and goes with `test_trigger_tool_change`.
#[tool]
async fn test_dynamic_tool() -> ToolResult {
    Ok(text("Here until the next change."))
}

/// A prompt that comes and goes with `test_trigger_prompt_change`.
#[prompt]
async fn test_dynamic_prompt() -> PromptResult {
    Ok(super::prompt_text("Here until the next change.".into()))
}

/// Adds `test_dynamic_tool` to the tool list, or removes it.
#[tool]
pub async fn test_trigger_tool_change(State(registry): State<Registry>) -> ToolResult {
    if registry.remove_tool("test_dynamic_tool") {
        return Ok(text("Removed test_dynamic_tool."));
    }
    registry.add_tool(test_dynamic_tool)?;
    Ok(text("Added test_dynamic_tool."))
}

/// Adds `test_dynamic_prompt` to the prompt list, or removes it.
#[tool]
pub async fn test_trigger_prompt_change(State(registry): State<Registry>) -> ToolResult {
    if registry.remove_prompt("test_dynamic_prompt") {
        return Ok(text("Removed test_dynamic_prompt."));
    }
    registry.add_prompt(test_dynamic_prompt)?;
    Ok(text("Added test_dynamic_prompt."))
}
