//! Compile-fail and pass cases of `#[derive(ElicitForm)]` and `#[derive(ElicitChoice)]`.

#[test]
fn form_ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/form/*.rs");
    cases.compile_fail("tests/ui/choice/*.rs");
    cases.pass("tests/ui/pass/form_*.rs");
}
