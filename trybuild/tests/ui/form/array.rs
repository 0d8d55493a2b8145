use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Code {
    digits: [u8; 4],
}

fn main() {}
