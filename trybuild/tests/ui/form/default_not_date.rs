use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Trip {
    #[form(format = "date", default = "2026-02-29")]
    start: String,
}

fn main() {}
