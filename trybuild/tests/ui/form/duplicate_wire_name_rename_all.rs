use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
#[form(rename_all = "camelCase")]
struct Contact {
    user_name: String,
    userName: String,
}

fn main() {}
