//! Compile-fail and pass cases of `#[tool]`, `#[prompt]` and `#[resource]`.

#[test]
fn flow_ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/tool/*.rs");
    cases.pass("tests/ui/pass/flow_*.rs");
}
