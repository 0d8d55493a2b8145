//! What the stages' unit tests share: an expected body, as the tokens a stage's output is
//! compared with.

use quote::ToTokens;
use syn::Block;

/// `body`, parsed as a block and printed again: the tokens a stage's output prints as.
pub(super) fn tokens(body: &str) -> String {
    let block: Block = syn::parse_str(body).expect("the expected body parses");
    block.to_token_stream().to_string()
}
