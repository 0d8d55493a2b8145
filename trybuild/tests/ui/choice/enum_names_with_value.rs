use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
#[choice(enum_names = true)]
enum Size {
    #[choice(title = "Small")]
    Small,
    Large,
}

fn main() {}
