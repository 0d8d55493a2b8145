//! The four string formats a form field may declare, checked by the logic the derive also
//! applies to a literal `default` at compile time (the `mcp-formats` crate).

use mcp_formats::Format;

use crate::protocol::StringFormat;

fn shared(format: StringFormat) -> Format {
    match format {
        StringFormat::Email => Format::Email,
        StringFormat::Uri => Format::Uri,
        StringFormat::Date => Format::Date,
        StringFormat::DateTime => Format::DateTime,
    }
}

/// Whether `text` is syntactically valid for `format`.
pub(crate) fn matches(format: StringFormat, text: &str) -> bool {
    shared(format).matches(text)
}

/// What a field of `format` expects, for error messages.
pub(crate) fn describe(format: StringFormat) -> &'static str {
    shared(format).describe()
}
