use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Point {
    position: (f64, f64),
}

fn main() {}
