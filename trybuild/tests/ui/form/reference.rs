use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Greeting {
    name: &'static str,
}

fn main() {}
