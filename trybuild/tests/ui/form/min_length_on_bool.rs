use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Confirm {
    #[form(min_length = 1)]
    ok: bool,
}

fn main() {}
