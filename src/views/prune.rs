//! Rollback-safe cleanup of hashed names, without talking to a cluster: from the render
//! being applied and a dump of live objects, the hashed ConfigMaps and Secrets that are
//! safe to delete. Safe means all of: it has a hashed name (config-hash's base-name
//! annotation, or a kustomize suffix) on a base name the render has, in its namespace;
//! the render no longer holds it; no live Pod, ReplicaSet, ControllerRevision, Job or CronJob (nor any
//! other object in the dump) names it at any reference site of the catalog; and it is
//! not among the newest `keep` old versions of its base name. Nothing is deleted here.

use std::collections::{BTreeMap, HashSet};

use crate::model::catalog::{Catalog, SourceKind, annotations};
use crate::model::name_hash;
use crate::model::reference::SourceKey;
use crate::model::resource::{ResourceId, annotation};
use crate::model::settings::Settings;
use crate::read::references;
use crate::yaml::{NodeId, Tree};

/// What a prune reads besides the texts.
#[derive(Debug, Clone)]
pub struct Options {
    /// How many of the newest old versions of each base name to keep.
    pub keep: usize,
    /// The run's settings: the catalog's reference sites (with the rows the configuration
    /// adds) are what "reads it" means, and the configuration's namespace is the one
    /// render objects written without one are applied to (`None`: they stand for an
    /// object of that name in any namespace).
    pub settings: Settings,
}

/// One hashed object of the live dump, and what the rules made of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Old {
    pub kind: SourceKind,
    pub namespace: Option<String>,
    pub name: String,
    /// The name before the hash.
    pub base: String,
    /// `metadata.creationTimestamp` as written (RFC 3339, so it sorts as text).
    pub created: Option<String>,
    /// `None`: safe to delete.
    pub kept: Option<Kept>,
}

/// Why a hashed object is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kept {
    /// The render holds it: it is the current version.
    InRender,
    /// A live object names it (the first found, and the field).
    ReadBy { by: ResourceId, field: String },
    /// Another object owns it, and its garbage collector deletes it with its owner.
    Owned { by: String },
    /// One of the newest `keep` old versions of its base name (1 is the newest).
    Newest { rank: usize },
}

/// Why a prune cannot answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PruneError {
    /// A text is not YAML or JSON.
    Unreadable { what: String, message: String },
    /// The dump lacks a kind the rules need: `kind` names it (plural, as `kubectl get`
    /// takes it), `because` says what showed it.
    MissingKind { kind: &'static str, because: String },
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
                "the live dump has no {kind}, which prune needs to know what still reads an old object: {because}; dump them all: kubectl get {DUMP_KINDS} -A -o yaml"
            ),
        }
    }
}

/// The kinds a dump must hold, as `kubectl get` takes them.
pub const DUMP_KINDS: &str =
    "configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs";

/// Where a ControllerRevision keeps the pod template it recorded for a StatefulSet or
/// DaemonSet (what a rollback restores): a revision is not a workload to stamp, so this
/// is not a catalog row; the catalog's pod sites are read below it all the same.
const REVISION_TEMPLATE: &[&str] = &["data", "spec", "template"];

/// Owners whose objects the dump must hold beside what they own: (owner kind, the
/// plural to dump). A Pod of a ReplicaSet, a Pod or Job of a Job or CronJob.
const OWNERS: &[(&str, &str)] = &[
    ("ReplicaSet", "replicasets"),
    ("Job", "jobs"),
    ("CronJob", "cronjobs"),
];

/// Kinds whose old templates live in ControllerRevisions.
const REVISIONED: &[&str] = &["StatefulSet", "DaemonSet"];

/// The objects of several texts, each a stream of documents; a `List` (what `kubectl
/// get -o yaml` writes) or a `ResourceList` stands for its items.
struct Objects<'t> {
    trees: Vec<Tree<'t>>,
}

