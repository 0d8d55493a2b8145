use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
#[form(title = "Deployment")]
struct Target {
    region: String,
}

fn main() {}
