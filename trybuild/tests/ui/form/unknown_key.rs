use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Signup {
    #[form(placeholder = "you@example.com")]
    email: String,
}

fn main() {}
