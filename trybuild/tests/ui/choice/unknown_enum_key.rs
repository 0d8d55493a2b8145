use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
#[choice(enum_titles)]
enum Size {
    Small,
    Large,
}

fn main() {}
