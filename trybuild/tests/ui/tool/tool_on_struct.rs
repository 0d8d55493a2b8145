use mcp_runtime::tool;

#[tool]
struct Greet {
    name: String,
}

fn main() {}
