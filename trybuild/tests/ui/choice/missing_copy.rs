use mcp_runtime::ElicitChoice;

#[derive(ElicitChoice)]
enum Size {
    Small,
    Large,
}

fn main() {}
