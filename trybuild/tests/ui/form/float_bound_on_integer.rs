use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Level {
    #[form(minimum = 0.5)]
    level: u32,
}

fn main() {}
