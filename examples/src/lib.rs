//! Example servers built on `mcp-runtime`; each program is in `src/bin/`.
