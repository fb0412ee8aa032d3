//! Plain manifest streams (`kustomize build | config-hash`): every YAML document is an
//! item, and a `kind: List` document contributes its items.

use crate::yaml::{NodeId, Tree};

/// The resources of a multi-document stream, in order.
pub fn items(tree: &Tree<'_>) -> Vec<NodeId> {
    let mut out = Vec::new();
    for doc in tree.documents() {
        let root = doc.root();
        if !tree.is_map(root) {
            continue;
        }
        let kind = tree.get(root, "kind").and_then(|k| tree.str(k));
        let list_items = tree.get(root, "items").filter(|&i| tree.is_seq(i));
        match (kind, list_items) {
            (Some(k), Some(seq)) if k == "List" || k.ends_with("List") => {
                out.extend(tree.items(seq).filter(|&i| tree.is_map(i)));
            }
            _ => out.push(root),
        }
    }
    out
}

/// True when the text is one ResourceList document (what KRM orchestrators send).
pub fn is_resource_list(tree: &Tree<'_>) -> bool {
    matches!(tree.documents(), [doc]
        if tree.get(doc.root(), "kind").and_then(|k| tree.str(k)) == Some("ResourceList"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_and_lists_become_items() {
        let src = "a: 1\n---\n# only a comment\n---\nkind: List\nitems:\n- b: 2\n- c: 3\n";
        let tree = crate::yaml::parse(src).unwrap();
        assert_eq!(items(&tree).len(), 3);
        assert!(!is_resource_list(&tree));
    }
}
