use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Scale {
    #[form(minimum = 1, maximum = 12, default = 20)]
    replicas: u32,
}

fn main() {}
