//! Where a pod spec names ConfigMaps and Secrets, as a table of field paths, and what
//! each reference lets the pod see.

use crate::yaml::{NodeId, Tree};

/// The two kinds of object a pod reads configuration from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SourceKind {
    ConfigMap,
    Secret,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SourceKind::ConfigMap => "ConfigMap",
            SourceKind::Secret => "Secret",
        }
    }

    pub fn from_kind(api_version: &str, kind: &str) -> Option<SourceKind> {
        if api_version != "v1" {
            return None;
        }
        match kind {
            "ConfigMap" => Some(SourceKind::ConfigMap),
            "Secret" => Some(SourceKind::Secret),
            _ => None,
        }
    }
}

/// The ConfigMaps and Secrets of `items` that may be sources (not local-config), with
/// their identities.
pub fn config_objects<'t>(
    tree: &'t Tree<'_>,
    items: &'t [NodeId],
) -> impl Iterator<Item = (NodeId, crate::krm::ResourceId, SourceKind)> + 't {
    items.iter().filter_map(move |&item| {
        if crate::krm::is_local_config(tree, item) {
            return None;
        }
        let id = crate::krm::ResourceId::of(tree, item);
        let kind = SourceKind::from_kind(&id.api_version, &id.kind)?;
        Some((item, id, kind))
    })
}

/// What a reference exposes to the pod.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keys {
    /// Every key (envFrom, a volume without `items`).
    All,
    /// Just these keys (a `*KeyRef`, a volume's `items`).
    Some(Vec<String>),
}

/// One place in a pod spec that names a ConfigMap or Secret.
#[derive(Debug, Clone)]
pub struct Reference {
    pub kind: SourceKind,
    pub name: String,
    /// The scalar holding the name (rewritten when objects are renamed).
    pub name_node: NodeId,
    pub keys: Keys,
    pub optional: bool,
    /// Field path of the reference object, e.g.
    /// `spec.template.spec.containers[0].env[1].valueFrom.configMapKeyRef`.
    pub field: String,
    /// The container the reference belongs to, for messages.
    pub container: Option<String>,
}

#[derive(Debug, Clone, Copy)]
enum Scope {
    /// Under each of `containers`, `initContainers`, `ephemeralContainers`.
    Containers,
    /// Directly under the pod spec.
    PodSpec,
}

#[derive(Debug, Clone, Copy)]
enum KeySel {
    /// A single key named by this field.
    Field(&'static str),
    /// The `key` of each `items` entry; every key when `items` is absent or empty.
    Items,
    All,
}

struct RefSite {
    scope: Scope,
    /// Keys from the scope to the reference object; `*` walks every list item.
    path: &'static [&'static str],
    kind: SourceKind,
    name_field: &'static str,
    keys: KeySel,
    /// False for references that give the pod no content (image pull secrets, CSI
    /// credentials): renamed with the object, but not hashed.
    visible: bool,
}

pub const CONTAINER_LISTS: &[&str] = &["containers", "initContainers", "ephemeralContainers"];

use KeySel::{All, Field, Items};
use Scope::{Containers, PodSpec};
use SourceKind::{ConfigMap, Secret};

#[rustfmt::skip]
const REF_SITES: &[RefSite] = &[
    RefSite { scope: Containers, path: &["env", "*", "valueFrom", "configMapKeyRef"], kind: ConfigMap, name_field: "name", keys: Field("key"), visible: true },
    RefSite { scope: Containers, path: &["env", "*", "valueFrom", "secretKeyRef"], kind: Secret, name_field: "name", keys: Field("key"), visible: true },
    RefSite { scope: Containers, path: &["envFrom", "*", "configMapRef"], kind: ConfigMap, name_field: "name", keys: All, visible: true },
    RefSite { scope: Containers, path: &["envFrom", "*", "secretRef"], kind: Secret, name_field: "name", keys: All, visible: true },
    RefSite { scope: PodSpec, path: &["volumes", "*", "configMap"], kind: ConfigMap, name_field: "name", keys: Items, visible: true },
    RefSite { scope: PodSpec, path: &["volumes", "*", "secret"], kind: Secret, name_field: "secretName", keys: Items, visible: true },
    RefSite { scope: PodSpec, path: &["volumes", "*", "projected", "sources", "*", "configMap"], kind: ConfigMap, name_field: "name", keys: Items, visible: true },
    RefSite { scope: PodSpec, path: &["volumes", "*", "projected", "sources", "*", "secret"], kind: Secret, name_field: "name", keys: Items, visible: true },
    RefSite { scope: PodSpec, path: &["imagePullSecrets", "*"], kind: Secret, name_field: "name", keys: All, visible: false },
    RefSite { scope: PodSpec, path: &["volumes", "*", "csi", "nodePublishSecretRef"], kind: Secret, name_field: "name", keys: All, visible: false },
];

