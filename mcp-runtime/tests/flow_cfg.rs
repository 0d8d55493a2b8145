//! Statements under `#[cfg]` among questions: a `let` that may hide the local of its name, a
//! `let` of a literal, one in a loop, a block and a statement that ask, and a sub-flow with a
//! `let` under `#[cfg]`. The handlers (in `common/cfg_flows.rs`) have statements under
//! `#[cfg(test)]`, which these tests build and run, and under `#[cfg(not(test))]`, which the
//! UI pass case `flow_cfg_not_test.rs` builds and runs with the same checks, so both ways are
//! checked. Each flow runs round by round through the server's own dispatch.

#[path = "common/answers.rs"]
mod answers;
#[path = "common/cfg_flows.rs"]
mod cfg_flows;

#[tokio::test]
async fn lets_under_cfg_that_hide_locals_across_two_questions() {
    cfg_flows::lets_under_cfg_that_hide_locals_across_two_questions().await;
}

#[tokio::test]
async fn literal_lets_under_cfg_are_carried_as_the_one_built() {
    cfg_flows::literal_lets_under_cfg_are_carried_as_the_one_built().await;
}

#[tokio::test]
async fn a_let_under_cfg_in_a_loop_runs_once_each_time_round() {
    cfg_flows::a_let_under_cfg_in_a_loop_runs_once_each_time_round().await;
}

#[tokio::test]
async fn statements_that_ask_under_cfg_ask_only_where_built() {
    cfg_flows::statements_that_ask_under_cfg_ask_only_where_built().await;
}

#[tokio::test]
async fn a_sub_flow_with_a_let_under_cfg() {
    cfg_flows::a_sub_flow_with_a_let_under_cfg().await;
}
