use std::collections::BTreeSet;

use mcp_runtime::{ElicitChoice, ElicitForm};

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, ElicitChoice)]
enum Tag {
    Fast,
    Cheap,
}

#[derive(ElicitForm)]
struct Pick {
    #[form(min_items = 1, default = BTreeSet::new())]
    tags: BTreeSet<Tag>,
}

fn main() {}
