use mcp_runtime::ElicitForm;

#[derive(ElicitForm)]
struct Address {
    street: String,
}

#[derive(ElicitForm)]
struct Order {
    address: Address,
}

fn main() {}
