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

    /// Every object, in order: each document's mapping, or the mapping items of a list.
    pub(super) fn each(&self) -> Vec<(&Tree<'t>, NodeId)> {
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

/// One entry of an object's `metadata.ownerReferences`, each field "" when absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Owner {
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
