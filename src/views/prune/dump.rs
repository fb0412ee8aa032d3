//! The objects of the render and of the live dump: each text a stream of documents, where
//! a `List` (what `kubectl get -o yaml` writes) or a `ResourceList` stands for its items.

use super::error::PruneError;
use crate::yaml::{NodeId, Tree};

/// The objects of several texts.
pub(super) struct Objects<'t> {
    trees: Vec<Tree<'t>>,
}

impl<'t> Objects<'t> {
    /// Parses every (description, text) pair; a text that is not YAML or JSON is an error
    /// naming it.
    pub(super) fn read(texts: &'t [(String, String)]) -> Result<Objects<'t>, PruneError> {
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

    /// Every object, in order: each document's mapping, or the objects of a list (its
    /// mapping items, lists in a list read the same way, to any depth).
    pub(super) fn each(&self) -> Vec<(&Tree<'t>, NodeId)> {
        let mut out = Vec::new();
        for tree in &self.trees {
            for doc in tree.documents() {
                // Its own stack, each list's items in order: a list nested deep cannot
                // overflow the thread's.
                let mut todo = vec![doc.root()];
                while let Some(node) = todo.pop() {
                    if !tree.is_map(node) {
                        continue;
                    }
                    match list_items(tree, node) {
                        Some(items) => {
                            todo.extend(tree.items(items).collect::<Vec<_>>().into_iter().rev())
                        }
                        None => out.push((tree, node)),
                    }
                }
            }
        }
        out
    }
}

/// The items of a list object: a `List` (what `kubectl get -o yaml` writes), a
/// `ResourceList`, or what the API server answers a list request with (`PodList`,
/// `ConfigMapList`, a custom kind's `WidgetList`), told from an object whose kind ends in
/// `List` by having no name of its own.
fn list_items(tree: &Tree<'_>, node: NodeId) -> Option<NodeId> {
    let kind = tree.get(node, "kind").and_then(|k| tree.str(k))?;
    let items = tree.get(node, "items").filter(|&i| tree.is_seq(i))?;
    let named = tree.get_path(node, &["metadata", "name"]).is_some();
    match kind {
        "List" | "ResourceList" => Some(items),
        _ if kind.ends_with("List") && !named => Some(items),
        _ => None,
    }
}

/// One entry of an object's `metadata.ownerReferences`, each field "" when absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Owner {
    pub(super) api_version: String,
    pub(super) kind: String,
    pub(super) name: String,
    pub(super) uid: String,
}

/// The object's owners, in order.
pub(super) fn owners(tree: &Tree<'_>, item: NodeId) -> Vec<Owner> {
    tree.get_path(item, &["metadata", "ownerReferences"])
        .into_iter()
        .flat_map(|o| tree.items(o))
        .map(|o| Owner {
            api_version: text_at(tree, o, &["apiVersion"]),
            kind: text_at(tree, o, &["kind"]),
            name: text_at(tree, o, &["name"]),
            uid: text_at(tree, o, &["uid"]),
        })
        .collect()
}

/// The string at `path` below `node`, "" when there is none.
pub(super) fn text_at(tree: &Tree<'_>, node: NodeId, path: &[&str]) -> String {
    tree.get_path(node, path)
        .and_then(|v| tree.str(v))
        .unwrap_or("")
        .to_string()
}
