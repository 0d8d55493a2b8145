use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    #[form(format = "phone")]
    phone: String,
}

fn main() {}
