//! Multi-round flows: the per-request context, questions and answers, and the driver.
