//! Transports: Streamable HTTP and stdio.
