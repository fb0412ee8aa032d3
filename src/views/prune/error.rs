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

/// A prune error is an error like any other (`?` into `Box<dyn Error>`, anyhow, ...): its
/// words are its `Display`, and it wraps no other error.
impl std::error::Error for PruneError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prune_error_is_a_std_error_worded_by_display() {
        let err: Box<dyn std::error::Error> = Box::new(PruneError::MissingKind {
            kind: "jobs".into(),
            because: "Pod shop/p is owned by Job j, which is not in it".into(),
        });
        assert!(err.source().is_none());
        assert_eq!(
            err.to_string(),
            "the live dump has no jobs, which prune needs to know what still reads an old object: Pod shop/p is owned by Job j, which is not in it; dump them all: kubectl get configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs -A -o yaml"
        );
    }
}
