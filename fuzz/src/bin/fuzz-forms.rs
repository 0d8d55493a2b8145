//! The `forms` fuzz target: see `mcp_fuzz::targets::forms`.

#![cfg_attr(feature = "libfuzzer", no_main)]

mcp_fuzz::fuzz_main!(mcp_fuzz::targets::forms::TARGET);
