use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Age {
    #[form(format = "date")]
    years: u8,
}

fn main() {}
