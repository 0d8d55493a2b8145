use mcp_runtime::{Cx, ElicitForm, tool};

#[derive(ElicitForm)]
struct Yes {
    ok: bool,
}

struct Counter;

impl Counter {
    fn base() -> u32 {
        1
    }

    // A body naming `Self` is stepped beside the handler; a wrong result is still reported
    // at the return type.
    #[tool]
    async fn count(cx: Cx) -> u32 {
        let sure = cx.elicit::<Yes>("Count?").await.map(|yes| yes.ok).unwrap_or(false);
        Self::base() + u32::from(sure)
    }
}

fn main() {}
