use mcp_runtime::ElicitForm;

struct Address;

#[derive(ElicitForm)]
struct Order {
    address: Address,
    backup: Option<Address>,
}

fn main() {}
