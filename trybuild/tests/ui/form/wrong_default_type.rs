use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Replicas {
    #[form(default = "two")]
    count: u32,
}

fn main() {}
