use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Tags {
    tags: Vec<String>,
}

fn main() {}
