use mcp_runtime::ElicitForm;

use std::collections::BTreeSet;

#[derive(ElicitForm)]
struct Picks {
    numbers: BTreeSet<u32>,
}

fn main() {}
