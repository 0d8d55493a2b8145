use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
#[choice(enum_names("Small", "Large"))]
enum Size {
    Small,
    Large,
}

fn main() {}
