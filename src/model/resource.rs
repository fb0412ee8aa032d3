//! Who a resource is (its apiVersion, kind, namespace and name), the file an
//! orchestrator read it from, and what it says about itself in its annotations.

use crate::model::catalog::annotations;
use crate::yaml::{NodeId, Tree};

/// Who a resource is, for results and matching.
///
/// Its four strings live in one allocation: a large input holds one for every ConfigMap,
/// Secret and result until the output is written, and four small strings each cost a
/// heap block (32 bytes or more) where one holds them all.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct ResourceId {
    /// apiVersion, kind, namespace and name, one after another.
    text: Box<str>,
    /// Where kind, namespace and name start in `text` (texts are under 4 GiB).
    kind_at: u32,
    namespace_at: u32,
    name_at: u32,
    /// `None` and `Some("")` are different namespaces to callers.
    has_namespace: bool,
}

impl ResourceId {
    pub fn new(api_version: &str, kind: &str, namespace: Option<&str>, name: &str) -> ResourceId {
        let ns = namespace.unwrap_or("");
        let mut text =
            String::with_capacity(api_version.len() + kind.len() + ns.len() + name.len());
        let mut mark = |part: &str| {
            text.push_str(part);
            u32::try_from(text.len()).unwrap_or(u32::MAX)
        };
        let kind_at = mark(api_version);
        let namespace_at = mark(kind);
        let name_at = mark(ns);
        text.push_str(name);
        ResourceId {
            text: text.into_boxed_str(),
            kind_at,
            namespace_at,
            name_at,
            has_namespace: namespace.is_some(),
        }
    }

    pub fn of(tree: &Tree<'_>, item: NodeId) -> ResourceId {
        let s = |path: &[&str]| tree.get_path(item, path).and_then(|n| tree.str(n));
        ResourceId::new(
            s(&["apiVersion"]).unwrap_or_default(),
            s(&["kind"]).unwrap_or_default(),
            s(&["metadata", "namespace"]).filter(|n| !n.is_empty()),
            s(&["metadata", "name"]).unwrap_or_default(),
        )
    }

    fn part(&self, from: u32, to: usize) -> &str {
        self.text.get(from as usize..to).unwrap_or_default()
    }

    pub fn api_version(&self) -> &str {
        self.part(0, self.kind_at as usize)
    }

    pub fn kind(&self) -> &str {
        self.part(self.kind_at, self.namespace_at as usize)
    }

    pub fn namespace(&self) -> Option<&str> {
        self.has_namespace
            .then(|| self.part(self.namespace_at, self.name_at as usize))
    }

    pub fn name(&self) -> &str {
        self.part(self.name_at, self.text.len())
    }

    /// The same resource in `namespace`.
    pub fn with_namespace(&self, namespace: Option<&str>) -> ResourceId {
        ResourceId::new(self.api_version(), self.kind(), namespace, self.name())
    }

    /// The same resource under `name`.
    pub fn with_name(&self, name: &str) -> ResourceId {
        ResourceId::new(self.api_version(), self.kind(), self.namespace(), name)
    }

    /// Kind, namespace and name, owned: the key of tables that find an object by them
    /// whatever its apiVersion.
    pub fn kind_namespace_name(&self) -> (String, Option<String>, String) {
        (
            self.kind().to_string(),
            self.namespace().map(str::to_string),
            self.name().to_string(),
        )
    }

    /// The four fields in their order: what ids are sorted by.
    fn key(&self) -> (&str, &str, Option<&str>, &str) {
        (
            self.api_version(),
            self.kind(),
            self.namespace(),
            self.name(),
        )
    }
}

impl Ord for ResourceId {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.key().cmp(&other.key())
    }
}

impl PartialOrd for ResourceId {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl std::fmt::Debug for ResourceId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceId")
            .field("api_version", &self.api_version())
            .field("kind", &self.kind())
            .field("namespace", &self.namespace())
            .field("name", &self.name())
            .finish()
    }
}

impl std::fmt::Display for ResourceId {
    /// `Deployment default/web`, or `Deployment web` without a namespace; a missing
    /// kind or name is said so rather than left blank.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = if self.kind().is_empty() {
            "(no kind)"
        } else {
            self.kind()
        };
        let name = if self.name().is_empty() {
            "(no metadata.name)"
        } else {
            self.name()
        };
        match self.namespace() {
            Some(ns) => write!(f, "{kind} {ns}/{name}"),
            None => write!(f, "{kind} {name}"),
        }
    }
}

