//! How much the request state of a loop weighs against what it carries, and how long a round
//! that resumes from it takes.
//!
//! Run with `cargo bench -p mcp-examples --bench state_size`. The `order` flow collects ten
//! items; the state it hands out while asking for the eleventh carries those ten lines. The
//! figure compared is the JSON of those ten lines alone. Budget: the state is at most that
//! JSON, plus a third of it (base64), plus 100 bytes of envelope. The round's time (verify,
//! decode, run to the next question, encode and sign again) is the median of 15 batches.

use std::time::Instant;

use mcp_examples::order::{Line, order};
use mcp_runtime::testing::FlowTester;
use serde_json::json;

const ITEMS: usize = 10;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime starts");
    let lines: Vec<Line> = (0..ITEMS)
        .map(|i| Line {
            product: format!("product {i}"),
            quantity: u32::try_from(i).unwrap_or(0) + 1,
        })
        .collect();
    let answers = lines.iter().map(|line| {
        json!({"item": {"action": "accept", "content": {
            "product": line.product, "quantity": line.quantity, "more": true
        }}})
    });
    let rounds = runtime.block_on(FlowTester::tool(order).script(answers));
    let last = rounds.last().expect("the script ran");
    assert_eq!(
        last.questions(),
        ["item"],
        "the flow asks for item {}",
        ITEMS + 1
    );

    let payload = serde_json::to_vec(&lines).expect("lines serialise").len();
    let state = last.state_size();
    let budget = payload + payload.div_ceil(3) + 100;
    let envelope = state.saturating_sub(payload);
    println!("{ITEMS} collected items as JSON:      {payload:>5} bytes");
    println!("request state carrying them:        {state:>5} bytes");
    println!(
        "envelope (state - items):           {envelope:>5} bytes = {:.0} + a third of the items ({})",
        envelope as f64 - payload as f64 / 3.0,
        payload.div_ceil(3)
    );
    println!(
        "budget (items + a third + 100):     {budget:>5} bytes: {}",
        if state <= budget {
            "within budget"
        } else {
            "OVER BUDGET"
        }
    );

    // The round that resumes from that state, answered with the eleventh item.
    let answer = json!({"item": {"action": "accept", "content": {
        "product": "last", "quantity": 1, "more": true
    }}});
    const BATCH: u32 = 200;
    let mut batches: Vec<f64> = (0..15)
        .map(|_| {
            let started = Instant::now();
            for _ in 0..BATCH {
                let round = runtime.block_on(last.answer(answer.clone()));
                assert_eq!(round.questions(), ["item"], "{round}");
            }
            started.elapsed().as_secs_f64() * 1e6 / f64::from(BATCH)
        })
        .collect();
    batches.sort_by(f64::total_cmp);
    println!("a round resumed from it:            {:>5.1} µs", batches[7]);
}
