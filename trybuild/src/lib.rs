//! Compile-fail UI tests of the `mcp-runtime` macros live in `tests/`.
