use mcp_runtime::elicit;

#[elicit]
struct Confirm {
    ok: bool,
}

fn main() {}
