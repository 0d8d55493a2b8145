//! What was wrong with accepted form content, field by field.

use std::fmt;

/// One field of accepted content that does not fit the form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field's wire name (after any `rename`).
    pub field: String,
    /// What the form asks for, e.g. `an integer from 1 to 12`.
    pub expected: String,
    /// What came instead, e.g. `` `13` `` or `nothing`.
    pub got: String,
}

impl FieldError {
    /// An error on `field`: `expected` is what the form asks for, `got` what came.
    pub fn new(
        field: impl Into<String>,
        expected: impl Into<String>,
        got: impl Into<String>,
    ) -> Self {
        Self {
            field: field.into(),
            expected: expected.into(),
            got: got.into(),
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "`{}`: expected {}, got {}",
            self.field, self.expected, self.got
        )
    }
}

impl std::error::Error for FieldError {}

/// Every field error found in one piece of accepted content, in field order.
///
/// Displays one error per line: `` `field`: expected ..., got ... ``.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FormErrors {
    errors: Vec<FieldError>,
}

impl FormErrors {
    /// No errors yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one error.
    pub fn push(&mut self, error: FieldError) {
        self.errors.push(error);
    }

    /// Whether no error was found.
    pub fn is_empty(&self) -> bool {
        self.errors.is_empty()
    }

    /// How many fields are wrong.
    pub fn len(&self) -> usize {
        self.errors.len()
    }

    /// The errors, in field order.
    pub fn errors(&self) -> &[FieldError] {
        &self.errors
    }

    /// The error on the field with wire name `field`, if any.
    pub fn field(&self, field: &str) -> Option<&FieldError> {
        self.errors.iter().find(|error| error.field == field)
    }

    /// The errors, in field order.
    pub fn iter(&self) -> std::slice::Iter<'_, FieldError> {
        self.errors.iter()
    }
}

impl From<FieldError> for FormErrors {
    fn from(error: FieldError) -> Self {
        Self {
            errors: vec![error],
        }
    }
}

impl From<Vec<FieldError>> for FormErrors {
    fn from(errors: Vec<FieldError>) -> Self {
        Self { errors }
    }
}

impl IntoIterator for FormErrors {
    type Item = FieldError;
    type IntoIter = std::vec::IntoIter<FieldError>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.into_iter()
    }
}

impl<'a> IntoIterator for &'a FormErrors {
    type Item = &'a FieldError;
    type IntoIter = std::slice::Iter<'a, FieldError>;

    fn into_iter(self) -> Self::IntoIter {
        self.errors.iter()
    }
}

impl fmt::Display for FormErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (index, error) in self.errors.iter().enumerate() {
            if index > 0 {
                f.write_str("\n")?;
            }
            fmt::Display::fmt(error, f)?;
        }
        Ok(())
    }
}

impl std::error::Error for FormErrors {}
