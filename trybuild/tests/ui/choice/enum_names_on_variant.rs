use mcp_runtime::ElicitChoice;

#[derive(Clone, Copy, ElicitChoice)]
enum Size {
    #[choice(title = "Small", enum_names)]
    Small,
    Large,
}

fn main() {}
