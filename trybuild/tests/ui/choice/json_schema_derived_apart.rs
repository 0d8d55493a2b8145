use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
#[derive(schemars::JsonSchema)]
#[choice(rename_all = "lowercase")]
enum City {
    Tokyo,
    Paris,
}

fn main() {}
