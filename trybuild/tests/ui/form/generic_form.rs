use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Wrapper<T> {
    value: T,
}

fn main() {}
