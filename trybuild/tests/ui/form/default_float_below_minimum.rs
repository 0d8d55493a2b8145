use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Mix {
    #[form(minimum = 0.5, maximum = 2, default = 0.25)]
    ratio: f64,
}

fn main() {}
