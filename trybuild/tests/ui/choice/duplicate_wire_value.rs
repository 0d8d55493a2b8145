use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Size {
    Small,
    #[choice(rename = "Small")]
    Tiny,
}

fn main() {}
