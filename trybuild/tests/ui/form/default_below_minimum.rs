use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Tune {
    #[form(minimum = -5, default = -6)]
    offset: Option<i8>,
}

fn main() {}
