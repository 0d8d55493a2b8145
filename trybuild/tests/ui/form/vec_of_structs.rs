use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Line {
    sku: String,
}

#[derive(ElicitForm)]
struct Order {
    lines: Vec<Line>,
}

fn main() {}
