//! Flat elicitation forms: the [`ElicitForm`](crate::ElicitForm) schema and answer validation.
