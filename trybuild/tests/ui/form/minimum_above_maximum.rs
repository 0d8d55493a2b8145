use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Replicas {
    #[form(minimum = 10, maximum = 2)]
    count: u32,
}

fn main() {}
