use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Target {
    #[form(max_length = "20")]
    region: String,
}

fn main() {}
