//! Why a prune cannot answer, typed here and worded once.

use crate::model::catalog::DUMP;

/// Why a prune cannot answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneError {
    /// A text is not YAML or JSON.
    Unreadable { what: String, message: String },
    /// The dump lacks a kind the rules need: `kind` names it (plural, as `kubectl get`
    /// takes it), `because` says what showed it.
    MissingKind { kind: String, because: String },
}

impl std::fmt::Display for PruneError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PruneError::Unreadable { what, message } => {
                write!(
                    f,
                    "{what} is not a readable manifest stream or List: {message}"
                )
            }
            PruneError::MissingKind { kind, because } => write!(
                f,
                "the live dump has no {kind}, which prune needs to know what still reads an old object: {because}; dump them all: kubectl get {} -A -o yaml",
                DUMP.join(",")
            ),
        }
    }
}
