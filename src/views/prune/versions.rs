//! Which live objects are versions of the render's ConfigMaps and Secrets, and what the
//! rules make of each: in the render, read by a live object, owned, among the newest
//! `keep`, or safe to delete.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::dump::owners;
use super::readers::Readers;
use crate::model::catalog::{SourceKind, annotations};
use crate::model::name_hash;
use crate::model::reference::SourceKey;
use crate::model::resource::{ResourceId, annotation};
use crate::resolve::renames;
use crate::yaml::{NodeId, Tree};

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
    /// Its name says a base name (an annotation, a suffix) but is not that base name plus
    /// the hash of its own content: not a version config-hash or kustomize made, whatever
    /// it looks like. `content_gives`: the name its content would give (`None`: content
    /// kustomize's hash cannot read).
    NotAVersion { content_gives: Option<String> },
}

/// What the render holds, and the base names it has.
#[derive(Debug, Default)]
pub(super) struct Render {
    held: HashSet<SourceKey>,
    bases: HashSet<SourceKey>,
}

impl Render {
    /// The render's ConfigMaps and Secrets; one written without a namespace is in
    /// `namespace` (`None`: it stands for an object of that name in any namespace).
    pub(super) fn of(objects: &[(&Tree<'_>, NodeId)], namespace: &Option<String>) -> Render {
        let mut render = Render::default();
        for &(tree, item) in objects {
            let id = ResourceId::of(tree, item);
            let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
                continue;
            };
            let ns = id
                .namespace()
                .map(str::to_string)
                .or_else(|| namespace.clone());
            // The name before the hash, where the object says it has one and its content
            // gives it (config-hash recorded it; kustomize's suffix is its content's hash).
            let base = match claimed_base(tree, item, id.name()) {
                Some(base) if proven(tree, item, kind, id.name(), base) => base,
                _ => annotation(tree, item, annotations::BASE_NAME).unwrap_or(id.name()),
            };
            render
                .bases
                .insert(SourceKey::new(kind, ns.as_deref(), base));
            render
                .held
                .insert(SourceKey::new(kind, ns.as_deref(), id.name()));
        }
        render
    }

    /// The render holds this object.
    fn holds(&self, kind: SourceKind, namespace: Option<&str>, name: &str) -> bool {
        in_set(&self.held, kind, namespace, name)
    }

    /// The render has this base name.
    fn has_base(&self, kind: SourceKind, namespace: Option<&str>, base: &str) -> bool {
        in_set(&self.bases, kind, namespace, base)
    }
}

/// A render object without a namespace (and no --namespace) stands for any.
fn in_set(set: &HashSet<SourceKey>, kind: SourceKind, namespace: Option<&str>, name: &str) -> bool {
    set.contains(&SourceKey::new(kind, namespace, name))
        || set.contains(&SourceKey::new(kind, None, name))
}

/// The base of a name that ends in a kustomize suffix (`app-6b56fdfggc` -> `app`).
pub(super) fn kustomize_base(name: &str) -> Option<&str> {
    let (base, suffix) = name.rsplit_once('-')?;
    (!base.is_empty() && name_hash::is_suffix(suffix)).then_some(base)
}

/// The base name an object says it has: config-hash's annotation (not the name itself,
/// not empty), else the name before a kustomize suffix. Only a claim: see [`proven`].
fn claimed_base<'t>(tree: &'t Tree<'_>, item: NodeId, name: &'t str) -> Option<&'t str> {
    match annotation(tree, item, annotations::BASE_NAME) {
        Some(base) if base != name && !base.is_empty() => Some(base),
        Some(_) => None,
        None => kustomize_base(name),
    }
}

/// The name the object's content gives on `base`: `base-` and kustomize's hash of its
/// content, as `--name-suffix` and kustomize's generators name it.
fn content_name(tree: &Tree<'_>, item: NodeId, kind: SourceKind, base: &str) -> Option<String> {
    renames::content_suffix(tree, item, kind).map(|suffix| format!("{base}-{suffix}"))
}

/// Whether `name` is `base` plus the hash of the object's own content: only then is it
/// a version of `base`. A name or an annotation alone proves nothing: anyone can write
/// them, and deleting what was never a version may stop a workload.
fn proven(tree: &Tree<'_>, item: NodeId, kind: SourceKind, name: &str, base: &str) -> bool {
    content_name(tree, item, kind, base).is_some_and(|given| given == name)
}

