use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Size {
    Small,
    Custom(u32),
}

fn main() {}
