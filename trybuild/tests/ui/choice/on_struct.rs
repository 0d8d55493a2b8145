use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
struct Size {
    value: u8,
}

fn main() {}
