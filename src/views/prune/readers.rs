//! What the live objects read: every ConfigMap or Secret each names at a reference site
//! of the catalog, and the first object found naming it, with the field.

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
            for (kind, namespace, any, name, field) in names_read(tree, item, &id, catalog) {
                if any {
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

/// Every ConfigMap or Secret `item` names at a reference site of the catalog: its pod
/// template's (a workload's, or one recorded for a rollback, as a ControllerRevision's), its annotation
/// sites (on the object and on its pod template), and its kind's name sites, as
/// (kind, namespace, any namespace, name, field).
fn names_read(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
) -> Vec<(SourceKind, Option<String>, bool, String, String)> {
    let mut out = Vec::new();
    let mut template = catalog
        .workload(id.api_version(), id.kind())
        .and_then(|w| tree.get_path(item, &references::path_strs(&w.template)));
    // A pod template recorded, not run (a ControllerRevision's): what a rollback runs.
    let recorded = catalog
        .lineage(id.api_version(), id.kind())
        .and_then(|row| row.records.as_ref());
    if let Some(path) = recorded {
        template = tree.get_path(item, &references::path_strs(path));
        if let Some(spec) = template.and_then(|t| tree.get(t, "spec")) {
            let spec_path = format!("{}.spec", path.dotted());
            for r in references::find_all(tree, spec, &spec_path, &catalog.pod_sites) {
                out.push((
                    r.kind,
                    id.namespace().map(str::to_string),
                    false,
                    r.name,
                    r.field,
                ));
            }
        }
    }
    for r in references::name_refs(tree, item, id, catalog) {
        if let Some(name) = tree.str(r.node) {
            let (namespace, name) = match (r.form, name.split_once('/')) {
                (crate::model::catalog::Form::MaybeNamespaced, Some((ns, n))) => {
                    (Some(ns.to_string()), n)
                }
                _ => (r.namespace.clone(), name),
            };
            out.push((
                r.kind,
                namespace,
                r.any_namespace,
                name.to_string(),
                r.field,
            ));
        }
    }
    let holders = std::iter::once(item).chain(template.filter(|&t| t != item));
    for holder in holders {
        let (refs, _) = references::find_annotations(tree, holder, &catalog.annotation_sites);
        for r in refs {
            let namespace = r.namespace.or_else(|| id.namespace().map(str::to_string));
            out.push((r.kind, namespace, false, r.name, r.field));
        }
    }
    out.retain(|(kind, ..)| matches!(kind, SourceKind::ConfigMap | SourceKind::Secret));
    out
}
