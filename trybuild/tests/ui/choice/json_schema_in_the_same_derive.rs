use mcp_runtime::ElicitChoice;

// The compiler hands the derive no sibling in its own `#[derive(...)]`: rustc reports the
// second implementation, at `JsonSchema`.
#[derive(Clone, Copy, ElicitChoice, schemars::JsonSchema)]
enum City {
    Tokyo,
    Paris,
}

fn main() {}
