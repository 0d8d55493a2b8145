use mcp_runtime::ElicitForm;

type Name = String;

#[derive(ElicitForm)]
struct Person {
    name: Name,
}

fn main() {}
