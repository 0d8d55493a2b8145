use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice, schemars::JsonSchema)]
#[choice(rename_all = "lowercase")]
#[schemars(rename_all = "lowercase")]
enum City {
    Tokyo,
    Paris,
}

fn main() {}
