use mcp_runtime::ElicitForm;

use std::collections::HashMap;

#[derive(ElicitForm)]
struct Settings {
    values: HashMap<String, String>,
}

fn main() {}
