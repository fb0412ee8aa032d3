//! Whether a live dump can show what still reads an old object: its Pods' and Jobs'
//! owners are in it, its StatefulSets and DaemonSets (and their Pods) have their
//! ControllerRevisions, its Deployments their ReplicaSets and its running ReplicaSets
//! their Pods, and something in it could read a ConfigMap or Secret at all.

use std::collections::HashSet;

use super::dump::{owners, text_at};
use super::error::PruneError;
use crate::model::catalog::SourceKind;
use crate::model::resource::ResourceId;
use crate::yaml::{NodeId, Tree};

/// Owners whose objects the dump must hold beside what they own: (owner kind, the
/// plural to dump). A Pod of a ReplicaSet, a Pod or Job of a Job or CronJob.
const OWNERS: &[(&str, &str)] = &[
    ("ReplicaSet", "replicasets"),
    ("Job", "jobs"),
    ("CronJob", "cronjobs"),
];

/// Kinds whose old templates live in ControllerRevisions.
const REVISIONED: &[&str] = &["StatefulSet", "DaemonSet"];

/// Refuses a dump that cannot show what still reads an old object, naming the kind it
/// lacks.
pub(super) fn check(objects: &[(&Tree<'_>, NodeId)]) -> Result<(), PruneError> {
    let present = Present::of(objects);
    owners_present(objects, &present)?;
    revisions_present(objects, &revisioned(objects))?;
    replica_sets_and_pods_present(objects, &present)?;
    something_reads(objects, &present)
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
fn owners_present(objects: &[(&Tree<'_>, NodeId)], present: &Present) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        if id.kind() == "ControllerRevision" {
            continue;
        }
        for owner in owners(tree, item) {
            let Some((_, plural)) = OWNERS.iter().find(|(k, _)| *k == owner.kind) else {
                continue;
            };
            if !present.holds(&owner.uid, &owner.kind, id.namespace(), &owner.name) {
                return Err(PruneError::MissingKind {
                    kind: plural,
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
        if id.kind() != "ControllerRevision" {
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
) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        // A Pod of a StatefulSet or DaemonSet, or the object itself.
        let owner = owners(tree, item)
            .into_iter()
            .find(|o| REVISIONED.contains(&o.kind.as_str()));
        let (kind, name, uid) = match owner {
            Some(o) => (o.kind, o.name, o.uid),
            None if REVISIONED.contains(&id.kind()) => (
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
                kind: "controllerrevisions",
                because: format!(
                    "{id} belongs to {kind} {name}, whose revisions (what a rollback restores) are not in it"
                ),
            });
        }
    }
    Ok(())
}

/// A Deployment has ReplicaSets in the dump, and a ReplicaSet that runs Pods has Pods.
fn replica_sets_and_pods_present(
    objects: &[(&Tree<'_>, NodeId)],
    present: &Present,
) -> Result<(), PruneError> {
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        if id.kind() == "Deployment" && !present.has_kind("ReplicaSet") {
            return Err(PruneError::MissingKind {
                kind: "replicasets",
                because: format!(
                    "it holds {id}, whose ReplicaSets (old ones included) are not in it"
                ),
            });
        }
        let replicas = text_at(tree, item, &["status", "replicas"]);
        if id.kind() == "ReplicaSet"
            && replicas.parse::<u64>().is_ok_and(|n| n > 0)
            && !present.has_kind("Pod")
        {
            return Err(PruneError::MissingKind {
                kind: "pods",
                because: format!("{id} runs {replicas} Pod(s), and none is in it"),
            });
        }
    }
    Ok(())
}

/// A dump holding ConfigMaps or Secrets holds something that could read them.
fn something_reads(objects: &[(&Tree<'_>, NodeId)], present: &Present) -> Result<(), PruneError> {
    let hashed = objects.iter().any(|&(tree, item)| {
        let id = ResourceId::of(tree, item);
        SourceKind::from_kind(id.api_version(), id.kind()).is_some()
    });
    let readers = ["Pod", "ReplicaSet", "ControllerRevision", "Job", "CronJob"];
    if hashed && !readers.iter().any(|k| present.has_kind(k)) {
        return Err(PruneError::MissingKind {
            kind: "pods, replicasets, controllerrevisions, jobs or cronjobs",
            because: "it holds ConfigMaps or Secrets and nothing that could read them".to_string(),
        });
    }
    Ok(())
}
