//! Expansion snapshot of a representative handler, reviewed like code.
//!
//! The expansion of `deploy` (`tests/snapshots/deploy.input.rs`) is pretty-printed and
//! compared with the committed file `tests/snapshots/deploy.expanded.rs`. After a deliberate change to the macro's output,
//! regenerate it with `UPDATE_SNAPSHOTS=1 cargo test -p mcp-macros --lib snapshot_tests`
//! and review the diff like code.

use proc_macro2::TokenStream;
use quote::quote;

use super::{Kind, expand};

/// The snapshot's input, `tests/snapshots/deploy.input.rs` (which the `mcp-tests` crate also
/// compiles through the macro), without its `#[tool]`.
fn deploy() -> TokenStream {
    let mut function: syn::ItemFn =
        syn::parse_str(include_str!("../../tests/snapshots/deploy.input.rs"))
            .expect("the snapshot's input is a function");
    function.attrs.retain(|attr| !attr.path().is_ident("tool"));
    quote!(#function)
}

/// The expansion of `#[tool(attr)] item`, pretty-printed.
fn pretty(kind: Kind, attr: TokenStream, item: TokenStream) -> String {
    let out = expand(kind, attr, item);
    let file: syn::File = match syn::parse2(out.clone()) {
        Ok(file) => file,
        Err(error) => panic!("the expansion does not parse as items: {error}\n{out}"),
    };
    prettyplease::unparse(&file)
}

fn check(name: &str, actual: &str) {
    let path = format!(
        "{}/tests/snapshots/{name}.expanded.rs",
        env!("CARGO_MANIFEST_DIR")
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1") {
        std::fs::write(&path, actual).expect("the snapshot file is writable");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_else(|error| {
        panic!("cannot read `{path}` ({error}); create it with `UPDATE_SNAPSHOTS=1`")
    });
    if expected != actual {
        let first = expected
            .lines()
            .zip(actual.lines())
            .position(|(e, a)| e != a)
            .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
        panic!(
            "the expansion of `{name}` differs from its snapshot from line {}; review the \
             change and regenerate with `UPDATE_SNAPSHOTS=1`\n\n--- actual ---\n{actual}",
            first + 1
        );
    }
}

#[test]
fn deploy_expansion_matches_snapshot() {
    let actual = pretty(Kind::Tool, TokenStream::new(), deploy());
    check("deploy", &actual);
}

#[test]
fn expansion_is_deterministic() {
    let first = pretty(Kind::Tool, TokenStream::new(), deploy());
    let second = pretty(Kind::Tool, TokenStream::new(), deploy());
    assert_eq!(first, second);
}