/// True when the item carries `key: "true"`.
pub fn flag(tree: &Tree<'_>, item: NodeId, key: &str) -> bool {
    annotation(tree, item, key) == Some("true")
}

/// True for objects marked `config.kubernetes.io/local-config: "true"`.
pub fn is_local_config(tree: &Tree<'_>, item: NodeId) -> bool {
    flag(tree, item, annotations::LOCAL_CONFIG)
}

/// An annotation of an item (through aliases), if set.
pub fn annotation<'t>(tree: &'t Tree<'_>, item: NodeId, key: &str) -> Option<&'t str> {
    let anns = tree.get_path(item, &["metadata", "annotations"])?;
    tree.get(anns, key).and_then(|v| tree.str(v))
}

/// The file (and index in it) an orchestrator read the item from, from its annotations.
pub fn file_of(tree: &Tree<'_>, item: NodeId) -> Option<FileRef> {
    let first = |keys: &[&str]| keys.iter().find_map(|k| annotation(tree, item, k));
    let path = first(annotations::PATH);
    let index = first(annotations::INDEX);
    path.map(|p| FileRef::new(p, index))
}

/// The file an orchestrator read a resource from, and its index there: one allocation,
/// as every ConfigMap, Secret and result of a large input may hold one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileRef {
    /// The path, then the index.
    text: Box<str>,
    path_len: u32,
    has_index: bool,
}

impl FileRef {
    pub fn new(path: &str, index: Option<&str>) -> FileRef {
        FileRef {
            text: [path, index.unwrap_or("")].concat().into_boxed_str(),
            // Texts are under 4 GiB.
            path_len: u32::try_from(path.len()).unwrap_or(u32::MAX),
            has_index: index.is_some(),
        }
    }

    pub fn path(&self) -> &str {
        self.text.get(..self.path_len as usize).unwrap_or_default()
    }

    pub fn index(&self) -> Option<&str> {
        self.has_index
            .then(|| self.text.get(self.path_len as usize..).unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resource_id_gives_back_its_four_fields_and_sorts_by_them_in_order() {
        let parts = [
            ("apps/v1", "Deployment", Some("shop"), "web"),
            ("v1", "ConfigMap", None, "web"),
            ("v1", "ConfigMap", Some(""), "web"),
            ("", "", None, ""),
            ("v1", "Secret", Some("a"), ""),
            ("v1", "Secret", None, "b"),
            ("v1", "Secretb", None, ""),
        ];
        let ids: Vec<ResourceId> = parts
            .iter()
            .map(|&(a, k, ns, n)| ResourceId::new(a, k, ns, n))
            .collect();
        for (id, &(a, k, ns, n)) in ids.iter().zip(&parts) {
            assert_eq!(
                (id.api_version(), id.kind(), id.namespace(), id.name()),
                (a, k, ns, n)
            );
        }
        // A namespace left out is not the empty namespace, and a name that ends where
        // another id's kind would have is not that id.
        assert_ne!(ids[1], ids[2]);
        assert_ne!(ids[5], ids[6]);
        let mut by_id: Vec<usize> = (0..ids.len()).collect();
        by_id.sort_by(|&i, &j| ids[i].cmp(&ids[j]));
        let mut by_fields: Vec<usize> = (0..parts.len()).collect();
        by_fields.sort_by_key(|&i| parts[i]);
        assert_eq!(by_id, by_fields);
        for a in &ids {
            for b in &ids {
                assert_eq!(a.partial_cmp(b), Some(a.cmp(b)));
            }
        }
        // Debug shows the fields, as assertion messages did before they shared a buffer.
        assert_eq!(
            format!("{:?}", ids[0]),
            r#"ResourceId { api_version: "apps/v1", kind: "Deployment", namespace: Some("shop"), name: "web" }"#
        );
        assert_eq!(
            ids[0].kind_namespace_name(),
            ("Deployment".into(), Some("shop".into()), "web".into())
        );
        let moved = ids[1].with_namespace(Some("prod")).with_name("web-2");
        assert_eq!(
            moved,
            ResourceId::new("v1", "ConfigMap", Some("prod"), "web-2")
        );
    }

    #[test]
    fn a_file_ref_gives_back_its_path_and_index() {
        for (path, index) in [("a/b.yaml", Some("2")), ("a/b.yaml", None), ("a", Some(""))] {
            let f = FileRef::new(path, index);
            assert_eq!((f.path(), f.index()), (path, index));
        }
        assert_ne!(FileRef::new("a2", None), FileRef::new("a", Some("2")));
    }
}
