//! The `state` fuzz target: see `mcp_fuzz::targets::state`.

#![cfg_attr(feature = "libfuzzer", no_main)]

mcp_fuzz::fuzz_main!(mcp_fuzz::targets::state::TARGET);
