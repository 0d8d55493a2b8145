//! The request-state codec: signed, bound, expiring continuation tokens.
