use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
#[choice(enum_names)]
#[choice(rename_all = "lowercase", enum_names)]
enum Size {
    #[choice(title = "Small")]
    Small,
    Large,
}

fn main() {}
