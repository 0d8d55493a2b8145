use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Label {
    #[form(min_length = 3, default = String::from("ab"))]
    name: String,
}

fn main() {}
