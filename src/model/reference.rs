//! What a reference to a ConfigMap or Secret is and finds: the key that names a source
//! (kind, namespace, name), the keys a pod sees through it, how the referrer depends on
//! it, and what it found.

use crate::model::catalog::SourceKind;

/// Kind, namespace and name of a source.
pub type SourceKey = (SourceKind, Option<String>, String);

/// What a reference exposes to the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keys {
    /// Every key (envFrom, a volume without `items`).
    All,
    /// Just these keys (a `*KeyRef`, a volume's `items`).
    Some(Vec<String>),
}

impl Keys {
    /// Whether the pod sees `key` through these keys.
    pub fn covers(&self, key: &str) -> bool {
        match self {
            Keys::All => true,
            Keys::Some(keys) => keys.iter().any(|k| k == key),
        }
    }
}

/// What a reference found: the state `graph` shows and stamping hashes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Found,
    /// Not in the input, and some reference to it is not optional.
    Missing,
    /// Not in the input, but every reference is optional.
    OptionalAbsent,
    /// Marked `config-hash.dev/ignore` (or Reloader's ignore).
    Ignored,
}

impl Status {
    /// The status of a reference to an object: `ignored` is whether it is marked so,
    /// `None` when it is not in the input.
    pub fn of(ignored: Option<bool>, optional: bool) -> Status {
        match ignored {
            Some(true) => Status::Ignored,
            Some(false) => Status::Found,
            None if optional => Status::OptionalAbsent,
            None => Status::Missing,
        }
    }
}

/// How the referrer depends on the object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Via {
    /// The pod template reads it: it is hashed.
    Pod,
    /// A field names it (a Secret of an Ingress, a user-declared reference): renaming
    /// rewrites it, nothing is hashed.
    Name,
    /// A workload annotation names it (`config-hash.dev/extra-secrets`, Reloader's and
    /// wave's lists): the app reads it through the API; it is hashed.
    Extra,
}
