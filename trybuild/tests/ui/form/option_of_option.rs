use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Maybe {
    value: Option<Option<String>>,
}

fn main() {}
