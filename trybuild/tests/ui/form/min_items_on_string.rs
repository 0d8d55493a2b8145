use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Note {
    #[form(min_items = 1)]
    text: String,
}

fn main() {}
