use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
enum Answer {
    Yes,
    No,
}

fn main() {}
