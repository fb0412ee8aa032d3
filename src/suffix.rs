//! Kustomize-compatible hashed names for ConfigMaps and Secrets: choose each name from
//! the object's base name and content, record the base name on the object so later runs
//! are idempotent in place, and rewrite every reference the function knows.

use std::collections::{HashMap, HashSet};

use crate::config::Config;
use crate::krm::{KrmResult, ResourceId, Severity, annotation, flag, is_local_config};
use crate::naming::{self, ConfigKind, HashInput, HashScalar, MAX_NAME_LEN, SUFFIX_LEN};
use crate::references::{self, SourceKind};
use crate::workloads;
use crate::yaml::tree::{NodeKind, Style};
use crate::yaml::{Editor, Layout, NewValue, NodeId, Splices, Tree, scalar};

pub const NAME_SUFFIX_ANNOTATION: &str = "config-hash.dev/name-suffix";
pub const BASE_NAME_ANNOTATION: &str = "config-hash.dev/base-name";
pub const NEEDS_HASH_ANNOTATION: &str = "kustomize.config.k8s.io/needs-hash";
/// Set by kustomize on objects its generators made; it suffixes them itself later.
pub const KUSTOMIZE_GENERATED_ANNOTATION: &str = "internal.config.kubernetes.io/needsHashSuffix";

/// How a name is written at a reference site.
#[derive(Debug, Clone, Copy)]
enum Form {
    Name,
    /// `name` or `namespace/name` (ingress-nginx annotations).
    MaybeNamespaced,
}

/// A field outside pod specs that names a ConfigMap or Secret.
struct NameSite {
    groups: &'static [&'static str],
    kind: &'static str,
    /// Keys from the object to the mapping that holds the name (`*`: every list item).
    path: &'static [&'static str],
    name_key: &'static str,
    /// A sibling key giving the object's namespace, where the referrer is cluster-scoped;
    /// otherwise the referrer's own namespace applies.
    namespace_key: Option<&'static str>,
    target: SourceKind,
    form: Form,
}

const INGRESS: &[&str] = &["networking.k8s.io", "extensions"];
const ANNOTATIONS: &[&str] = &["metadata", "annotations"];

use Form::{MaybeNamespaced, Name};
use SourceKind::{ConfigMap, Secret};

#[rustfmt::skip]
const OTHER_SITES: &[NameSite] = &[
    NameSite { groups: &[""], kind: "ServiceAccount", path: &["imagePullSecrets", "*"], name_key: "name", namespace_key: None, target: Secret, form: Name },
    NameSite { groups: &[""], kind: "ServiceAccount", path: &["secrets", "*"], name_key: "name", namespace_key: None, target: Secret, form: Name },
    NameSite { groups: INGRESS, kind: "Ingress", path: &["spec", "tls", "*"], name_key: "secretName", namespace_key: None, target: Secret, form: Name },
    NameSite { groups: INGRESS, kind: "Ingress", path: ANNOTATIONS, name_key: "nginx.ingress.kubernetes.io/auth-secret", namespace_key: None, target: Secret, form: MaybeNamespaced },
    NameSite { groups: INGRESS, kind: "Ingress", path: ANNOTATIONS, name_key: "nginx.ingress.kubernetes.io/auth-tls-secret", namespace_key: None, target: Secret, form: MaybeNamespaced },
    NameSite { groups: INGRESS, kind: "Ingress", path: ANNOTATIONS, name_key: "nginx.ingress.kubernetes.io/fastcgi-params-configmap", namespace_key: None, target: ConfigMap, form: MaybeNamespaced },
    NameSite { groups: INGRESS, kind: "Ingress", path: ANNOTATIONS, name_key: "ingress.kubernetes.io/auth-secret", namespace_key: None, target: Secret, form: MaybeNamespaced },
    NameSite { groups: &["storage.k8s.io"], kind: "StorageClass", path: &["parameters"], name_key: "secretName", namespace_key: Some("secretNamespace"), target: Secret, form: Name },
    NameSite { groups: &["storage.k8s.io"], kind: "StorageClass", path: &["parameters"], name_key: "adminSecretName", namespace_key: Some("adminSecretNamespace"), target: Secret, form: Name },
    NameSite { groups: &["storage.k8s.io"], kind: "StorageClass", path: &["parameters"], name_key: "userSecretName", namespace_key: Some("userSecretNamespace"), target: Secret, form: Name },
    NameSite { groups: &["storage.k8s.io"], kind: "StorageClass", path: &["parameters"], name_key: "secretRef", namespace_key: Some("secretNamespace"), target: Secret, form: Name },
    NameSite { groups: &[""], kind: "PersistentVolume", path: &["spec", "azureFile"], name_key: "secretName", namespace_key: Some("secretNamespace"), target: Secret, form: Name },
    NameSite { groups: &[""], kind: "Node", path: &["spec", "configSource", "configMap"], name_key: "name", namespace_key: Some("namespace"), target: ConfigMap, form: Name },
];