impl<'t> Objects<'t> {
    fn read(texts: &'t [(String, String)]) -> Result<Objects<'t>, PruneError> {
        let trees = texts
            .iter()
            .map(|(what, text)| {
                crate::yaml::parse(text).map_err(|e| PruneError::Unreadable {
                    what: what.clone(),
                    message: crate::read::input_error::InputError::from(e).to_string(),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Objects { trees })
    }

    fn each(&self) -> Vec<(&Tree<'t>, NodeId)> {
        let mut out = Vec::new();
        for tree in &self.trees {
            for doc in tree.documents() {
                let root = doc.root();
                if !tree.is_map(root) {
                    continue;
                }
                let kind = tree.get(root, "kind").and_then(|k| tree.str(k));
                match kind {
                    Some("List" | "ResourceList") if tree.get(root, "items").is_some() => {
                        for item in tree
                            .get(root, "items")
                            .into_iter()
                            .flat_map(|i| tree.items(i))
                        {
                            if tree.is_map(item) {
                                out.push((tree, item));
                            }
                        }
                    }
                    _ => out.push((tree, root)),
                }
            }
        }
        out
    }
}

/// The old hashed objects of `live` with what the rules made of each, newest first per
/// base name; those with `kept: None` are safe to delete. `render` and `live` are
/// (description, text) pairs.
pub fn plan(
    render: &[(String, String)],
    live: &[(String, String)],
    options: &Options,
) -> Result<Vec<Old>, PruneError> {
    let render = Objects::read(render)?;
    let live = Objects::read(live)?;
    let catalog = &options.settings.catalog;
    let namespace = &options.settings.config.namespace;

    // The render: what it holds, and the base names it has.
    let mut held: HashSet<SourceKey> = HashSet::new();
    let mut bases: HashSet<SourceKey> = HashSet::new();
    for (tree, item) in render.each() {
        let id = ResourceId::of(tree, item);
        let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
            continue;
        };
        let ns = id
            .namespace()
            .map(str::to_string)
            .or_else(|| namespace.clone());
        let base = annotation(tree, item, annotations::BASE_NAME)
            .map(str::to_string)
            .or_else(|| kustomize_base(id.name()).map(str::to_string))
            .unwrap_or_else(|| id.name().to_string());
        bases.insert(SourceKey::new(kind, ns.as_deref(), &base));
        held.insert(SourceKey::new(kind, ns.as_deref(), id.name()));
    }
    // A render object without a namespace (and no --namespace) stands for any.
    let in_render =
        |set: &HashSet<SourceKey>, kind: SourceKind, ns: &Option<String>, name: &str| {
            set.contains(&SourceKey::new(kind, ns.as_deref(), name))
                || set.contains(&SourceKey::new(kind, None, name))
        };

    let objects = live.each();
    check_complete(&objects)?;

    // Every name a live object gives at a reference site of the catalog.
    let mut read_by: BTreeMap<SourceKey, (ResourceId, String)> = BTreeMap::new();
    let mut read_anywhere: BTreeMap<(SourceKind, String), (ResourceId, String)> = BTreeMap::new();
    for &(tree, item) in &objects {
        let id = ResourceId::of(tree, item);
        for (kind, namespace, any, name, field) in names_read(tree, item, &id, catalog) {
            if any {
                read_anywhere
                    .entry((kind, name))
                    .or_insert((id.clone(), field));
            } else {
                read_by
                    .entry(SourceKey {
                        kind,
                        namespace,
                        name,
                    })
                    .or_insert((id.clone(), field));
            }
        }
    }

    // The hashed objects, and the rules that keep them.
    let mut groups: BTreeMap<SourceKey, Vec<Old>> = BTreeMap::new();
    for &(tree, item) in &objects {
        let id = ResourceId::of(tree, item);
        let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
            continue;
        };
        let ns = id.namespace().map(str::to_string);
        // Only versions of a base name the render has (in that namespace): an object of
        // another package or namespace is not this render's to judge, even with a hash.
        let base = match annotation(tree, item, annotations::BASE_NAME) {
            Some(base) if base != id.name() && !base.is_empty() => base,
            Some(_) => continue,
            None => match kustomize_base(id.name()) {
                Some(base) => base,
                None => continue,
            },
        };
        if !in_render(&bases, kind, &ns, base) {
            continue;
        }
        let base = base.to_string();
        let owner = tree
            .get_path(item, &["metadata", "ownerReferences"])
            .into_iter()
            .flat_map(|o| tree.items(o))
            .next()
            .map(|o| {
                let s = |k: &str| tree.get(o, k).and_then(|v| tree.str(v)).unwrap_or("");
                format!("{} {}", s("kind"), s("name"))
            });
        let kept = if in_render(&held, kind, &ns, id.name()) {
            Some(Kept::InRender)
        } else if let Some((by, field)) = read_by
            .get(&SourceKey::new(kind, ns.as_deref(), id.name()))
            .or_else(|| read_anywhere.get(&(kind, id.name().to_string())))
        {
            Some(Kept::ReadBy {
                by: by.clone(),
                field: field.clone(),
            })
        } else {
            owner.map(|by| Kept::Owned { by })
        };
        let created = tree
            .get_path(item, &["metadata", "creationTimestamp"])
            .and_then(|t| tree.str(t))
            .map(str::to_string);
        groups
            .entry(SourceKey::new(kind, ns.as_deref(), &base))
            .or_default()
            .push(Old {
                kind,
                namespace: ns,
                name: id.name().to_string(),
                base,
                created,
                kept,
            });
    }

    let mut out = Vec::new();
    for (_, mut olds) in groups {
        // Newest first; an object without a timestamp counts as newest (kept, not
        // deleted, when in doubt), then by name for a stable order.
        olds.sort_by(|a, b| match (&a.created, &b.created) {
            (None, None) => a.name.cmp(&b.name),
            (None, Some(_)) => std::cmp::Ordering::Less,
            (Some(_), None) => std::cmp::Ordering::Greater,
            (Some(x), Some(y)) => y.cmp(x).then_with(|| a.name.cmp(&b.name)),
        });
        let mut rank = 0;
        for old in &mut olds {
            if old.kept.is_none() && rank < options.keep {
                rank += 1;
                old.kept = Some(Kept::Newest { rank });
            }
        }
        out.extend(olds);
    }
    Ok(out)
}

/// The base of a name that ends in a kustomize suffix (`app-6b56fdfggc` -> `app`).
fn kustomize_base(name: &str) -> Option<&str> {
    let (base, suffix) = name.rsplit_once('-')?;
    (!base.is_empty() && name_hash::is_suffix(suffix)).then_some(base)
}

/// Every ConfigMap or Secret `item` names at a reference site of the catalog: its pod
/// template's (a workload's, or a ControllerRevision's recorded one), its annotation
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
    if id.kind() == "ControllerRevision"
        && crate::model::catalog::group_of(id.api_version()) == "apps"
    {
        template = tree.get_path(item, REVISION_TEMPLATE);
        if let Some(spec) = template.and_then(|t| tree.get(t, "spec")) {
            for r in references::find_all(tree, spec, "data.spec.template.spec", &catalog.pod_sites)
            {
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

/// Refuses a dump that cannot show what still reads an old object: one whose Pods or
/// Jobs have owners it lacks, whose Deployments have no ReplicaSets, whose
/// StatefulSets and DaemonSets (or their Pods) have no ControllerRevisions, or that
/// holds no object that could read one at all while it holds hashed objects.
fn check_complete(objects: &[(&Tree<'_>, NodeId)]) -> Result<(), PruneError> {
    let s = |tree: &Tree<'_>, node: NodeId, path: &[&str]| {
        tree.get_path(node, path)
            .and_then(|v| tree.str(v))
            .unwrap_or("")
            .to_string()
    };
    // (kind, namespace, name) and uids of what the dump holds.
    let mut present: HashSet<(String, Option<String>, String)> = HashSet::new();
    let mut uids: HashSet<String> = HashSet::new();
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        let uid = s(tree, item, &["metadata", "uid"]);
        if !uid.is_empty() {
            uids.insert(uid);
        }
        present.insert(id.kind_namespace_name());
    }
    // Looked up per object below: a set, so a large dump stays linear.
    let kinds: HashSet<&str> = present.iter().map(|(k, _, _)| k.as_str()).collect();
    let has_kind = |kind: &str| kinds.contains(kind);
    // Owners of revisioned kinds that have a ControllerRevision, by uid or name.
    let mut revisioned: HashSet<String> = HashSet::new();
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        let owners = tree
            .get_path(item, &["metadata", "ownerReferences"])
            .into_iter()
            .flat_map(|o| tree.items(o));
        for owner in owners {
            let kind = s(tree, owner, &["kind"]);
            let name = s(tree, owner, &["name"]);
            let uid = s(tree, owner, &["uid"]);
            if id.kind() == "ControllerRevision" {
                revisioned.insert(uid);
                revisioned.insert(format!("{kind}/{:?}/{name}", id.namespace()));
                continue;
            }
            if let Some((_, plural)) = OWNERS.iter().find(|(k, _)| *k == kind) {
                let there = (!uid.is_empty() && uids.contains(&uid))
                    || present.contains(&(
                        kind.clone(),
                        id.namespace().map(str::to_string),
                        name.clone(),
                    ));
                if !there {
                    return Err(PruneError::MissingKind {
                        kind: plural,
                        because: format!("{id} is owned by {kind} {name}, which is not in it"),
                    });
                }
            }
        }
    }
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        // A Pod of a StatefulSet or DaemonSet, or the object itself.
        let owner = tree
            .get_path(item, &["metadata", "ownerReferences"])
            .into_iter()
            .flat_map(|o| tree.items(o))
            .map(|o| {
                (
                    s(tree, o, &["kind"]),
                    s(tree, o, &["name"]),
                    s(tree, o, &["uid"]),
                )
            })
            .find(|(k, _, _)| REVISIONED.contains(&k.as_str()));
        let (kind, name, uid) = match owner {
            Some(o) => o,
            None if REVISIONED.contains(&id.kind()) => (
                id.kind().to_string(),
                id.name().to_string(),
                s(tree, item, &["metadata", "uid"]),
            ),
            None => continue,
        };
        let found = (!uid.is_empty() && revisioned.contains(&uid))
            || revisioned.contains(&format!("{kind}/{:?}/{name}", id.namespace()));
        if !found {
            return Err(PruneError::MissingKind {
                kind: "controllerrevisions",
                because: format!(
                    "{id} belongs to {kind} {name}, whose revisions (what a rollback restores) are not in it"
                ),
            });
        }
    }
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        if id.kind() == "Deployment" && !has_kind("ReplicaSet") {
            return Err(PruneError::MissingKind {
                kind: "replicasets",
                because: format!(
                    "it holds {id}, whose ReplicaSets (old ones included) are not in it"
                ),
            });
        }
        let replicas = s(tree, item, &["status", "replicas"]);
        if id.kind() == "ReplicaSet"
            && replicas.parse::<u64>().is_ok_and(|n| n > 0)
            && !has_kind("Pod")
        {
            return Err(PruneError::MissingKind {
                kind: "pods",
                because: format!("{id} runs {replicas} Pod(s), and none is in it"),
            });
        }
    }
    let hashed = objects.iter().any(|&(tree, item)| {
        let id = ResourceId::of(tree, item);
        SourceKind::from_kind(id.api_version(), id.kind()).is_some()
    });
    let readers = ["Pod", "ReplicaSet", "ControllerRevision", "Job", "CronJob"];
    if hashed && !readers.iter().any(|k| has_kind(k)) {
        return Err(PruneError::MissingKind {
            kind: "pods, replicasets, controllerrevisions, jobs or cronjobs",
            because: "it holds ConfigMaps or Secrets and nothing that could read them".to_string(),
        });
    }
    Ok(())
}

/// The objects safe to delete, as a stream `kubectl delete -f -` reads.
pub fn to_yaml(olds: &[Old]) -> String {
    use crate::yaml::scalar::double_quoted;
    let mut out = String::new();
    for old in olds.iter().filter(|o| o.kept.is_none()) {
        out.push_str("---\napiVersion: v1\nkind: ");
        out.push_str(old.kind.as_str());
        out.push_str("\nmetadata:\n  name: ");
        out.push_str(&double_quoted(&old.name));
        out.push('\n');
        if let Some(ns) = &old.namespace {
            out.push_str("  namespace: ");
            out.push_str(&double_quoted(ns));
            out.push('\n');
        }
    }
    out
}

/// The objects safe to delete, as a `List` `kubectl delete -f -` reads.
pub fn to_json(olds: &[Old]) -> String {
    use serde_json::json;
    let items: Vec<serde_json::Value> = olds
        .iter()
        .filter(|o| o.kept.is_none())
        .map(|o| {
            let mut metadata = json!({"name": o.name});
            if let Some(ns) = &o.namespace {
                metadata["namespace"] = json!(ns);
            }
            json!({"apiVersion": "v1", "kind": o.kind.as_str(), "metadata": metadata})
        })
        .collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": items});
    let mut out = serde_json::to_string_pretty(&list).expect("plain JSON");
    out.push('\n');
    out
}

/// Every old hashed object, deleted or kept, and why: for review.
pub fn to_table(olds: &[Old]) -> String {
    let header = ["ACTION", "KIND", "NAMESPACE", "NAME", "CREATED", "WHY"].map(str::to_string);
    let rows: Vec<[String; 6]> = olds
        .iter()
        .map(|o| {
            let (action, why) = match &o.kept {
                None => ("delete", format!("an old version of {}", o.base)),
                Some(Kept::InRender) => ("keep", "in the render".to_string()),
                Some(Kept::ReadBy { by, field }) => ("keep", format!("read by {by} at {field}")),
                Some(Kept::Owned { by }) => ("keep", format!("owned by {by}")),
                Some(Kept::Newest { rank }) => (
                    "keep",
                    format!("newest old version {rank} of {} (--keep)", o.base),
                ),
            };
            [
                action.to_string(),
                o.kind.as_str().to_string(),
                o.namespace.clone().unwrap_or_else(|| "-".to_string()),
                o.name.clone(),
                o.created.clone().unwrap_or_else(|| "-".to_string()),
                why,
            ]
        })
        .collect();
    let mut widths = [0usize; 6];
    for row in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            line.push_str(cell);
            if i < 5 {
                line.extend(std::iter::repeat_n(
                    ' ',
                    widths[i] - cell.chars().count() + 2,
                ));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if rows.is_empty() {
        out.push_str("(no old hashed ConfigMap or Secret in the dump)\n");
    }
    out
}

/// One line for stderr: how many are listed, and why the others are kept.
pub fn summary(olds: &[Old]) -> String {
    let count = |f: &dyn Fn(&Option<Kept>) -> bool| olds.iter().filter(|o| f(&o.kept)).count();
    format!(
        "config-hash prune: {} to delete; kept: {} in the render, {} read by live objects, {} owned, {} newest old versions (--keep)",
        count(&|k| k.is_none()),
        count(&|k| matches!(k, Some(Kept::InRender))),
        count(&|k| matches!(k, Some(Kept::ReadBy { .. }))),
        count(&|k| matches!(k, Some(Kept::Owned { .. }))),
        count(&|k| matches!(k, Some(Kept::Newest { .. }))),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(keep: usize) -> Options {
        Options {
            keep,
            settings: Settings::default(),
        }
    }

    fn cm(name: &str, base: &str, created: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {name}\n  namespace: shop\n  creationTimestamp: \"{created}\"\n  annotations: {{config-hash.dev/base-name: {base}}}\n"
        )
    }

    fn listed(render: &str, live: &str, keep: usize) -> Vec<String> {
        let olds = plan(
            &[("render".into(), render.into())],
            &[("live".into(), live.into())],
            &options(keep),
        )
        .unwrap();
        olds.into_iter()
            .filter(|o| o.kept.is_none())
            .map(|o| o.name)
            .collect()
    }

    const POD: &str = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec:\n  containers:\n  - name: c\n    envFrom: [{configMapRef: {name: app-cccccccccc}}]\n";

    #[test]
    fn the_newest_old_versions_are_kept_and_what_a_pod_reads() {
        let render = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-dddddddddd\n  namespace: shop\n  annotations: {config-hash.dev/base-name: app}\n";
        let live = [
            cm("app-dddddddddd", "app", "2026-01-05T00:00:00Z"),
            cm("app-cccccccccc", "app", "2026-01-04T00:00:00Z"),
            cm("app-bbbbbbbbbb", "app", "2026-01-03T00:00:00Z"),
            cm("app-9999999999", "app", "2026-01-02T00:00:00Z"),
            cm("app-8888888888", "app", "2026-01-01T00:00:00Z"),
            POD.to_string(),
        ]
        .concat();
        // d is in the render, c is read by the Pod; of the rest, b is kept by --keep 1.
        assert_eq!(
            listed(render, &live, 1),
            ["app-9999999999", "app-8888888888"]
        );
        assert_eq!(
            listed(render, &live, 0),
            ["app-bbbbbbbbbb", "app-9999999999", "app-8888888888"]
        );
        assert!(listed(render, &live, 3).is_empty());
    }

    #[test]
    fn a_kustomize_suffix_counts_only_on_a_base_name_the_render_has() {
        let render = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: web-6b56fdfggc}\n";
        let live = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: web-2b56fdfggc, namespace: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: other-2b56fdfggc, namespace: a}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: web-not-a-hash, namespace: a}}\n- {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: a}, spec: {containers: []}}\n";
        assert_eq!(listed(render, live, 0), ["web-2b56fdfggc"]);
        assert_eq!(kustomize_base("web-6b56fdfggc"), Some("web"));
        assert_eq!(kustomize_base("web-6b56fdfgga"), None);
        assert_eq!(kustomize_base("-6b56fdfggc"), None);
    }

    #[test]
    fn a_dump_without_the_owners_of_its_pods_is_refused() {
        let live = format!(
            "{}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web-1\n  namespace: shop\n  ownerReferences: [{{kind: ReplicaSet, name: web-7d, uid: u1}}]\nspec: {{containers: []}}\n",
            cm("app-8888888888", "app", "2026-01-01T00:00:00Z")
        );
        let err = plan(&[], &[("live".into(), live)], &options(0)).unwrap_err();
        assert!(
            matches!(
                &err,
                PruneError::MissingKind {
                    kind: "replicasets",
                    ..
                }
            ),
            "{err}"
        );
        assert!(
            err.to_string()
                .contains("Pod shop/web-1 is owned by ReplicaSet web-7d"),
            "{err}"
        );
    }
}
