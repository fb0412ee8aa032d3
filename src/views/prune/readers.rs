//! What the live objects read: every ConfigMap or Secret each names at a reference site
//! of the catalog (read by the one walker, [`references::names_given`]), and the first
//! object found naming it, with the field. An object outside Kubernetes' own API groups
//! is also read by shape ([`references::by_shape`]): the catalog knows every field of
//! Kubernetes' own kinds that can name one, but of a custom kind only the rows declared
//! for it, and a custom resource left unread (an Argo CronWorkflow's containers) would
//! let prune list what it reads. Reading too much only keeps more; refusing such a dump
//! instead would only teach users to leave the kind out of it.

use std::collections::BTreeMap;

use crate::model::catalog::{Catalog, SourceKind, group_of, mentions};
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
            let mut named = references::names_given(tree, item, &id, catalog);
            if !mentions::BUILTIN_GROUPS.contains(&group_of(id.api_version())) {
                named.extend(references::by_shape(tree, item, &id, catalog));
            }
            let named = named
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
