use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Size {
    #[choice(title = "S", title = "Small")]
    Small,
    Large,
}

fn main() {}
