//! Example servers built on `mcp-runtime`; each program is in `src/bin/`, and the handlers
//! they serve are here so tests and benchmarks can use them too.

pub mod deploy;
pub mod order;
pub mod release;
pub mod tracker;
