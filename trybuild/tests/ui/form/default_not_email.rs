use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Contact {
    #[form(format = "email", default = "someone at example.com")]
    email: String,
}

fn main() {}
