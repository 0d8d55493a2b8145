use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Wait {
    delay: std::time::Duration,
}

fn main() {}
