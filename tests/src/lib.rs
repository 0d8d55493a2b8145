//! End-to-end tests of `mcp-runtime` over real transports live in `tests/`.
