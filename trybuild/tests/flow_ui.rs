//! Compile-fail and pass cases of `#[tool]`, `#[prompt]`, `#[resource]` and `#[elicit]`.

#[test]
fn flow_ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/tool/*.rs");
    cases.compile_fail("tests/ui/elicit/*.rs");
    cases.pass("tests/ui/pass/flow_*.rs");
}
