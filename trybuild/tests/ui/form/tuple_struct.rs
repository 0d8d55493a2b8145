use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Name(String);

fn main() {}
