use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    email: String,
    #[form(rename = "email")]
    backup_email: String,
}

fn main() {}
