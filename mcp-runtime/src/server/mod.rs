//! The server: handler registry, dispatch and the stateless lifecycle.
