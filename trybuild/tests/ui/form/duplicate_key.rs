use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Signup {
    #[form(title = "Email", title = "E-mail")]
    email: String,
}

fn main() {}
