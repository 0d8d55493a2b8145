use mcp_runtime::{ElicitChoice, ElicitForm};

#[derive(Clone, Copy, ElicitChoice)]
enum Tag {
    Fast,
    Cheap,
    Good,
}

#[derive(ElicitForm)]
struct Pick {
    #[form(max_items = 2, default = vec![Tag::Fast, Tag::Cheap, Tag::Good])]
    tags: Vec<Tag>,
}

fn main() {}