/// Every reference whose content the pod sees, in the pod spec at `spec` (whose field
/// path is `spec_path`).
pub fn find(tree: &Tree<'_>, spec: NodeId, spec_path: &str) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, true)
}

/// Every reference in the pod spec, including those that give the pod no content.
pub fn find_all(tree: &Tree<'_>, spec: NodeId, spec_path: &str) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, false)
}

/// Every ConfigMap/Secret reference in the pod spec at `spec` (whose field path is
/// `spec_path`), in document order per site.
fn find_sites(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    visible_only: bool,
) -> Vec<Reference> {
    let mut out = Vec::new();
    for site in REF_SITES.iter().filter(|s| s.visible || !visible_only) {
        match site.scope {
            Scope::PodSpec => {
                let mut found = Vec::new();
                walk(tree, spec, site.path, spec_path.to_string(), &mut found);
                for (node, field) in found {
                    out.extend(reference(tree, site, node, field, None));
                }
            }
            Scope::Containers => {
                for list in CONTAINER_LISTS {
                    let Some(seq) = tree.get(spec, list) else {
                        continue;
                    };
                    for (i, &c) in tree.items(seq).iter().enumerate() {
                        let cname = tree.get(c, "name").and_then(|n| tree.str(n));
                        let mut found = Vec::new();
                        let base = format!("{spec_path}.{list}[{i}]");
                        walk(tree, c, site.path, base, &mut found);
                        for (node, field) in found {
                            let container = cname.map(str::to_string);
                            out.extend(reference(tree, site, node, field, container));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Field paths of reference objects in the pod spec whose name field is there but is
/// a list or mapping, not a string: the API server rejects them, and [`find`] cannot
/// read them, so they are reported rather than skipped without a word.
pub fn unreadable_names(tree: &Tree<'_>, spec: NodeId, spec_path: &str) -> Vec<String> {
    let mut out = Vec::new();
    for site in REF_SITES {
        let mut found = Vec::new();
        match site.scope {
            Scope::PodSpec => walk(tree, spec, site.path, spec_path.to_string(), &mut found),
            Scope::Containers => {
                for list in CONTAINER_LISTS {
                    let Some(seq) = tree.get(spec, list) else {
                        continue;
                    };
                    for (i, &c) in tree.items(seq).iter().enumerate() {
                        let base = format!("{spec_path}.{list}[{i}]");
                        walk(tree, c, site.path, base, &mut found);
                    }
                }
            }
        }
        out.extend(found.into_iter().filter_map(|(node, field)| {
            let name = tree.get(node, site.name_field)?;
            (tree.is_map(node) && (tree.is_map(name) || tree.is_seq(name)))
                .then(|| format!("{field}.{}", site.name_field))
        }));
    }
    out
}

/// Collects the nodes at `path` below `node` (`*` walks every list item) with their
/// field paths.
pub fn walk(
    tree: &Tree<'_>,
    node: NodeId,
    path: &[&str],
    mut field: String,
    out: &mut Vec<(NodeId, String)>,
) {
    walk_into(tree, node, path, &mut field, out);
}

/// [`walk`] with one growing path buffer: most walks find nothing, so they should not
/// allocate a string per step.
fn walk_into(
    tree: &Tree<'_>,
    node: NodeId,
    path: &[&str],
    field: &mut String,
    out: &mut Vec<(NodeId, String)>,
) {
    use std::fmt::Write as _;
    let Some((head, rest)) = path.split_first() else {
        out.push((node, field.clone()));
        return;
    };
    let len = field.len();
    if *head == "*" {
        for (i, &item) in tree.items(node).iter().enumerate() {
            let _ = write!(field, "[{i}]");
            walk_into(tree, item, rest, field, out);
            field.truncate(len);
        }
    } else if let Some(child) = tree.get(node, head) {
        field.push('.');
        field.push_str(head);
        walk_into(tree, child, rest, field, out);
        field.truncate(len);
    }
}

fn reference(
    tree: &Tree<'_>,
    site: &RefSite,
    node: NodeId,
    field: String,
    container: Option<String>,
) -> Option<Reference> {
    if !tree.is_map(node) {
        return None;
    }
    let name_node = tree.get(node, site.name_field)?;
    let name = tree.str(name_node)?.to_string();
    let keys = match site.keys {
        KeySel::All => Keys::All,
        KeySel::Field(f) => Keys::Some(vec![tree.str(tree.get(node, f)?)?.to_string()]),
        KeySel::Items => {
            let keys: Vec<String> = tree
                .get(node, "items")
                .map(|items| {
                    tree.items(items)
                        .iter()
                        .filter_map(|&i| tree.get(i, "key").and_then(|k| tree.str(k)))
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            if keys.is_empty() {
                Keys::All
            } else {
                Keys::Some(keys)
            }
        }
    };
    let optional = tree.get(node, "optional").is_some_and(|o| tree.is_true(o));
    Some(Reference {
        kind: site.kind,
        name,
        name_node,
        keys,
        optional,
        field,
        container,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_reference_type_with_its_keys() {
        let src = r#"
containers:
- name: app
  env:
  - name: A
    valueFrom: {configMapKeyRef: {name: cm, key: a}}
  - name: B
    valueFrom: {secretKeyRef: {name: sec, key: b, optional: true}}
  envFrom:
  - configMapRef: {name: cm2}
  - secretRef: {name: sec2}
initContainers:
- name: init
  envFrom: [{configMapRef: {name: cm3}}]
volumes:
- name: v1
  configMap: {name: cm4, items: [{key: x, path: x}]}
- name: v2
  secret: {secretName: sec3}
- name: v3
  projected:
    sources:
    - configMap: {name: cm5}
    - secret: {name: sec4, items: [{key: y, path: y}]}
"#;
        let tree = Tree::parse(src).unwrap();
        let refs = find(&tree, tree.docs[0].root, "spec");
        let got: Vec<(String, &str, Keys, bool)> = refs
            .iter()
            .map(|r| (r.field.clone(), r.name.as_str(), r.keys.clone(), r.optional))
            .collect();
        let some = |k: &str| Keys::Some(vec![k.to_string()]);
        assert_eq!(
            got,
            vec![
                (
                    "spec.containers[0].env[0].valueFrom.configMapKeyRef".into(),
                    "cm",
                    some("a"),
                    false
                ),
                (
                    "spec.containers[0].env[1].valueFrom.secretKeyRef".into(),
                    "sec",
                    some("b"),
                    true
                ),
                (
                    "spec.containers[0].envFrom[0].configMapRef".into(),
                    "cm2",
                    Keys::All,
                    false
                ),
                (
                    "spec.initContainers[0].envFrom[0].configMapRef".into(),
                    "cm3",
                    Keys::All,
                    false
                ),
                (
                    "spec.containers[0].envFrom[1].secretRef".into(),
                    "sec2",
                    Keys::All,
                    false
                ),
                ("spec.volumes[0].configMap".into(), "cm4", some("x"), false),
                ("spec.volumes[1].secret".into(), "sec3", Keys::All, false),
                (
                    "spec.volumes[2].projected.sources[0].configMap".into(),
                    "cm5",
                    Keys::All,
                    false
                ),
                (
                    "spec.volumes[2].projected.sources[1].secret".into(),
                    "sec4",
                    some("y"),
                    false
                ),
            ]
        );
        assert_eq!(refs[0].container.as_deref(), Some("app"));
    }
}
