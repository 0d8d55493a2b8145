use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Label {
    #[form(max_length = 8, default = "kubernetes")]
    name: String,
}

fn main() {}
