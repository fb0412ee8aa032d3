//! Reading the catalog's reference sites in an object, with one walker for every path:
//! where its pod spec names ConfigMaps and Secrets (and what the pod then sees), which of
//! its fields name one outside pod specs, and which annotations list extra dependencies.

use crate::model::catalog::{AnnotationSite, Catalog, FieldPath, Form, KeySel, PodSite, Scoped};
use crate::model::catalog::{CONTAINER_LISTS, SourceKind};
use crate::model::reference::Keys;
use crate::model::resource::ResourceId;
use crate::yaml::{NodeId, Tree};

/// One place in a pod spec that names a ConfigMap or Secret.
#[derive(Debug, Clone)]
pub struct Reference {
    pub kind: SourceKind,
    pub name: String,
    /// The scalar holding the name (rewritten when objects are renamed).
    pub name_node: NodeId,
    /// The mapping that holds the name (with its `items`), or the annotation's value.
    pub object: NodeId,
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

/// One node a path reached.
#[derive(Debug, Clone)]
pub struct Reached {
    pub node: NodeId,
    /// The mapping whose key led to it (for a list at the end of the path, the mapping
    /// that holds the list): where its siblings are.
    pub parent: Option<NodeId>,
    /// Its field path: `spec.tls[0].secretName`, `metadata.annotations[example.com/x]`.
    pub field: String,
}

/// Every node at `path` below `node`, whose field path is `field`: every sequence met on
/// the way, or at the end, is walked item by item (kustomize's fieldSpec rule). The one
/// walker for every path of the catalog.
pub fn walk(tree: &Tree<'_>, node: NodeId, path: &[String], field: String) -> Vec<Reached> {
    let mut out = Vec::new();
    let mut field = field;
    walk_into(tree, node, None, path, &mut field, &mut out);
    out
}

/// [`walk`] with one growing path buffer: most walks find nothing, so they should not
/// allocate a string per step.
fn walk_into(
    tree: &Tree<'_>,
    node: NodeId,
    parent: Option<NodeId>,
    path: &[String],
    field: &mut String,
    out: &mut Vec<Reached>,
) {
    use std::fmt::Write as _;
    let len = field.len();
    if tree.is_seq(node) {
        for (i, item) in tree.items(node).enumerate() {
            let _ = write!(field, "[{i}]");
            walk_into(tree, item, parent, path, field, out);
            field.truncate(len);
        }
        return;
    }
    let Some((head, rest)) = path.split_first() else {
        out.push(Reached {
            node,
            parent,
            field: field.clone(),
        });
        return;
    };
    if let Some(child) = tree.get(node, head) {
        push_key(field, head);
        walk_into(tree, child, Some(node), rest, field, out);
        field.truncate(len);
    }
}

/// Appends a key to a field path: `.key`, or `[key]` for a key holding `.` or `/` (an
/// annotation key), so the path reads back unambiguously.
pub fn push_key(field: &mut String, key: &str) {
    if key.bytes().any(|b| b == b'.' || b == b'/') {
        field.push('[');
        field.push_str(key);
        field.push(']');
    } else {
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(key);
    }
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
pub fn find_annotations<'s>(
    tree: &Tree<'_>,
    item: NodeId,
    sites: impl IntoIterator<Item = &'s AnnotationSite>,
) -> (Vec<Reference>, Vec<RegexEntry>) {
    let (mut refs, mut regexes) = (Vec::new(), Vec::new());
    let Some(annotations) = tree.get_path(item, &["metadata", "annotations"]) else {
        return (refs, regexes);
    };
    for site in sites {
        let Some(node) = tree.get(annotations, &site.key) else {
            continue;
        };
        let Some(text) = tree.str(node) else {
            continue;
        };
        let mut field = String::from("metadata.annotations");
        push_key(&mut field, &site.key);
        for entry in text.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            if site.regex && looks_like_regex(entry) {
                regexes.push(RegexEntry {
                    field: field.clone(),
                    entry: entry.to_string(),
                    site: site.clone(),
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
                object: node,
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

/// The reference objects (the mappings that hold the name) of one pod-spec site, with
/// the container they belong to.
fn site_objects(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    site: &PodSite,
) -> Vec<(Reached, Option<String>)> {
    // The path without its last step (the name's key), borrowed: this runs for every
    // site of every workload.
    let Some((_, steps)) = site.path.steps().split_last() else {
        return Vec::new();
    };
    if !site.in_containers() {
        return walk(tree, spec, steps, spec_path.to_string())
            .into_iter()
            .map(|r| (r, None))
            .collect();
    }
    let mut out = Vec::new();
    for list in CONTAINER_LISTS {
        let Some(seq) = tree.get(spec, list) else {
            continue;
        };
        for (i, c) in tree.items(seq).enumerate() {
            // The first step is looked up here: most containers have no such field, and
            // need no path string.
            let (start, rest, mut base) = match steps.get(1) {
                Some(first) => match tree.get(c, first) {
                    Some(child) => {
                        let mut base = format!("{spec_path}.{list}[{i}]");
                        push_key(&mut base, first);
                        (child, &steps[2..], base)
                    }
                    None => continue,
                },
                None => (c, &steps[1..], format!("{spec_path}.{list}[{i}]")),
            };
            let cname = tree.get(c, "name").and_then(|n| tree.str(n));
            let mut found = Vec::new();
            walk_into(tree, start, Some(c), rest, &mut base, &mut found);
            out.extend(found.into_iter().map(|r| (r, cname.map(str::to_string))));
        }
    }
    out
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
        for (reached, container) in site_objects(tree, spec, spec_path, site) {
            out.extend(reference(
                tree,
                site,
                reached.node,
                reached.field,
                container,
            ));
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
        let name_field = name_field(site);
        out.extend(
            site_objects(tree, spec, spec_path, site)
                .into_iter()
                .filter_map(|(r, _)| {
                    let name = tree.get(r.node, name_field)?;
                    (tree.is_map(r.node) && (tree.is_map(name) || tree.is_seq(name)))
                        .then(|| format!("{}.{name_field}", r.field))
                }),
        );
    }
    out
}

/// The key that holds a pod-spec site's name.
fn name_field(site: &PodSite) -> &str {
    site.path.steps().last().map_or("name", String::as_str)
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
    let name_node = tree.get(node, name_field(site))?;
    let name = tree.str(name_node)?.to_string();
    let keys = match &site.keys {
        KeySel::All => Keys::All,
        KeySel::Field(f) => Keys::Some(vec![tree.str(tree.get(node, f)?)?.to_string()]),
        KeySel::Items => {
            let keys: Vec<String> = tree
                .get(node, "items")
                .map(|items| {
                    tree.items(items)
                        .filter_map(|i| tree.get(i, "key").and_then(|k| tree.str(k)))
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
        object: node,
        keys,
        optional,
        field,
        container,
        namespace: None,
        extra: false,
    })
}

/// A name scalar that may refer to a ConfigMap or Secret, and the namespace it names
/// it in.
pub struct NameRef {
    pub node: NodeId,
    pub kind: SourceKind,
    pub form: Form,
    pub namespace: Option<String>,
    /// Named from a cluster-scoped object with no namespace given (a ClusterRole's
    /// `resourceNames`): an object of that name in any namespace, as kustomize finds it.
    pub any_namespace: bool,
    /// The field path, for `graph`.
    pub field: String,
}

/// Every name scalar in `item` that the catalog says may refer to a ConfigMap or Secret:
/// pod-spec sites of a workload, then the name-reference sites of its kind.
pub fn name_refs(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
) -> Vec<NameRef> {
    let mut out = pod_refs(tree, item, id, catalog);
    out.extend(site_refs(tree, item, id, catalog));
    out
}

/// The names in a workload's pod spec.
fn pod_refs(tree: &Tree<'_>, item: NodeId, id: &ResourceId, catalog: &Catalog) -> Vec<NameRef> {
    let mut out = Vec::new();
    if let Some(w) = catalog.workload(id.api_version(), id.kind()) {
        let template = path_strs(&w.template);
        if let Some(spec) = tree
            .get_path(item, &template)
            .and_then(|t| tree.get(t, "spec"))
        {
            for r in find_all(tree, spec, &w.spec_field(), &catalog.pod_sites) {
                out.push(NameRef {
                    node: r.name_node,
                    kind: r.kind,
                    form: Form::Name,
                    namespace: id.namespace().map(str::to_string),
                    any_namespace: false,
                    field: r.field,
                });
            }
        }
    }
    out
}

/// A path's steps as `&str`s, for the tree's look-ups.
pub fn path_strs(path: &FieldPath) -> Vec<&str> {
    path.steps().iter().map(String::as_str).collect()
}

/// The names at the catalog's name-reference sites for the item's kind: a string, each
/// string of a list, or a mapping's `name` (with its `namespace`), as kustomize reads
/// them.
pub fn site_refs(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
) -> Vec<NameRef> {
    let mut out = Vec::new();
    for site in catalog.name_sites_for(id.api_version(), id.kind()) {
        for reached in walk(tree, item, site.path.steps(), String::new()) {
            let parent = reached.parent;
            if let Some(resource) = &site.rule_resource {
                let granted = parent
                    .and_then(|p| tree.get(p, "resources"))
                    .is_some_and(|r| {
                        tree.items(r)
                            .any(|x| matches!(tree.str(x), Some(r) if r == resource || r == "*"))
                    });
                if !granted {
                    continue;
                }
            }
            let sibling = |holder: Option<NodeId>, key: &str| {
                holder
                    .and_then(|p| tree.get(p, key))
                    .and_then(|n| tree.str(n))
                    .map(str::to_string)
            };
            let (node, namespace, field) = if tree.is_map(reached.node) {
                // `{name, namespace}` (a Node's `configSource.configMap`).
                let Some(name) = tree.get(reached.node, "name") else {
                    continue;
                };
                let mut field = reached.field.clone();
                push_key(&mut field, "name");
                let ns = sibling(Some(reached.node), "namespace");
                (name, ns, field)
            } else {
                let ns = match &site.namespace_key {
                    Some(k) => sibling(parent, k),
                    None => id.namespace().map(str::to_string),
                };
                (reached.node, ns, reached.field)
            };
            out.push(NameRef {
                node,
                kind: site.target,
                form: site.form,
                any_namespace: site.scope == Scoped::Cluster && namespace.is_none(),
                namespace,
                field,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_name_extra_dependencies_and_regexes_are_set_apart() {
        let src = "metadata:\n  annotations:\n    config-hash.dev/extra-secrets: ' a , other/b,'\n    secret.reloader.stakater.com/reload: 'c,db-.*'\n    wave.pusher.com/extra-configmaps: d\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = crate::model::catalog::Catalog::builtin().annotation_sites;
        let (refs, regexes) = find_annotations(&tree, tree.documents()[0].root(), &sites);
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

    /// `find` gives what the pod sees (its hash); `find_all` also the names that give
    /// it no content (an image pull Secret), which renaming rewrites all the same.
    #[test]
    fn find_reads_what_the_pod_sees_and_find_all_every_name() {
        let src = "containers:\n- name: app\n  envFrom: [{secretRef: {name: env}}]\nimagePullSecrets:\n- name: pull\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = Catalog::builtin().pod_sites;
        let names = |refs: Vec<Reference>| refs.into_iter().map(|r| r.name).collect::<Vec<_>>();
        let root = tree.documents()[0].root();
        assert_eq!(names(find(&tree, root, "spec", &sites)), ["env"]);
        assert_eq!(
            names(find_all(&tree, root, "spec", &sites)),
            ["env", "pull"]
        );
    }

    /// A name field holding a list or a mapping is reported by its path; a string name,
    /// and a reference object that is not a mapping, are not.
    #[test]
    fn names_that_are_lists_or_mappings_are_reported_by_field() {
        let src = "containers:\n- name: app\n  envFrom:\n  - configMapRef: {name: [a]}\n  - configMapRef: {name: ok}\n  - configMapRef: [name]\nvolumes:\n- name: v\n  secret: {secretName: {x: y}}\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = Catalog::builtin().pod_sites;
        assert_eq!(
            unreadable_names(&tree, tree.documents()[0].root(), "spec", &sites),
            [
                "spec.containers[0].envFrom[0].configMapRef.name",
                "spec.volumes[0].secret.secretName"
            ]
        );
    }

    /// A cluster-scoped object's name without a namespace names an object in any
    /// namespace; with one (a StorageClass's `secretNamespace`), in that namespace; a
    /// namespaced object's names are in its own namespace.
    #[test]
    fn only_a_cluster_scoped_name_without_a_namespace_is_in_any_namespace() {
        let catalog = Catalog::builtin();
        let refs = |src: &str| {
            let tree = crate::yaml::parse(src).unwrap();
            let root = tree.documents()[0].root();
            let id = ResourceId::of(&tree, root);
            site_refs(&tree, root, &id, &catalog)
                .into_iter()
                .map(|r| {
                    (
                        tree.str(r.node).unwrap().to_string(),
                        r.namespace,
                        r.any_namespace,
                    )
                })
                .collect::<Vec<_>>()
        };
        let rule = "rules:\n- resources: [secrets]\n  resourceNames: [s]\n";
        assert_eq!(
            refs(&format!(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {{name: r}}\n{rule}"
            )),
            [("s".to_string(), None, true)]
        );
        assert_eq!(
            refs(&format!(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {{name: r, namespace: ns}}\n{rule}"
            )),
            [("s".to_string(), Some("ns".to_string()), false)]
        );
        assert_eq!(
            refs(
                "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: sc}\nparameters: {secretName: a, secretNamespace: ns, adminSecretName: b}\n"
            ),
            [
                ("a".to_string(), Some("ns".to_string()), false),
                ("b".to_string(), None, true)
            ]
        );
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
        let tree = crate::yaml::parse(src).unwrap();
        let refs = find(
            &tree,
            tree.documents()[0].root(),
            "spec",
            &crate::model::catalog::Catalog::builtin().pod_sites,
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
