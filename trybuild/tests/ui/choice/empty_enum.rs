use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Nothing {}

fn main() {}
