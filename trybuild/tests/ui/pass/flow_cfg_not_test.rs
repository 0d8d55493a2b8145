//! The flows of `mcp-runtime/tests/flow_cfg.rs` built without `cfg(test)`, as every build but
//! a test one sees them: the `#[cfg(not(test))]` side compiles, and runs as its checks expect.

#[path = "../../../../mcp-runtime/tests/common/answers.rs"]
mod answers;
#[path = "../../../../mcp-runtime/tests/common/cfg_flows.rs"]
mod cfg_flows;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async {
        cfg_flows::lets_under_cfg_that_hide_locals_across_two_questions().await;
        cfg_flows::literal_lets_under_cfg_are_carried_as_the_one_built().await;
        cfg_flows::a_let_under_cfg_in_a_loop_runs_once_each_time_round().await;
        cfg_flows::statements_that_ask_under_cfg_ask_only_where_built().await;
        cfg_flows::a_sub_flow_with_a_let_under_cfg().await;
    });
}