/// The live versions of the render's base names, grouped by base name, each with what
/// keeps it (`None`: nothing does yet). The same object more than once in the dump (two
/// dumps joined, one taken later) is one object, judged by every copy: kept when any copy
/// keeps it.
pub(super) fn old_versions(
    objects: &[(&Tree<'_>, NodeId)],
    render: &Render,
    readers: &Readers,
) -> BTreeMap<SourceKey, Vec<Old>> {
    // Every copy of each ConfigMap and Secret, in dump order, and the base name of the
    // first copy that claims one the render has (in that namespace): an object of another
    // package or namespace is not this render's to judge, even with a hash.
    let mut copies: BTreeMap<SourceKey, Vec<(&Tree<'_>, NodeId)>> = BTreeMap::new();
    let mut bases: HashMap<SourceKey, String> = HashMap::new();
    for &(tree, item) in objects {
        let id = ResourceId::of(tree, item);
        let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
            continue;
        };
        let key = SourceKey::new(kind, id.namespace(), id.name());
        if !bases.contains_key(&key) {
            let claimed = claimed_base(tree, item, id.name())
                .filter(|base| render.has_base(kind, id.namespace(), base));
            if let Some(base) = claimed {
                bases.insert(key.clone(), base.to_string());
            }
        }
        copies.entry(key).or_default().push((tree, item));
    }
    let mut groups: BTreeMap<SourceKey, Vec<Old>> = BTreeMap::new();
    for (key, copies) in copies {
        let Some(base) = bases.remove(&key) else {
            continue;
        };
        let old = judge(&key, &copies, base, render, readers);
        groups
            .entry(SourceKey::new(
                key.kind,
                key.namespace.as_deref(),
                &old.base,
            ))
            .or_default()
            .push(old);
    }
    groups
}

/// What keeps one object, from every copy of it: the render holds it; a copy's content
/// does not give its name (not a version); a live object reads it; a copy has an owner.
fn judge(
    key: &SourceKey,
    copies: &[(&Tree<'_>, NodeId)],
    base: String,
    render: &Render,
    readers: &Readers,
) -> Old {
    let (kind, ns, name) = (key.kind, key.namespace.as_deref(), key.name.as_str());
    let not_proven = copies
        .iter()
        .find(|&&(tree, item)| !proven(tree, item, kind, name, &base));
    let kept = if render.holds(kind, ns, name) {
        Some(Kept::InRender)
    } else if let Some(&(tree, item)) = not_proven {
        Some(Kept::NotAVersion {
            content_gives: content_name(tree, item, kind, &base),
        })
    } else if let Some((by, field)) = readers.of_object(kind, ns, name) {
        Some(Kept::ReadBy {
            by: by.clone(),
            field: field.clone(),
        })
    } else {
        copies.iter().find_map(|&(tree, item)| {
            let o = owners(tree, item).into_iter().next()?;
            Some(Kept::Owned {
                by: format!("{} {}", o.kind, o.name),
            })
        })
    };
    // The newest copy's time; none when a copy has none (counted newest: kept when in
    // doubt).
    let created = copies
        .iter()
        .map(|&(tree, item)| {
            tree.get_path(item, &["metadata", "creationTimestamp"])
                .and_then(|t| tree.str(t))
        })
        .try_fold(None::<&str>, |newest, t| t.map(|t| newest.max(Some(t))))
        .flatten()
        .map(str::to_string);
    Old {
        kind,
        namespace: key.namespace.clone(),
        name: key.name.clone(),
        base,
        created,
        kept,
    }
}

/// The namespaces holding old versions the rules may list (not the render's own, not
/// objects that are no version): where the dump must show every reader.
pub(super) fn in_question(groups: &BTreeMap<SourceKey, Vec<Old>>) -> HashSet<Option<String>> {
    groups
        .values()
        .flatten()
        .filter(|o| !matches!(o.kept, Some(Kept::InRender | Kept::NotAVersion { .. })))
        .map(|o| o.namespace.clone())
        .collect()
}

/// Each group newest first, its newest `keep` versions that nothing else keeps kept.
pub(super) fn keep_newest(groups: BTreeMap<SourceKey, Vec<Old>>, keep: usize) -> Vec<Old> {
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
            if old.kept.is_none() && rank < keep {
                rank += 1;
                old.kept = Some(Kept::Newest { rank });
            }
        }
        out.extend(olds);
    }
    out
}
