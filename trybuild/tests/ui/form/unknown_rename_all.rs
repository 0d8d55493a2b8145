use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
#[form(rename_all = "Camel")]
struct Target {
    region_name: String,
}

fn main() {}
