use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Link {
    #[form(format = "uri", default = "example.com/home".to_owned())]
    home: Option<String>,
}

fn main() {}
