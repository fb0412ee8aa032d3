//! Per-key control: the keys a ConfigMap or Secret asks to leave out of every hash
//! (`config-hash.dev/ignore-keys`), because the app reloads them by itself, and the keys
//! a pod reads through a `subPath` mount, which never update in a running pod and so
//! stay hashed whatever the object asks.

use std::collections::HashMap;

use crate::model::catalog::CONTAINER_LISTS;
use crate::model::catalog::SourceKind;
use crate::model::catalog::annotations::IGNORE_KEYS;
use crate::model::reference::Keys;
use crate::read::references::Reference;
use crate::yaml::{NodeId, Tree};

/// The keys `config-hash.dev/ignore-keys` lists in an object's `metadata.annotations`
/// (`annotations`; comma-separated, blanks around each ignored), sorted, each once.
pub fn listed(tree: &Tree<'_>, annotations: Option<NodeId>) -> Vec<String> {
    // Read for every ConfigMap and Secret: nothing is allocated when the key is absent.
    let Some(text) = annotations
        .and_then(|a| tree.get(a, IGNORE_KEYS))
        .and_then(|v| tree.str(v))
    else {
        return Vec::new();
    };
    let mut keys: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(str::to_string)
        .collect();
    keys.sort();
    keys.dedup();
    keys
}

/// Keys of one source that a pod reads through a `subPath` mount.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SubPathRead {
    pub kind: SourceKind,
    /// The name as the pod spec writes it.
    pub name: String,
    /// `Keys::All` for a `subPathExpr`, whose value is known only in the pod.
    pub keys: Keys,
    /// The volume mount's field path, for the warning.
    pub field: String,
}

/// What each container's `subPath` (or `subPathExpr`) mounts read of the sources of the
/// pod spec's volumes. `refs` are the pod spec's references as the catalog found them
/// (so a volume site the user declared counts too); `spec_path` is the pod spec's field
/// path, which begins their fields.
pub fn sub_path_reads(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    refs: &[Reference],
) -> Vec<SubPathRead> {
    let mut out = Vec::new();
    let volumes: Vec<NodeId> = tree
        .get(spec, "volumes")
        .map(|v| tree.items(v).collect())
        .unwrap_or_default();
    let str_of = |node: NodeId, key: &str| tree.get(node, key).and_then(|n| tree.str(n));
    // Volumes by name (the first of a name, as the API server would refuse a second),
    // and the references inside each volume by its index: each mount looks up its own,
    // so many mounts of many volumes stay linear.
    let mut by_name: HashMap<&str, usize> = HashMap::new();
    for (i, &v) in volumes.iter().enumerate() {
        if let Some(name) = str_of(v, "name") {
            by_name.entry(name).or_insert(i);
        }
    }
    let prefix = format!("{spec_path}.volumes[");
    let mut in_volume: HashMap<usize, Vec<&Reference>> = HashMap::new();
    for r in refs {
        let index = r
            .field
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split_once(']'))
            .and_then(|(i, _)| i.parse::<usize>().ok());
        if let Some(i) = index {
            in_volume.entry(i).or_default().push(r);
        }
    }
    for list in CONTAINER_LISTS {
        let Some(containers) = tree.get(spec, list) else {
            continue;
        };
        for (c, container) in tree.items(containers).enumerate() {
            let Some(mounts) = tree.get(container, "volumeMounts") else {
                continue;
            };
            for (m, mount) in tree.items(mounts).enumerate() {
                let sub_path = str_of(mount, "subPath").filter(|s| !s.is_empty());
                let expr = str_of(mount, "subPathExpr").is_some_and(|s| !s.is_empty());
                if sub_path.is_none() && !expr {
                    continue;
                }
                let Some(volume) = str_of(mount, "name").and_then(|name| by_name.get(name)) else {
                    continue;
                };
                let field = format!("{spec_path}.{list}[{c}].volumeMounts[{m}]");
                for r in in_volume.get(volume).into_iter().flatten() {
                    let keys = match sub_path {
                        Some(path) if !expr => Keys::Some(keys_under(tree, r, path)),
                        _ => Keys::All,
                    };
                    out.push(SubPathRead {
                        kind: r.kind,
                        name: r.name.clone(),
                        keys,
                        field: field.clone(),
                    });
                }
            }
        }
    }
    out
}