/// Roles name objects in `rules[].resourceNames` for the resource types they grant.
const ROLE_KINDS: &[&str] = &["Role", "ClusterRole"];

type Key = (SourceKind, Option<String>, String);

/// Which names a reference may use for each renamed object, and its final name.
#[derive(Debug, Default)]
pub struct Renames {
    /// Every name a reference may use (base, current) -> final name.
    names: HashMap<Key, String>,
    /// Base names, to recognise any earlier suffixed name `base-xxxxxxxxxx`.
    bases: HashMap<Key, String>,
    /// Objects in the input, which are never taken for an earlier suffixed name.
    existing: HashSet<Key>,
}

impl Renames {
    /// The name `name` resolves to after renaming, if it names a renamed object.
    pub fn final_name(&self, kind: SourceKind, ns: &Option<String>, name: &str) -> Option<&str> {
        let key = (kind, ns.clone(), name.to_string());
        if let Some(n) = self.names.get(&key) {
            return Some(n);
        }
        if self.existing.contains(&key) {
            return None;
        }
        let (base, suffix) = name.rsplit_once('-')?;
        if suffix.len() != SUFFIX_LEN || !suffix.bytes().all(|b| b"2456789bcdfghkmt".contains(&b)) {
            return None;
        }
        self.bases
            .get(&(kind, ns.clone(), base.to_string()))
            .map(String::as_str)
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// The renames, their edits and results.
#[derive(Debug, Default)]
pub struct Planned {
    pub renames: Renames,
    pub splices: Splices,
    pub results: Vec<KrmResult>,
}

/// Decides which objects get a suffix, renames them, and rewrites references.
pub fn plan(tree: &Tree<'_>, items: &[NodeId], config: &Config) -> Planned {
    let mut out = Planned::default();
    let mut generated = 0usize;
    let mut renamed: Vec<(NodeId, ResourceId, String, String)> = Vec::new(); // item, id, base, final

    for (item, id, kind) in references::config_objects(tree, items) {
        out.renames
            .existing
            .insert((kind, id.namespace.clone(), id.name.clone()));
        let own = annotation(tree, item, NAME_SUFFIX_ANNOTATION);
        let opted_in = match own {
            Some("false") => false,
            Some("true") => true,
            _ => config.name_suffix || flag(tree, item, NEEDS_HASH_ANNOTATION),
        };
        if !opted_in {
            continue;
        }
        if annotation(tree, item, KUSTOMIZE_GENERATED_ANNOTATION) == Some("enabled") {
            generated += 1;
            continue;
        }
        let base = annotation(tree, item, BASE_NAME_ANNOTATION)
            .unwrap_or(&id.name)
            .to_string();
        let suffix = naming::kustomize_suffix(&hash_input(tree, item, kind));
        let new_name = format!("{base}-{suffix}");
        if new_name.len() > MAX_NAME_LEN {
            out.results.push(
                KrmResult::new(
                    Severity::Error,
                    format!(
                        "{id}: the suffixed name {new_name:?} would be {} characters, over Kubernetes' limit of {MAX_NAME_LEN}; shorten the name or set {NAME_SUFFIX_ANNOTATION}: \"false\"",
                        new_name.len()
                    ),
                )
                .about(tree, item)
                .at_field("metadata.name"),
            );
            continue;
        }
        let ns = id.namespace.clone();
        out.renames
            .names
            .insert((kind, ns.clone(), base.clone()), new_name.clone());
        out.renames
            .names
            .insert((kind, ns.clone(), id.name.clone()), new_name.clone());
        out.renames
            .bases
            .insert((kind, ns, base.clone()), new_name.clone());
        renamed.push((item, id, base, new_name));
    }

    // The objects themselves: new name, base name recorded, optionally immutable.
    for (item, id, base, new_name) in &renamed {
        let mut ed = Editor::new(tree, Layout::for_item(tree, *item));
        let edited = (|| {
            if id.name != *new_name {
                let name = tree.get_path(*item, &["metadata", "name"]).ok_or(
                    crate::yaml::EditError::Layout {
                        pos: 0,
                        what: "no metadata.name",
                    },
                )?;
                if tree.is_alias(name) {
                    return Err(crate::yaml::EditError::ThroughAlias {
                        pos: tree.node(name).span.start,
                    });
                }
                replace_name(tree, name, new_name, &mut ed.splices);
            }
            ed.set_string(
                *item,
                &["metadata", "annotations"],
                BASE_NAME_ANNOTATION,
                base,
            )?;
            if config.immutable {
                ed.set_value(*item, &["immutable"], NewValue::Raw("true".into()))?;
            }
            Ok::<(), crate::yaml::EditError>(())
        })();
        match edited {
            Ok(()) => std::mem::take(&mut ed.splices).append_to(&mut out.splices),
            Err(e) => out.results.push(
                KrmResult::new(Severity::Error, {
                    let (line, col) = tree.line_col(e.pos());
                    format!(
                        "{id}: cannot rename: {} (line {line} column {col})",
                        e.why()
                    )
                })
                .about(tree, *item),
            ),
        }
    }

    // References.
    let mut counts: HashMap<String, usize> = HashMap::new();
    let mut rewritten: HashSet<NodeId> = HashSet::new();
    if !out.renames.is_empty() {
        for &item in items {
            if is_local_config(tree, item) {
                continue;
            }
            let id = ResourceId::of(tree, item);
            for NameRef {
                node,
                kind,
                form,
                namespace,
            } in name_sites(tree, item, &id)
            {
                let Some(text) = tree.str(node) else { continue };
                let (prefix, name) = match form {
                    Form::MaybeNamespaced => match text.split_once('/') {
                        Some((ns, n)) if Some(ns) == namespace.as_deref() => (format!("{ns}/"), n),
                        Some(_) => continue,
                        None => (String::new(), text),
                    },
                    Form::Name => (String::new(), text),
                };
                let Some(new_name) = out.renames.final_name(kind, &namespace, name) else {
                    continue;
                };
                rewritten.insert(node);
                *counts.entry(new_name.to_string()).or_default() += 1;
                if name == new_name {
                    continue;
                }
                replace_name(tree, node, &format!("{prefix}{new_name}"), &mut out.splices);
            }
        }
        warn_unknown_mentions(tree, config, items, &renamed, &rewritten, &mut out.results);
    }

    // Results describe the output, not the change, so a second run reports the same.
    for (item, id, base, new_name) in &renamed {
        let n = counts.get(new_name).copied().unwrap_or(0);
        let mut result = KrmResult::new(
            Severity::Info,
            format!(
                "{} {}{new_name}: hashed name for base name {base} ({n} reference(s) point at it)",
                id.kind,
                id.namespace
                    .as_ref()
                    .map(|ns| format!("{ns}/"))
                    .unwrap_or_default()
            ),
        )
        .about(tree, *item);
        if let Some(r) = result.resource.as_mut() {
            r.name = new_name.clone();
        }
        out.results.push(result);
    }
    if generated > 0 {
        out.results.push(KrmResult::new(
            Severity::Info,
            format!(
                "{generated} ConfigMap/Secret(s) made by kustomize generators keep their names here; kustomize appends its own hash suffix after all transformers run"
            ),
        ));
    }
    out
}

/// The object as kustomize's hasher reads it.
fn hash_input<'t>(tree: &'t Tree<'_>, item: NodeId, kind: SourceKind) -> HashInput<'t> {
    let map = |field: &str| -> Option<Vec<(&'t str, HashScalar<'t>)>> {
        let node = tree.get(item, field)?;
        if tree.is_null(node) && !tree.is_map(node) {
            return None;
        }
        Some(
            tree.entries(node)
                .into_iter()
                .filter_map(|(k, v)| Some((tree.str(k)?, hash_scalar(tree, v))))
                .collect(),
        )
    };
    match kind {
        SourceKind::ConfigMap => HashInput {
            kind: ConfigKind::ConfigMap,
            data: map("data"),
            binary_data: map("binaryData"),
            string_data: None,
            secret_type: None,
        },
        SourceKind::Secret => HashInput {
            kind: ConfigKind::Secret,
            data: map("data"),
            binary_data: None,
            string_data: map("stringData"),
            secret_type: tree.get(item, "type").and_then(|t| tree.str(t)),
        },
    }
}

/// A value as kustomize's JSON encoding sees it: plain booleans, nulls and decimal
/// integers are JSON literals; everything else is a string.
fn hash_scalar<'t>(tree: &'t Tree<'_>, v: NodeId) -> HashScalar<'t> {
    let node = tree.node(tree.resolve(v));
    match &node.kind {
        NodeKind::Scalar {
            value,
            style: Style::Plain,
            tagged: false,
        } => {
            let s: &str = value;
            let decimal = |t: &str| {
                let digits = t.strip_prefix('-').unwrap_or(t);
                !digits.is_empty()
                    && digits.bytes().all(|b| b.is_ascii_digit())
                    && (digits == "0" || !digits.starts_with('0'))
            };
            match s {
                "" | "~" | "null" | "Null" | "NULL" => HashScalar::Literal("null"),
                "true" | "True" | "TRUE" => HashScalar::Literal("true"),
                "false" | "False" | "FALSE" => HashScalar::Literal("false"),
                t if decimal(t) => HashScalar::Literal(t),
                t => HashScalar::Str(t),
            }
        }
        NodeKind::Scalar { value, .. } => HashScalar::Str(value),
        _ => HashScalar::Literal("null"),
    }
}

/// A name scalar that may refer to a ConfigMap or Secret, and the namespace it names
/// it in.
struct NameRef {
    node: NodeId,
    kind: SourceKind,
    form: Form,
    namespace: Option<String>,
}

/// Every name scalar in `item` that may refer to a ConfigMap or Secret.
fn name_sites(tree: &Tree<'_>, item: NodeId, id: &ResourceId) -> Vec<NameRef> {
    let mut out = Vec::new();
    let here = |node, kind, form| NameRef {
        node,
        kind,
        form,
        namespace: id.namespace.clone(),
    };
    if let Some(w) = workloads::lookup(&id.api_version, &id.kind) {
        if let Some(spec) = tree
            .get_path(item, w.template)
            .and_then(|t| tree.get(t, "spec"))
        {
            for r in references::find_all(tree, spec, "spec") {
                out.push(here(r.name_node, r.kind, Name));
            }
        }
    }
    let group = workloads::group_of(&id.api_version);
    for site in OTHER_SITES {
        if site.kind != id.kind || !site.groups.contains(&group) {
            continue;
        }
        let mut parents = Vec::new();
        references::walk(tree, item, site.path, String::new(), &mut parents);
        for (parent, _) in parents {
            let Some(node) = tree.get(parent, site.name_key) else {
                continue;
            };
            let namespace = match site.namespace_key {
                Some(k) => tree
                    .get(parent, k)
                    .and_then(|n| tree.str(n))
                    .map(str::to_string),
                None => id.namespace.clone(),
            };
            out.push(NameRef {
                node,
                kind: site.target,
                form: site.form,
                namespace,
            });
        }
    }
    if group == "rbac.authorization.k8s.io" && ROLE_KINDS.contains(&id.kind.as_str()) {
        let rules = tree
            .get(item, "rules")
            .map(|r| tree.items(r))
            .unwrap_or_default();
        for &rule in rules {
            let granted = |resource: &str| {
                tree.get(rule, "resources")
                    .is_some_and(|r| tree.items(r).iter().any(|&x| tree.str(x) == Some(resource)))
            };
            let names = tree
                .get(rule, "resourceNames")
                .map(|n| tree.items(n))
                .unwrap_or_default();
            for (resource, kind) in [("configmaps", ConfigMap), ("secrets", Secret)] {
                if granted(resource) {
                    out.extend(names.iter().map(|&n| here(n, kind, Name)));
                }
            }
        }
    }
    out
}

/// Writes `new` over the scalar `node`, in a quoting style that keeps the document valid
/// (JSON stays double-quoted) and keeps the name a string for every reader.
fn replace_name(tree: &Tree<'_>, node: NodeId, new: &str, splices: &mut Splices) {
    let n = tree.node(node);
    let text = match &n.kind {
        NodeKind::Scalar {
            style: Style::SingleQuoted,
            ..
        } if !new.contains('\'') => format!("'{new}'"),
        NodeKind::Scalar {
            style: Style::Plain,
            ..
        } if scalar::plain_is_safe(new) => new.to_string(),
        _ => scalar::double_quoted(new),
    };
    // Keep any `&anchor` (and tag): its aliases name the same object, renamed with it.
    splices.replace(tree.content_start(node), n.span.end, text);
}

/// Warns about scalars that still carry an old name in fields the function does not know
/// (a CRD, a command-line flag): the user must update them by hand.
fn warn_unknown_mentions(
    tree: &Tree<'_>,
    config: &Config,
    items: &[NodeId],
    renamed: &[(NodeId, ResourceId, String, String)],
    rewritten: &HashSet<NodeId>,
    results: &mut Vec<KrmResult>,
) {
    let mut old: HashMap<(Option<String>, &str), &str> = HashMap::new();
    for (_, id, base, new_name) in renamed {
        old.insert((id.namespace.clone(), base.as_str()), new_name.as_str());
        old.insert((id.namespace.clone(), id.name.as_str()), new_name.as_str());
    }
    let renamed_items: HashSet<NodeId> = renamed.iter().map(|r| r.0).collect();
    for &item in items {
        if renamed_items.contains(&item) || is_local_config(tree, item) {
            continue;
        }
        let id = ResourceId::of(tree, item);
        // A Secret's values are never quoted in a message, even one that equals a name.
        if SourceKind::from_kind(&id.api_version, &id.kind) == Some(Secret) {
            continue;
        }
        let mut hits = Vec::new();
        scan(tree, item, String::new(), true, &mut |node, field| {
            if rewritten.contains(&node) {
                return;
            }
            if let Some(text) = tree.str(node) {
                if let Some(new) = old.get(&(id.namespace.clone(), text)) {
                    if *new != text {
                        hits.push((field, text.to_string(), new.to_string()));
                    }
                }
            }
        });
        for (field, text, new) in hits {
            let field = crate::stamp::output_field_of(tree, item, config, &field).unwrap_or(field);
            results.push(
                KrmResult::new(
                    Severity::Warning,
                    format!(
                        "{id}: {field} is {text:?}, the old name of an object now called {new:?}; config-hash does not know this field, so it was not rewritten (update it by hand if it is a reference)"
                    ),
                )
                .about(tree, item)
                .at_field(field),
            );
        }
    }
}

/// Visits every scalar value (not keys) under `node`, skipping `metadata` except its
/// annotations: names in labels and the object's own name are not references.
fn scan(
    tree: &Tree<'_>,
    node: NodeId,
    field: String,
    top: bool,
    f: &mut dyn FnMut(NodeId, String),
) {
    match &tree.node(node).kind {
        NodeKind::Scalar { .. } => f(node, field),
        NodeKind::Map { entries, .. } => {
            for &(k, v) in entries {
                let Some(key) = tree.str(k) else { continue };
                let path = if field.is_empty() {
                    key.to_string()
                } else {
                    format!("{field}.{key}")
                };
                if top && key == "metadata" {
                    if let Some(anns) = tree.get(v, "annotations") {
                        scan(tree, anns, format!("{path}.annotations"), false, f);
                    }
                    continue;
                }
                scan(tree, v, path, false, f);
            }
        }
        NodeKind::Seq { items, .. } => {
            for (i, &it) in items.iter().enumerate() {
                scan(tree, it, format!("{field}[{i}]"), false, f);
            }
        }
        NodeKind::Alias(_) => {}
    }
}
