//! Wire types of MCP revision 2026-07-28: plain serde data, no behaviour.

pub mod elicitation;
pub mod tag;

pub use elicitation::{
    BooleanSchema, ElicitAction, ElicitRequestFormParams, ElicitRequestParams,
    ElicitRequestUrlParams, ElicitRequestedSchema, ElicitResult, ElicitValue,
    LegacyTitledEnumSchema, NumberKind, NumberSchema, PrimitiveSchema, StringFormat, StringSchema,
    TitledItems, TitledMultiSelectEnumSchema, TitledOption, TitledSingleSelectEnumSchema,
    UntitledItems, UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
pub use tag::{ArrayTag, BooleanTag, JsonRpcVersion, ObjectTag, StringTag};