/// The keys of reference `r` whose file is `path` or lies under it: each `items` entry's
/// `path` (its `key` without `items`, where every key is a file named after it).
fn keys_under(tree: &Tree<'_>, r: &Reference, path: &str) -> Vec<String> {
    let path = path.trim_start_matches("./").trim_end_matches('/');
    let under = |file: &str| {
        file == path
            || file
                .strip_prefix(path)
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let items: Vec<NodeId> = tree
        .get(r.object, "items")
        .map(|i| tree.items(i).collect())
        .unwrap_or_default();
    if items.is_empty() {
        return match &r.keys {
            Keys::Some(ks) => ks.iter().filter(|k| under(k)).cloned().collect(),
            Keys::All => vec![path.split('/').next().unwrap_or(path).to_string()],
        };
    }
    items
        .iter()
        .filter_map(|&i| {
            let key = tree.get(i, "key").and_then(|k| tree.str(k))?;
            let file = tree.get(i, "path").and_then(|p| tree.str(p)).unwrap_or(key);
            under(file).then(|| key.to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::Catalog;

    fn reads(spec: &str) -> Vec<(String, Keys)> {
        let tree = crate::yaml::parse(spec).unwrap();
        let spec = tree.documents()[0].root();
        let pod_sites = Catalog::builtin().pod_sites;
        let refs = crate::read::references::find_in_pod(&tree, spec, "spec", &pod_sites).seen;
        sub_path_reads(&tree, spec, "spec", &refs)
            .into_iter()
            .map(|r| (r.name, r.keys))
            .collect()
    }

    #[test]
    fn the_keys_under_a_sub_path_are_found_through_items_or_by_name() {
        let spec = "containers:
- name: app
  volumeMounts:
  - {name: whole, mountPath: /etc/a}
  - {name: cfg, mountPath: /etc/app.conf, subPath: app.conf}
  - {name: mapped, mountPath: /etc/tls, subPath: tls}
  - {name: projected, mountPath: /x, subPathExpr: $(POD)}
volumes:
- {name: whole, configMap: {name: w}}
- {name: cfg, configMap: {name: c}}
- name: mapped
  secret:
    secretName: s
    items: [{key: crt, path: tls/tls.crt}, {key: key, path: tls/tls.key}, {key: ca, path: tlsca}]
- name: projected
  projected: {sources: [{configMap: {name: p}}, {secret: {name: q}}]}
";
        assert_eq!(
            reads(spec),
            [
                ("c".to_string(), Keys::Some(vec!["app.conf".into()])),
                (
                    "s".to_string(),
                    Keys::Some(vec!["crt".into(), "key".into()])
                ),
                ("p".to_string(), Keys::All),
                ("q".to_string(), Keys::All),
            ]
        );
    }

    #[test]
    fn the_list_is_split_on_commas_and_trimmed() {
        let tree = crate::yaml::parse(
            "metadata: {annotations: {config-hash.dev/ignore-keys: ' b, a,,b '}}\n",
        )
        .unwrap();
        let annotations = |tree: &Tree<'_>| {
            tree.get_path(tree.documents()[0].root(), &["metadata", "annotations"])
        };
        assert_eq!(listed(&tree, annotations(&tree)), ["a", "b"]);
        let tree = crate::yaml::parse("metadata: {name: x, annotations: {a: b}}\n").unwrap();
        assert!(listed(&tree, annotations(&tree)).is_empty());
        assert!(listed(&tree, None).is_empty());
    }
}
