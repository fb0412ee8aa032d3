//! What a reference to a ConfigMap or Secret is and finds: the key that names a source
//! (kind, namespace, name), the keys a pod sees through it, how the referrer depends on
//! it, and what it found.

use std::borrow::Borrow;
use std::hash::{Hash, Hasher};

use crate::model::catalog::SourceKind;

/// A ConfigMap, Secret or SecretProviderClass by kind, namespace and name: how every
/// command finds a source, and sorts them (by kind, then namespace, then name).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceKey {
    pub kind: SourceKind,
    pub namespace: Option<String>,
    pub name: String,
}

impl SourceKey {
    pub fn new(kind: SourceKind, namespace: Option<&str>, name: &str) -> SourceKey {
        SourceKey {
            kind,
            namespace: namespace.map(str::to_string),
            name: name.to_string(),
        }
    }
}

/// A [`SourceKey`] that borrows its strings: what a look-up in a table keyed by
/// [`SourceKey`] builds, so that it copies no name (a large input looks sources up
/// several times per workload).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SourceRef<'a> {
    pub kind: SourceKind,
    pub namespace: Option<&'a str>,
    pub name: &'a str,
}

/// A key or its borrowed view: a `HashMap<SourceKey, _>` is searched by either (through
/// `Borrow<dyn Lookup>`), both hashing as the same [`SourceRef`].
pub trait Lookup {
    fn source_ref(&self) -> SourceRef<'_>;
}

impl Lookup for SourceKey {
    fn source_ref(&self) -> SourceRef<'_> {
        SourceRef {
            kind: self.kind,
            namespace: self.namespace.as_deref(),
            name: &self.name,
        }
    }
}

impl Lookup for SourceRef<'_> {
    fn source_ref(&self) -> SourceRef<'_> {
        *self
    }
}

// A key hashes as its view, so that a table of keys finds a view by hash.
impl Hash for SourceKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source_ref().hash(state);
    }
}

impl Hash for dyn Lookup + '_ {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.source_ref().hash(state);
    }
}

impl PartialEq for dyn Lookup + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.source_ref() == other.source_ref()
    }
}

impl Eq for dyn Lookup + '_ {}

impl<'a> Borrow<dyn Lookup + 'a> for SourceKey {
    fn borrow(&self) -> &(dyn Lookup + 'a) {
        self
    }
}

/// What a reference exposes to the pod.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
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
    /// Not in the input, and published by the cluster itself in every namespace
    /// (`kube-root-ca.crt`): there, and not hashed.
    Cluster,
}

impl Status {
    /// The status of a reference to an object: `ignored` is whether it is marked so,
    /// `None` when it is not in the input.
    pub fn of(ignored: Option<bool>, optional: bool) -> Status {
        Status::of_named(ignored, optional, false)
    }

    /// [`Status::of`] for an object the cluster may publish (`published`: its kind and
    /// name are one the cluster publishes in every namespace).
    pub fn of_named(ignored: Option<bool>, optional: bool, published: bool) -> Status {
        match ignored {
            None if published => Status::Cluster,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_cover_what_the_pod_sees() {
        let some = Keys::Some(vec!["a".into(), "b".into()]);
        assert!(some.covers("a") && some.covers("b"));
        assert!(!some.covers("c") && !some.covers(""));
        assert!(Keys::All.covers("anything"));
        assert!(!Keys::Some(Vec::new()).covers("a"));
    }

    #[test]
    fn a_table_of_keys_is_searched_by_borrowed_views() {
        use std::collections::HashMap;
        let keys = [
            SourceKey::new(SourceKind::ConfigMap, None, "a"),
            SourceKey::new(SourceKind::ConfigMap, Some(""), "a"),
            SourceKey::new(SourceKind::ConfigMap, Some("shop"), "a"),
            SourceKey::new(SourceKind::Secret, Some("shop"), "a"),
            SourceKey::new(SourceKind::Secret, Some("shop"), "ab"),
        ];
        let table: HashMap<SourceKey, usize> = keys
            .iter()
            .cloned()
            .enumerate()
            .map(|(i, k)| (k, i))
            .collect();
        for (i, key) in keys.iter().enumerate() {
            let view = key.source_ref();
            assert_eq!(table.get(&view as &dyn Lookup), Some(&i), "{view:?}");
            assert_eq!(table.get(key as &dyn Lookup), Some(&i));
        }
        // A name split differently between namespace and name is another key.
        let shifted = SourceRef {
            kind: SourceKind::Secret,
            namespace: Some("shopa"),
            name: "b",
        };
        assert_eq!(table.get(&shifted as &dyn Lookup), None);
        let other_kind = SourceRef {
            kind: SourceKind::Secret,
            namespace: None,
            name: "a",
        };
        assert_eq!(table.get(&other_kind as &dyn Lookup), None);
        // A table compares what it finds under a hash: a view equals its own key only.
        for (i, a) in keys.iter().enumerate() {
            for (j, b) in keys.iter().enumerate() {
                let (a, b): (&dyn Lookup, &dyn Lookup) = (a, &b.source_ref());
                assert_eq!(a == b, i == j, "{:?} {:?}", a.source_ref(), b.source_ref());
            }
        }
    }

    #[test]
    fn source_keys_sort_by_kind_then_namespace_then_name() {
        let mut keys = [
            SourceKey::new(SourceKind::Secret, None, "a"),
            SourceKey::new(SourceKind::ConfigMap, Some("b"), "a"),
            SourceKey::new(SourceKind::ConfigMap, None, "z"),
            SourceKey::new(SourceKind::ConfigMap, Some("a"), "z"),
        ];
        keys.sort();
        let names: Vec<(SourceKind, Option<&str>, &str)> = keys
            .iter()
            .map(|k| (k.kind, k.namespace.as_deref(), k.name.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                (SourceKind::ConfigMap, None, "z"),
                (SourceKind::ConfigMap, Some("a"), "z"),
                (SourceKind::ConfigMap, Some("b"), "a"),
                (SourceKind::Secret, None, "a"),
            ]
        );
        assert_ne!(
            SourceKey::new(SourceKind::Secret, None, "a"),
            SourceKey::new(SourceKind::Secret, Some(""), "a")
        );
    }
}
