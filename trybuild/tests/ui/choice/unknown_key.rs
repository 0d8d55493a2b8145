use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Size {
    #[choice(label = "S")]
    Small,
    Large,
}

fn main() {}
