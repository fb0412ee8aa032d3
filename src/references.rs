//! Where a pod spec names ConfigMaps and Secrets, as a table of field paths, and what
//! each reference lets the pod see.

use crate::yaml::{NodeId, Tree};

pub use crate::catalog::SourceKind;
use crate::catalog::{AnnotationSite, KeySel, PodSite, Scope};

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
    /// A namespace the reference names (`namespace/name` in an annotation); otherwise
    /// the workload's own applies.
    pub namespace: Option<String>,
    /// Named by a workload annotation (an extra dependency), not by the pod spec.
    pub extra: bool,
}

/// An annotation entry that looks like a regular expression: not read as a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexEntry {
    pub field: String,
    pub entry: String,
    pub site: AnnotationSite,
}

/// Characters of regular expressions that a Kubernetes name cannot hold.
fn looks_like_regex(entry: &str) -> bool {
    entry.chars().any(|c| {
        matches!(
            c,
            '*' | '^' | '$' | '[' | ']' | '(' | ')' | '|' | '+' | '?' | '\\' | '{' | '}'
        )
    })
}

/// The objects the workload's annotations (`metadata.annotations` of the object at
/// `item`) name as extra dependencies, and the entries skipped as regular expressions.
pub fn find_annotations(
    tree: &Tree<'_>,
    item: NodeId,
    sites: &[AnnotationSite],
) -> (Vec<Reference>, Vec<RegexEntry>) {
    let (mut refs, mut regexes) = (Vec::new(), Vec::new());
    let Some(annotations) = tree.get_path(item, &["metadata", "annotations"]) else {
        return (refs, regexes);
    };
    for site in sites {
        let Some(node) = tree.get(annotations, site.key) else {
            continue;
        };
        let Some(text) = tree.str(node) else {
            continue;
        };
        let field = format!("metadata.annotations.{}", site.key);
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if site.regex && looks_like_regex(entry) {
                regexes.push(RegexEntry {
                    field: field.clone(),
                    entry: entry.to_string(),
                    site: *site,
                });
                continue;
            }
            let (namespace, name) = match entry.split_once('/') {
                Some((ns, n)) => (Some(ns.to_string()), n),
                None => (None, entry),
            };
            refs.push(Reference {
                kind: site.kind,
                name: name.to_string(),
                name_node: node,
                keys: Keys::All,
                optional: false,
                field: field.clone(),
                container: None,
                namespace,
                extra: true,
            });
        }
    }
    (refs, regexes)
}

pub const CONTAINER_LISTS: &[&str] = &["containers", "initContainers", "ephemeralContainers"];

/// Every reference whose content the pod sees, in the pod spec at `spec` (whose field
/// path is `spec_path`).
pub fn find(tree: &Tree<'_>, spec: NodeId, spec_path: &str, sites: &[PodSite]) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, sites, true)
}

/// Every reference in the pod spec, including those that give the pod no content.
pub fn find_all(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, sites, false)
}

/// Every ConfigMap/Secret reference in the pod spec at `spec` (whose field path is
/// `spec_path`), in document order per site.
fn find_sites(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
    visible_only: bool,
) -> Vec<Reference> {
    let mut out = Vec::new();
    for site in sites.iter().filter(|s| s.visible || !visible_only) {
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
pub fn unreadable_names(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
) -> Vec<String> {
    let mut out = Vec::new();
    for site in sites {
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
    site: &PodSite,
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
        namespace: None,
        extra: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_name_extra_dependencies_and_regexes_are_set_apart() {
        let src = "metadata:\n  annotations:\n    config-hash.dev/extra-secrets: ' a , other/b,'\n    secret.reloader.stakater.com/reload: 'c,db-.*'\n    wave.pusher.com/extra-configmaps: d\n";
        let tree = Tree::parse(src).unwrap();
        let sites = crate::catalog::Catalog::builtin().annotation_sites;
        let (refs, regexes) = find_annotations(&tree, tree.docs[0].root, &sites);
        let got: Vec<(SourceKind, Option<&str>, &str, bool)> = refs
            .iter()
            .map(|r| (r.kind, r.namespace.as_deref(), r.name.as_str(), r.extra))
            .collect();
        assert_eq!(
            got,
            [
                (SourceKind::Secret, None, "a", true),
                (SourceKind::Secret, Some("other"), "b", true),
                (SourceKind::Secret, None, "c", true),
                (SourceKind::ConfigMap, None, "d", true)
            ]
        );
        assert_eq!(refs[0].keys, Keys::All);
        assert_eq!(regexes.len(), 1);
        assert_eq!(regexes[0].entry, "db-.*");
        // Our own lists take names only: a '*' there is a (bad) name, not a pattern.
        assert!(!sites[0].regex);
    }

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
        let refs = find(
            &tree,
            tree.docs[0].root,
            "spec",
            &crate::catalog::Catalog::builtin().pod_sites,
        );
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
