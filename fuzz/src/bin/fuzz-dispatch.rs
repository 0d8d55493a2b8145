//! The `dispatch` fuzz target: see `mcp_fuzz::targets::dispatch`.

#![cfg_attr(feature = "libfuzzer", no_main)]

mcp_fuzz::fuzz_main!(mcp_fuzz::targets::dispatch::TARGET);
