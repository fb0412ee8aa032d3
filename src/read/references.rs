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
    let len = field.len();
    if tree.is_seq(node) {
        for (i, item) in tree.items(node).enumerate() {
            // Most items lack the next key (a volume has one plugin of many): the walk
            // would find nothing there, so it is not worth the index in the path string.
            if let Some(head) = path.first()
                && !tree.is_seq(item)
                && tree.get(item, head).is_none()
            {
                continue;
            }
            push_index(field, i);
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

/// Appends a list index to a field path, `[i]`, without the formatting machinery (this
/// runs for every list item a walk enters).
fn push_index(field: &mut String, i: usize) {
    field.push('[');
    push_decimal(field, i);
    field.push(']');
}

/// Appends `n` in decimal, without the formatting machinery: field paths and rename
/// keys write numbers on hot paths, where `write!` was most of their cost.
pub fn push_decimal(out: &mut String, n: usize) {
    if n >= 10 {
        push_decimal(out, n / 10);
    }
    out.push(char::from(b'0' + (n % 10) as u8));
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

/// What stamping reads of a pod spec (see [`find_in_pod`]).
#[derive(Debug, Default)]
pub struct PodReferences {
    /// Every reference whose content the pod sees.
    pub seen: Vec<Reference>,
    /// Field paths of reference objects whose name field is there but is a list or
    /// mapping, not a string: the API server rejects them, and they cannot be read, so
    /// they are reported rather than skipped without a word.
    pub unreadable: Vec<String>,
}

/// The references whose content the pod sees in the pod spec at `spec` (whose field
/// path is `spec_path`), and the names that are not strings at any site: one walk of
/// the sites for both, as every workload is stamped.
pub fn find_in_pod(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
) -> PodReferences {
    let mut out = PodReferences::default();
    for site in sites {
        let name_field = name_field(site);
        for (reached, container) in site_objects(tree, spec, spec_path, site) {
            let node = reached.node;
            if tree.is_map(node)
                && tree
                    .get(node, name_field)
                    .is_some_and(|name| tree.is_map(name) || tree.is_seq(name))
            {
                out.unreadable
                    .push(format!("{}.{name_field}", reached.field));
            }
            if site.visible {
                out.seen
                    .extend(reference(tree, site, node, reached.field, container));
            }
        }
    }
    out
}

/// Every reference in the pod spec, including those that give the pod no content.
pub fn find_all(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, sites, |_| true)
}

/// The references in the pod spec that give the pod no content (an image pull Secret,
/// a volume plugin's credentials): names renaming rewrites and `graph` shows.
pub fn find_unseen(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
) -> Vec<Reference> {
    find_sites(tree, spec, spec_path, sites, |s| !s.visible)
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
        // Most pod specs lack most sites' first field (a volume plugin's): no path
        // string for them. (The walker would find nothing there either; only a list,
        // which it walks item by item, is left to it.)
        let absent = |first: &String| !tree.is_seq(spec) && tree.get(spec, first).is_none();
        if steps.first().is_some_and(absent) {
            return Vec::new();
        }
        // Nor for a list none of whose items has the next field (most pods' volumes have
        // none of most plugins).
        if let [first, next, ..] = steps
            && let Some(list) = tree.get(spec, first).filter(|&l| tree.is_seq(l))
            && !tree
                .items(list)
                .any(|v| tree.is_seq(v) || tree.get(v, next).is_some())
        {
            return Vec::new();
        }
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
/// `spec_path`) at the sites `wanted` keeps, in document order per site.
fn find_sites(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    sites: &[PodSite],
    wanted: impl Fn(&PodSite) -> bool,
) -> Vec<Reference> {
    let mut out = Vec::new();
    for site in sites.iter().filter(|s| wanted(s)) {
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

/// A ConfigMap or Secret (or SecretProviderClass) an object names, and where it is looked
/// up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub kind: SourceKind,
    /// The namespace it is named in: the object's own, or one the reference gives
    /// (`namespace/name`, a sibling field).
    pub namespace: Option<String>,
    /// Named from a cluster-scoped object with no namespace given: an object of that name
    /// in any namespace.
    pub any_namespace: bool,
    pub name: String,
    /// The field path of the reference.
    pub field: String,
}

/// Every object `item` names wherever the catalog says an object can name one: the
/// sites renaming rewrites ([`name_refs`]: its pod template's, its kind's name sites, a
/// `namespace/name` read as such), the pod template the catalog says it records for a
/// rollback (a ControllerRevision's), and the annotation sites on the object and on its
/// pod template. What a view asks of a live object that may still read something.
pub fn names_given(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
) -> Vec<Named> {
    let own = || id.namespace().map(str::to_string);
    let mut out = Vec::new();
    let mut template = catalog
        .workload(id.api_version(), id.kind())
        .and_then(|w| tree.get_path(item, &path_strs(&w.template)));
    let recorded = catalog
        .lineage(id.api_version(), id.kind())
        .and_then(|row| row.records.as_ref());
    if let Some(path) = recorded {
        template = tree.get_path(item, &path_strs(path));
        if let Some(spec) = template.and_then(|t| tree.get(t, "spec")) {
            let spec_path = format!("{}.spec", path.dotted());
            out.extend(
                find_all(tree, spec, &spec_path, &catalog.pod_sites)
                    .into_iter()
                    .map(|r| Named {
                        kind: r.kind,
                        namespace: own(),
                        any_namespace: false,
                        name: r.name,
                        field: r.field,
                    }),
            );
        }
    }
    for r in name_refs(tree, item, id, catalog) {
        let Some(text) = tree.str(r.node) else {
            continue;
        };
        let (namespace, name) = match (r.form, text.split_once('/')) {
            (Form::MaybeNamespaced, Some((ns, n))) => (Some(ns.to_string()), n),
            _ => (r.namespace, text),
        };
        out.push(Named {
            kind: r.kind,
            namespace,
            any_namespace: r.any_namespace,
            name: name.to_string(),
            field: r.field,
        });
    }
    // A Pod is its own template: its annotations are read once.
    let holders = std::iter::once(item).chain(template.filter(|&t| t != item));
    for holder in holders {
        let (refs, _) = find_annotations(tree, holder, &catalog.annotation_sites);
        out.extend(refs.into_iter().map(|r| Named {
            kind: r.kind,
            namespace: r.namespace.or_else(own),
            any_namespace: false,
            name: r.name,
            field: r.field,
        }));
    }
    out
}

/// Every object `item` may name read by shape, wherever it sits: any mapping holding the
/// last two steps of a pod site (`configMapKeyRef.name`, `secretRef.name`,
/// `secret.secretName`, ...) names that site's kind, and the annotation sites are read on
/// any mapping holding `metadata`. For kinds the catalog cannot know field by field (a
/// custom resource that embeds containers, volumes or pod templates in its own layout,
/// such as an Argo CronWorkflow): reading too much only keeps more, never less. Each
/// node is read once, however many aliases lead to it.
pub fn by_shape(tree: &Tree<'_>, item: NodeId, id: &ResourceId, catalog: &Catalog) -> Vec<Named> {
    // (holding key, name key, kind): the pod sites' tails, once each.
    let mut tails: Vec<(&str, &str, SourceKind)> = catalog
        .pod_sites
        .iter()
        .filter_map(|site| match site.path.steps() {
            [.., holder, name] => Some((holder.as_str(), name.as_str(), site.kind)),
            _ => None,
        })
        .collect();
    tails.sort_unstable();
    tails.dedup();
    let own = || id.namespace().map(str::to_string);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    // The walk keeps its own stack: a deep object cannot overflow the thread's.
    let mut todo = vec![(item, String::new())];
    while let Some((node, field)) = todo.pop() {
        let node = tree.resolve(node);
        if !seen.insert(node) {
            continue;
        }
        if tree.is_seq(node) {
            for (i, child) in tree.items(node).enumerate() {
                todo.push((child, format!("{field}[{i}]")));
            }
            continue;
        }
        if !tree.is_map(node) {
            continue;
        }
        for &(holder, name_key, kind) in &tails {
            let Some(held) = tree.get(node, holder) else {
                continue;
            };
            let mut at = field.clone();
            push_key(&mut at, holder);
            // The holder, or each item of a list of them (`imagePullSecrets`).
            for reached in walk(tree, held, &[], at) {
                let name = tree
                    .get(reached.node, name_key)
                    .filter(|_| tree.is_map(reached.node))
                    .and_then(|n| tree.str(n));
                let Some(name) = name else {
                    continue;
                };
                out.push(Named {
                    kind,
                    namespace: own(),
                    any_namespace: false,
                    name: name.to_string(),
                    field: reached.field,
                });
            }
        }
        if tree.get(node, "metadata").is_some() {
            let (refs, _) = find_annotations(tree, node, &catalog.annotation_sites);
            out.extend(refs.into_iter().map(|r| Named {
                kind: r.kind,
                namespace: r.namespace.or_else(own),
                any_namespace: false,
                name: r.name,
                field: if field.is_empty() {
                    r.field
                } else {
                    format!("{field}.{}", r.field)
                },
            }));
        }
        // Children in reverse, so the stack reads them in document order.
        let children: Vec<(NodeId, NodeId)> = tree.entries(node);
        for (k, v) in children.into_iter().rev() {
            if let Some(key) = tree.str(k) {
                let mut at = field.clone();
                push_key(&mut at, key);
                todo.push((v, at));
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
    fn an_index_is_written_in_decimal() {
        for i in [0, 7, 10, 42, 1000, 123_456_789, usize::MAX] {
            let mut field = String::from("spec.volumes");
            push_index(&mut field, i);
            assert_eq!(field, format!("spec.volumes[{i}]"));
        }
    }

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

    /// `find_in_pod` gives what the pod sees (its hash); `find_all` also the names that
    /// give it no content (an image pull Secret), which renaming rewrites all the same.
    #[test]
    fn find_reads_what_the_pod_sees_and_find_all_every_name() {
        let src = "containers:\n- name: app\n  envFrom: [{secretRef: {name: env}}]\nimagePullSecrets:\n- name: pull\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = Catalog::builtin().pod_sites;
        let names = |refs: Vec<Reference>| refs.into_iter().map(|r| r.name).collect::<Vec<_>>();
        let root = tree.documents()[0].root();
        assert_eq!(
            names(find_in_pod(&tree, root, "spec", &sites).seen),
            ["env"]
        );
        assert_eq!(
            names(find_all(&tree, root, "spec", &sites)),
            ["env", "pull"]
        );
    }

    /// The in-tree volume plugins' credentials Secrets are names the pod does not see:
    /// renamed and kept (find_all), never hashed (find_in_pod).
    #[test]
    fn volume_plugin_credentials_are_names_the_pod_does_not_see() {
        let src = "containers: [{name: app}]\nvolumes:\n- {name: a, iscsi: {secretRef: {name: s1}}}\n- {name: b, flexVolume: {secretRef: {name: s2}}}\n- {name: c, cephfs: {secretRef: {name: s3}}}\n- {name: d, rbd: {secretRef: {name: s4}}}\n- {name: e, scaleIO: {secretRef: {name: s5}}}\n- {name: f, storageos: {secretRef: {name: s6}}}\n- {name: g, azureFile: {secretName: s7}}\n- {name: h, cinder: {secretRef: {name: s8}}}\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = Catalog::builtin().pod_sites;
        let root = tree.documents()[0].root();
        assert!(find_in_pod(&tree, root, "spec", &sites).seen.is_empty());
        let all: Vec<(String, String)> = find_all(&tree, root, "spec", &sites)
            .into_iter()
            .map(|r| (r.name, r.field))
            .collect();
        let want: Vec<(String, String)> = [
            ("s1", "spec.volumes[0].iscsi.secretRef"),
            ("s2", "spec.volumes[1].flexVolume.secretRef"),
            ("s3", "spec.volumes[2].cephfs.secretRef"),
            ("s4", "spec.volumes[3].rbd.secretRef"),
            ("s5", "spec.volumes[4].scaleIO.secretRef"),
            ("s6", "spec.volumes[5].storageos.secretRef"),
            ("s8", "spec.volumes[7].cinder.secretRef"),
            ("s7", "spec.volumes[6].azureFile"),
        ]
        .map(|(n, f)| (n.to_string(), f.to_string()))
        .into();
        assert_eq!(all, want);
        // Every one is a name the pod does not see, which graph shows as a name.
        let unseen: Vec<String> = find_unseen(&tree, root, "spec", &sites)
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(unseen, ["s1", "s2", "s3", "s4", "s5", "s6", "s8", "s7"]);
        let src = "containers: [{name: app, envFrom: [{secretRef: {name: env}}]}]\nimagePullSecrets: [{name: pull}]\n";
        let tree = crate::yaml::parse(src).unwrap();
        let root = tree.documents()[0].root();
        let unseen: Vec<String> = find_unseen(&tree, root, "spec", &sites)
            .into_iter()
            .map(|r| r.name)
            .collect();
        assert_eq!(unseen, ["pull"]);
    }

    /// A name field holding a list or a mapping is reported by its path; a string name,
    /// and a reference object that is not a mapping, are not.
    #[test]
    fn names_that_are_lists_or_mappings_are_reported_by_field() {
        let src = "containers:\n- name: app\n  envFrom:\n  - configMapRef: {name: [a]}\n  - configMapRef: {name: ok}\n  - configMapRef: [name]\nvolumes:\n- name: v\n  secret: {secretName: {x: y}}\n";
        let tree = crate::yaml::parse(src).unwrap();
        let sites = Catalog::builtin().pod_sites;
        let found = find_in_pod(&tree, tree.documents()[0].root(), "spec", &sites);
        assert_eq!(
            found.unreadable,
            [
                "spec.containers[0].envFrom[0].configMapRef.name",
                "spec.volumes[0].secret.secretName"
            ]
        );
        // The string name beside them is read.
        let seen: Vec<&str> = found.seen.iter().map(|r| r.name.as_str()).collect();
        assert_eq!(seen, ["ok"]);
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

    /// What a live object names: its pod template's sites (a ControllerRevision's
    /// recorded one too), its name sites (`namespace/name` read as such, a cluster-scoped
    /// object's names in any namespace), and the annotation sites on it and its template.
    #[test]
    fn names_given_reads_every_site_an_object_can_name_one_at() {
        let catalog = Catalog::builtin();
        let given = |src: &str| {
            let tree = crate::yaml::parse(src).unwrap();
            let root = tree.documents()[0].root();
            let id = ResourceId::of(&tree, root);
            names_given(&tree, root, &id, &catalog)
                .into_iter()
                .map(|n| {
                    let ns = n.namespace.unwrap_or_default();
                    format!(
                        "{} {ns}/{} {} {}",
                        n.kind.as_str(),
                        n.name,
                        n.any_namespace,
                        n.field
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            given(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n  namespace: shop\n  annotations: {config-hash.dev/extra-secrets: other/s}\nspec:\n  template:\n    metadata:\n      annotations: {configmap.reloader.stakater.com/reload: r}\n    spec:\n      containers: [{name: c, envFrom: [{configMapRef: {name: e}}]}]\n"
            ),
            [
                "ConfigMap shop/e false spec.template.spec.containers[0].envFrom[0].configMapRef",
                "Secret other/s false metadata.annotations[config-hash.dev/extra-secrets]",
                "ConfigMap shop/r false metadata.annotations[configmap.reloader.stakater.com/reload]",
            ]
        );
        assert_eq!(
            given(
                "apiVersion: apps/v1\nkind: ControllerRevision\nmetadata: {name: db-1, namespace: shop}\ndata:\n  spec:\n    template:\n      spec: {imagePullSecrets: [{name: pull}]}\n"
            ),
            ["Secret shop/pull false data.spec.template.spec.imagePullSecrets[0]"]
        );
        assert_eq!(
            given(
                "apiVersion: networking.k8s.io/v1\nkind: Ingress\nmetadata:\n  name: i\n  namespace: shop\n  annotations: {nginx.ingress.kubernetes.io/auth-secret: auth/basic}\nspec: {tls: [{secretName: tls}]}\n"
            ),
            [
                "Secret shop/tls false spec.tls[0].secretName",
                "Secret auth/basic false metadata.annotations[nginx.ingress.kubernetes.io/auth-secret]",
            ]
        );
        assert_eq!(
            given(
                "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: r}\nrules: [{resources: [configmaps], resourceNames: [c]}]\n"
            ),
            ["ConfigMap /c true rules[0].resourceNames[0]"]
        );
        // A Pod's annotations once, though it is its own template.
        assert_eq!(
            given(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  annotations: {config-hash.dev/extra-configmaps: x}\nspec: {containers: []}\n"
            ),
            ["ConfigMap /x false metadata.annotations[config-hash.dev/extra-configmaps]"]
        );
    }

    /// By shape: a custom resource's containers and volumes, wherever its layout puts
    /// them, and the annotations of any metadata in it; a name that is not a string, and
    /// a key that only resembles a site's, name nothing.
    #[test]
    fn by_shape_reads_site_tails_and_annotations_anywhere() {
        let src = "apiVersion: argoproj.io/v1alpha1\nkind: CronWorkflow\nmetadata: {name: nightly, namespace: shop}\nspec:\n  workflowSpec:\n    templates:\n    - name: main\n      metadata:\n        annotations: {config-hash.dev/extra-configmaps: tmpl}\n      container:\n        env:\n        - {name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}\n        envFrom: [{secretRef: {name: env}}, {secretRef: {name: [not-a-name]}}]\n    volumes:\n    - {name: v, secret: {secretName: vol}}\n    - {name: w, configMap: {name: proj}}\n    imagePullSecrets: [{name: pull}]\n    note: {secretName: not-a-site}\n";
        let tree = crate::yaml::parse(src).unwrap();
        let root = tree.documents()[0].root();
        let id = ResourceId::of(&tree, root);
        let mut got: Vec<String> = by_shape(&tree, root, &id, &Catalog::builtin())
            .into_iter()
            .map(|n| {
                let ns = n.namespace.unwrap_or_default();
                format!("{} {ns}/{} {}", n.kind.as_str(), n.name, n.field)
            })
            .collect();
        got.sort();
        assert_eq!(
            got,
            [
                "ConfigMap shop/cm spec.workflowSpec.templates[0].container.env[0].valueFrom.configMapKeyRef",
                "ConfigMap shop/proj spec.workflowSpec.volumes[1].configMap",
                "ConfigMap shop/tmpl spec.workflowSpec.templates[0].metadata.annotations[config-hash.dev/extra-configmaps]",
                "Secret shop/env spec.workflowSpec.templates[0].container.envFrom[0].secretRef",
                "Secret shop/pull spec.workflowSpec.imagePullSecrets[0]",
                "Secret shop/vol spec.workflowSpec.volumes[0].secret",
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
        let refs = find_in_pod(
            &tree,
            tree.documents()[0].root(),
            "spec",
            &crate::model::catalog::Catalog::builtin().pod_sites,
        )
        .seen;
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
