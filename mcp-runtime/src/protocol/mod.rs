//! Wire types of MCP revision 2026-07-28: plain serde data, no behaviour.
