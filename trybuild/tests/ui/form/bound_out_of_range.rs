use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Level {
    #[form(maximum = 300)]
    level: u8,
}

fn main() {}
