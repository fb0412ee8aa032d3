//! Why an input cannot be read at all: the line and column, and the work limit it
//! reached when that is why.

/// The input is not a ResourceList we can read; reported on stderr, exit 1.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The work limit the input reached, when that is why it was refused.
    pub limit: Option<crate::yaml::Limit>,
}

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl std::error::Error for InputError {}

impl From<crate::yaml::Error> for InputError {
    fn from(e: crate::yaml::Error) -> Self {
        InputError {
            line: e.line(),
            column: e.column(),
            message: e.message(),
            limit: e.limit(),
        }
    }
}
