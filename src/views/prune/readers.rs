//! What the live objects read: every ConfigMap or Secret each names at a reference site
//! of the catalog (read by the one walker, [`references::names_given`]), and the first
//! object found naming it, with the field.

use std::collections::BTreeMap;

use crate::model::catalog::{Catalog, SourceKind};
use crate::model::reference::SourceKey;
use crate::model::resource::ResourceId;
use crate::read::references;
use crate::yaml::{NodeId, Tree};

/// A live object naming a ConfigMap or Secret, and the field where it does.
pub(super) type Reader = (ResourceId, String);

/// Every name the live objects give, with its first reader.
#[derive(Debug, Default)]
pub(super) struct Readers {
    /// Names given in a namespace.
    by_key: BTreeMap<SourceKey, Reader>,
    /// Names given for any namespace (from a cluster-scoped object).
    anywhere: BTreeMap<(SourceKind, String), Reader>,
}

impl Readers {
    pub(super) fn of(objects: &[(&Tree<'_>, NodeId)], catalog: &Catalog) -> Readers {
        let mut out = Readers::default();
        for &(tree, item) in objects {
            let id = ResourceId::of(tree, item);
            let named = references::names_given(tree, item, &id, catalog)
                .into_iter()
                .filter(|n| matches!(n.kind, SourceKind::ConfigMap | SourceKind::Secret));
            for references::Named {
                kind,
                namespace,
                any_namespace,
                name,
                field,
            } in named
            {
                if any_namespace {
                    out.anywhere
                        .entry((kind, name))
                        .or_insert((id.clone(), field));
                } else {
                    out.by_key
                        .entry(SourceKey {
                            kind,
                            namespace,
                            name,
                        })
                        .or_insert((id.clone(), field));
                }
            }
        }
        out
    }

    /// The first live object naming this object, if any does.
    pub(super) fn of_object(
        &self,
        kind: SourceKind,
        namespace: Option<&str>,
        name: &str,
    ) -> Option<&Reader> {
        self.by_key
            .get(&SourceKey::new(kind, namespace, name))
            .or_else(|| self.anywhere.get(&(kind, name.to_string())))
    }
}
