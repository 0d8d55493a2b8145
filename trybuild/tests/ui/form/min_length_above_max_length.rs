use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Reason {
    #[form(min_length = 20, max_length = 5)]
    text: String,
}

fn main() {}
