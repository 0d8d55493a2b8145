//! Support shared by the runtime's integration tests; each test binary uses part of it.

#![allow(dead_code)]

pub(crate) mod logs;
pub(crate) mod replay;
