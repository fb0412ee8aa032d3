//! ResourceList framing: where the items, the functionConfig and the results live.

use crate::read::input_error::InputError;
use crate::yaml::{NodeId, Tree};

/// Where the parts of a ResourceList are.
#[derive(Debug, Clone)]
pub struct ResourceList {
    pub root: NodeId,
    pub items: Vec<NodeId>,
    pub function_config: Option<NodeId>,
    /// The existing `results` entry (key, value), replaced on output.
    pub results: Option<(NodeId, NodeId)>,
}

impl ResourceList {
    pub fn locate(tree: &Tree<'_>) -> Result<ResourceList, InputError> {
        let at = |pos: usize, message: String| {
            let (line, column) = tree.line_col(pos);
            InputError {
                line,
                column,
                message,
                limit: None,
            }
        };
        let doc = match tree.documents() {
            [doc] => *doc,
            [] => return Err(at(0, "the input is empty; expected a ResourceList".into())),
            [_, second, ..] => {
                return Err(at(
                    tree.span(second.root()).start(),
                    "expected one ResourceList document, found several (a plain manifest stream is not a ResourceList)".into(),
                ));
            }
        };
        let root = doc.root();
        let kind = tree.get(root, "kind").and_then(|k| tree.str(k));
        if !tree.is_map(root) || kind != Some("ResourceList") {
            return Err(at(
                tree.span(root).start(),
                format!(
                    "expected kind: ResourceList, found {}",
                    kind.map_or("no kind".to_string(), |k| format!("kind: {k}"))
                ),
            ));
        }
        let items = match tree.get(root, "items") {
            Some(seq) if tree.is_seq(seq) => tree.items(seq).collect(),
            Some(n) if tree.is_null(n) => Vec::new(),
            Some(n) => {
                return Err(at(
                    tree.span(n).start(),
                    "items must be a list of resources".into(),
                ));
            }
            None => {
                return Err(at(
                    tree.span(root).start(),
                    "the ResourceList has no items field".into(),
                ));
            }
        };
        for &item in &items {
            if !tree.is_map(item) {
                return Err(at(
                    tree.span(item).start(),
                    "every item must be a resource (a mapping)".into(),
                ));
            }
        }
        let results = tree
            .own_entries(root)
            .find(|&(k, _)| tree.str(k) == Some("results"));
        // The function writes `results` anew: an anchor defined in the old ones would
        // leave the aliases naming it with nothing to name.
        if let Some((k, v)) = results {
            if tree.subtree_has_anchor(k) || tree.subtree_has_anchor(v) {
                return Err(at(
                    tree.span(k).start(),
                    "results defines an anchor (&name) that aliases may use, and the function replaces results: write them without anchors".into(),
                ));
            }
        }
        Ok(ResourceList {
            root,
            items,
            function_config: tree.get(root, "functionConfig"),
            results,
        })
    }
}
