use mcp_runtime::elicit;

#[elicit]
async fn confirm(question: String) -> bool {
    question.is_empty()
}

fn main() {}
