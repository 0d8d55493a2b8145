//! The `http` fuzz target: see `mcp_fuzz::targets::http`.

#![cfg_attr(feature = "libfuzzer", no_main)]

mcp_fuzz::fuzz_main!(mcp_fuzz::targets::http::TARGET);
