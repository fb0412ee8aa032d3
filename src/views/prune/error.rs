//! Why a prune cannot answer, typed here and worded once.

use crate::model::catalog::DUMP;

/// Why a prune cannot answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneError {
    /// A text is not YAML or JSON.
    Unreadable { what: String, message: String },
    /// The dump cannot show every reader of an old version: the kinds it lacks, in the
    /// order found.
    Incomplete { missing: Vec<Missing> },
}

/// A kind a dump lacks, and what showed that it must hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// As `kubectl get` takes it (`replicasets`, `cronworkflow.argoproj.io`).
    pub resource: String,
    /// The first evidence found: `Pod shop/web-1 is owned by ReplicaSet web-7d, which is
    /// not in it`.
    pub because: String,
}

impl PruneError {
    /// What to dump instead: every kind a dump holds ([`DUMP`]) and those it lacked.
    pub fn dump_command(&self) -> Option<String> {
        let PruneError::Incomplete { missing } = self else {
            return None;
        };
        let mut kinds: Vec<&str> = DUMP.to_vec();
        for m in missing {
            if !kinds.contains(&m.resource.as_str()) {
                kinds.push(&m.resource);
            }
        }
        Some(format!("kubectl get {} -A -o yaml", kinds.join(",")))
    }
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
            PruneError::Incomplete { missing } => {
                let kinds: Vec<&str> = missing.iter().map(|m| m.resource.as_str()).collect();
                let because: Vec<&str> = missing.iter().map(|m| m.because.as_str()).collect();
                write!(
                    f,
                    "the live dump has no {}, which prune needs to know what still reads an old object: {}; dump them all: {}",
                    kinds.join(", "),
                    because.join("; "),
                    self.dump_command().unwrap_or_default()
                )
            }
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
        let err: Box<dyn std::error::Error> = Box::new(PruneError::Incomplete {
            missing: vec![Missing {
                resource: "jobs".into(),
                because: "Pod shop/p is owned by Job j, which is not in it".into(),
            }],
        });
        assert!(err.source().is_none());
        assert_eq!(
            err.to_string(),
            "the live dump has no jobs, which prune needs to know what still reads an old object: Pod shop/p is owned by Job j, which is not in it; dump them all: kubectl get configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs -A -o yaml"
        );
    }

    /// Every kind it lacks is named with its evidence, and the command to dump them adds
    /// those a dump does not hold already.
    #[test]
    fn an_incomplete_dump_names_every_kind_it_lacks() {
        let err = PruneError::Incomplete {
            missing: vec![
                Missing {
                    resource: "replicasets".into(),
                    because: "a".into(),
                },
                Missing {
                    resource: "cronworkflow.argoproj.io".into(),
                    because: "b".into(),
                },
            ],
        };
        assert_eq!(
            err.to_string(),
            "the live dump has no replicasets, cronworkflow.argoproj.io, which prune needs to know what still reads an old object: a; b; dump them all: kubectl get configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs,cronworkflow.argoproj.io -A -o yaml"
        );
        let unreadable = PruneError::Unreadable {
            what: "live.yaml".into(),
            message: "bad".into(),
        };
        assert_eq!(unreadable.dump_command(), None);
    }
}
