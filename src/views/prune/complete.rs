//! Whether a live dump can show what still reads an old object: its Pods' and Jobs'
//! owners are in it, its StatefulSets and DaemonSets (and their Pods) have their
//! ControllerRevisions, its Deployments their ReplicaSets and its running ReplicaSets
//! their Pods, and something in it could read a ConfigMap or Secret at all.

use std::collections::HashSet;

use super::dump::{owners, text_at};
use super::error::PruneError;
use crate::model::catalog::{Catalog, KeptIn, Lineage, SourceKind};
use crate::model::resource::ResourceId;
use crate::yaml::{NodeId, Tree};

/// The kind that keeps the old pod templates of StatefulSets and DaemonSets: their
/// revisions are found by owner.
const REVISION: &str = "ControllerRevision";

/// Refuses a dump that cannot show what still reads an old object, naming the kind it
/// lacks.
pub(super) fn check(objects: &[(&Tree<'_>, NodeId)], catalog: &Catalog) -> Result<(), PruneError> {
    let present = Present::of(objects);
    owners_present(objects, &present, catalog)?;
    revisions_present(objects, &revisioned(objects), catalog)?;
    replica_sets_and_pods_present(objects, &present, catalog)?;
    something_reads(objects, &present, catalog)
}

/// Whether a row's kind keeps its pod templates in objects of `kind` that it owns.
fn kept_in(row: &Lineage, kind: &str) -> bool {
    matches!(&row.kept_in, KeptIn::Owned(k) if k == kind)
}

/// An owner that the dump must hold beside what it owns: a kind that keeps its own pod
/// template (not one that records another's), as `kubectl get` takes it.
fn owner_resource<'c>(catalog: &'c Catalog, kind: &'c str) -> Option<&'c str> {
    catalog
        .lineage_of_kind(kind)
        .find(|row| row.kept_in == KeptIn::Itself && row.records.is_none())
        .map(|row| row.resource.as_str())
}

/// A kind whose old pod templates live in ControllerRevisions it owns.
fn revisioned_kind(catalog: &Catalog, kind: &str) -> bool {
    catalog
        .lineage_of_kind(kind)
        .any(|row| kept_in(row, REVISION))
}

/// What the dump holds: (kind, namespace, name) and uids.
struct Present {
    names: HashSet<(String, Option<String>, String)>,
    uids: HashSet<String>,
    /// Looked up per object: a set, so a large dump stays linear.
    kinds: HashSet<String>,
}

impl Present {
    fn of(objects: &[(&Tree<'_>, NodeId)]) -> Present {
        let mut names = HashSet::new();
        let mut uids = HashSet::new();
        for &(tree, item) in objects {
            let uid = text_at(tree, item, &["metadata", "uid"]);
            if !uid.is_empty() {
                uids.insert(uid);
            }
            names.insert(ResourceId::of(tree, item).kind_namespace_name());
        }
        let kinds = names.iter().map(|(k, _, _)| k.clone()).collect();
        Present { names, uids, kinds }
    }

    fn has_kind(&self, kind: &str) -> bool {
        self.kinds.contains(kind)
    }

    /// The object of this uid (when it has one) or kind, namespace and name is there.
    fn holds(&self, uid: &str, kind: &str, namespace: Option<&str>, name: &str) -> bool {
        (!uid.is_empty() && self.uids.contains(uid))
            || self.names.contains(&(
                kind.to_string(),
                namespace.map(str::to_string),
                name.to_string(),
            ))
    }
}

/// Every Pod or Job whose owner (a ReplicaSet, Job or CronJob) must be in the dump has
/// it there.
fn owners_present(
    objects: &[(&Tree<'_>, NodeId)],
    present: &Present,
    catalog: &Catalog,
) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        if id.kind() == REVISION {
            continue;
        }
        for owner in owners(tree, item) {
            let Some(plural) = owner_resource(catalog, &owner.kind) else {
                continue;
            };
            if !present.holds(&owner.uid, &owner.kind, id.namespace(), &owner.name) {
                return Err(PruneError::MissingKind {
                    kind: plural.to_string(),
                    because: format!(
                        "{id} is owned by {} {}, which is not in it",
                        owner.kind, owner.name
                    ),
                });
            }
        }
    }
    Ok(())
}

/// The owners that have a ControllerRevision in the dump, by uid and by
/// `kind/namespace/name`.
fn revisioned(objects: &[(&Tree<'_>, NodeId)]) -> HashSet<String> {
    let mut out = HashSet::new();
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        if id.kind() != REVISION {
            continue;
        }
        for owner in owners(tree, item) {
            out.insert(revision_key(&owner.kind, id.namespace(), &owner.name));
            out.insert(owner.uid);
        }
    }
    out
}

fn revision_key(kind: &str, namespace: Option<&str>, name: &str) -> String {
    format!("{kind}/{namespace:?}/{name}")
}

/// Every StatefulSet or DaemonSet, and every Pod of one, has ControllerRevisions (what a
/// rollback restores) in the dump.
fn revisions_present(
    objects: &[(&Tree<'_>, NodeId)],
    revisioned: &HashSet<String>,
    catalog: &Catalog,
) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        // A Pod of a StatefulSet or DaemonSet, or the object itself.
        let owner = owners(tree, item)
            .into_iter()
            .find(|o| revisioned_kind(catalog, &o.kind));
        let (kind, name, uid) = match owner {
            Some(o) => (o.kind, o.name, o.uid),
            None if revisioned_kind(catalog, id.kind()) => (
                id.kind().to_string(),
                id.name().to_string(),
                text_at(tree, item, &["metadata", "uid"]),
            ),
            None => continue,
        };
        let found = (!uid.is_empty() && revisioned.contains(&uid))
            || revisioned.contains(&revision_key(&kind, id.namespace(), &name));
        if !found {
            return Err(PruneError::MissingKind {
                kind: resource_of(catalog, REVISION),
                because: format!(
                    "{id} belongs to {kind} {name}, whose revisions (what a rollback restores) are not in it"
                ),
            });
        }
    }
    Ok(())
}

/// The kind as `kubectl get` takes it.
fn resource_of(catalog: &Catalog, kind: &str) -> String {
    catalog
        .lineage_of_kind(kind)
        .next()
        .map_or_else(|| kind.to_lowercase(), |row| row.resource.clone())
}

/// A Deployment has ReplicaSets in the dump, and a ReplicaSet that runs Pods has Pods.
fn replica_sets_and_pods_present(
    objects: &[(&Tree<'_>, NodeId)],
    present: &Present,
    catalog: &Catalog,
) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        let Some(row) = catalog.lineage_of_kind(id.kind()).next() else {
            continue;
        };
        if let KeptIn::Owned(history) = &row.kept_in {
            if history != REVISION && !present.has_kind(history) {
                return Err(PruneError::MissingKind {
                    kind: resource_of(catalog, history),
                    because: format!(
                        "it holds {id}, whose {history}s (old ones included) are not in it"
                    ),
                });
            }
        }
        let Some(pods) = &row.pods else {
            continue;
        };
        let replicas = text_at(tree, item, &crate::read::references::path_strs(pods));
        if replicas.parse::<u64>().is_ok_and(|n| n > 0) && !present.has_kind("Pod") {
            return Err(PruneError::MissingKind {
                kind: "pods".to_string(),
                because: format!("{id} runs {replicas} Pod(s), and none is in it"),
            });
        }
    }
    Ok(())
}

/// A dump holding ConfigMaps or Secrets holds something that could read them.
fn something_reads(
    objects: &[(&Tree<'_>, NodeId)],
    present: &Present,
    catalog: &Catalog,
) -> Result<(), PruneError> {
    let hashed = objects.iter().any(|&(tree, item)| {
        let id = ResourceId::of(tree, item);
        SourceKind::from_kind(id.api_version(), id.kind()).is_some()
    });
    // Pods, and every kind that keeps a pod template in itself.
    let readers: Vec<&Lineage> = catalog
        .lineage
        .iter()
        .filter(|row| row.kept_in == KeptIn::Itself)
        .collect();
    let any = present.has_kind("Pod") || readers.iter().any(|row| present.has_kind(&row.kind));
    if hashed && !any {
        let mut kinds: Vec<&str> = readers.iter().map(|row| row.resource.as_str()).collect();
        kinds.insert(0, "pods");
        let last = kinds.pop().unwrap_or("pods");
        return Err(PruneError::MissingKind {
            kind: format!("{} or {last}", kinds.join(", ")),
            because: "it holds ConfigMaps or Secrets and nothing that could read them".to_string(),
        });
    }
    Ok(())
}
