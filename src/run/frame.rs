//! What holds the items, and how a chunk's items are read: nothing (a manifest stream),
//! or a ResourceList read from its skeleton or, when the input is one chunk, from the
//! whole text. A chunk that does not read on its own makes the input one chunk.

use crate::edit::results::ResultsStyle;
use crate::model::invocation::is_package_kptfile;
use crate::read::chunks::{Chunk, Coarser, Frame as Framing, Shape, Split};
use crate::read::input_error::InputError;
use crate::read::resource_list::ResourceList;
use crate::yaml::{Context, Cut, NodeId, Splices, Tree};

/// Why an attempt stopped: the input cannot be read, or a chunk must be bigger.
pub(crate) enum Stop {
    Input(InputError),
    Coarser(Coarser),
}

impl From<InputError> for Stop {
    fn from(e: InputError) -> Self {
        Stop::Input(e)
    }
}

/// What holds the items: nothing (a manifest stream), or a ResourceList read from its
/// skeleton (the input without its items) or, when the input is one chunk, from the
/// whole text, whose tree is then that chunk's too.
pub(crate) struct Frame<'t> {
    pub(crate) tree: Option<Tree<'t>>,
    pub(crate) list: Option<ResourceList>,
    /// The input with its items cut out, when the tree is of that skeleton.
    cut: Option<&'t Cut>,
    /// The items of the whole input, when the tree is of the whole input.
    pub(crate) whole_items: Option<Vec<NodeId>>,
}

impl<'t> Frame<'t> {
    /// Reads the frame the splitter found. A skeleton that does not read as the
    /// ResourceList it should be makes the input one chunk.
    pub(crate) fn read(
        body: &'t str,
        skeleton: Option<&'t Cut>,
        split: &Split,
        ctx: Context,
    ) -> Result<Frame<'t>, Stop> {
        let unusual = || {
            Stop::Coarser(Coarser::UnusualList {
                line: 1,
                what: "not separable from the list around them",
            })
        };
        match (&split.frame, skeleton) {
            (Framing::List { .. }, Some(skeleton)) => {
                let tree = Tree::parse(skeleton.text(), ctx).map_err(|_| unusual())?;
                if !crate::read::stream::is_resource_list(&tree) {
                    return Err(Stop::Coarser(Coarser::PossibleResourceList));
                }
                let list = ResourceList::locate(&tree).map_err(|_| unusual())?;
                // The cut must be where the frame's own `items` value was: a line that
                // only looked like `items:` (inside a multi-line quoted scalar, say) would
                // make chunks of text the whole input reads otherwise.
                if !skeleton.follows_key(&tree, list.root, "items") || !list.items.is_empty() {
                    return Err(unusual());
                }
                Ok(Frame {
                    tree: Some(tree),
                    list: Some(list),
                    cut: Some(skeleton),
                    whole_items: None,
                })
            }
            (Framing::Whole, _) => {
                let tree = Tree::parse(body, ctx).map_err(InputError::from)?;
                let list = if crate::read::stream::is_resource_list(&tree) {
                    Some(ResourceList::locate(&tree)?)
                } else {
                    None
                };
                let items = match &list {
                    Some(l) => l.items.clone(),
                    None => crate::read::stream::items(&tree),
                };
                Ok(Frame {
                    tree: Some(tree),
                    list,
                    cut: None,
                    whole_items: Some(items),
                })
            }
            _ => Ok(Frame {
                tree: None,
                list: None,
                cut: None,
                whole_items: None,
            }),
        }
    }

    pub(crate) fn is_resource_list(&self) -> bool {
        self.list.is_some()
    }

    /// The ResourceList's functionConfig, unless it is absent or null.
    pub(crate) fn function_config(&self) -> Option<(&Tree<'t>, NodeId)> {
        let (tree, list) = (self.tree.as_ref()?, self.list.as_ref()?);
        let node = list.function_config.filter(|&n| !tree.is_null(n))?;
        Some((tree, node))
    }

    /// Runs `f` on a chunk's tree and items: the whole input's are the frame's own,
    /// every other chunk is parsed here.
    pub(crate) fn with_chunk<R>(
        &self,
        body: &'t str,
        chunk: &Chunk,
        ctx: Context,
        f: impl FnOnce(&Tree<'t>, &[NodeId]) -> R,
    ) -> Result<R, Stop> {
        if let (Shape::Whole, Some(tree), Some(items)) =
            (chunk.shape, &self.tree, &self.whole_items)
        {
            return Ok(f(tree, items));
        }
        let tree = parse_chunk(body, chunk, ctx)?;
        let items = items_of(&tree, chunk)?;
        Ok(f(&tree, &items))
    }

    /// Writes the ResourceList's results where the frame says (nothing for a stream).
    pub(crate) fn write_results(&self, body: &str, splices: &mut Splices) -> Option<ResultsStyle> {
        let (tree, list) = (self.tree.as_ref()?, self.list.as_ref()?);
        let Some(skeleton) = self.cut else {
            return crate::edit::results::write_results(tree, list, splices);
        };
        let end = crate::edit::results::TextEnd::of_cut(tree, list.root, body, skeleton);
        let mut in_skeleton = Splices::new();
        let style = crate::edit::results::write_results_before(tree, list, end, &mut in_skeleton);
        skeleton.put_back(in_skeleton).append_to(splices);
        style
    }
}

/// The package's Kptfile among the items of a ResourceList cut into chunks, if any:
/// only chunks whose text names a Kptfile are parsed for it.
pub(crate) fn kptfile_chunk<'a>(
    body: &'a str,
    chunks: &[Chunk],
    ctx: Context,
) -> Result<Option<(Tree<'a>, NodeId)>, Stop> {
    for chunk in chunks {
        if !chunk.piece().of(body).contains("Kptfile") {
            continue;
        }
        let tree = parse_chunk(body, chunk, ctx)?;
        let items = items_of(&tree, chunk)?;
        if let Some(&item) = items.iter().find(|&&i| is_package_kptfile(&tree, i)) {
            return Ok(Some((tree, item)));
        }
    }
    Ok(None)
}

/// Parses one chunk; a chunk that does not parse makes the whole input one chunk, which
/// reports the error as the whole input's.
pub(crate) fn parse_chunk<'a>(
    body: &'a str,
    chunk: &Chunk,
    ctx: Context,
) -> Result<Tree<'a>, Stop> {
    Tree::parse(chunk.piece().of(body), ctx.at_line(chunk.line_base)).map_err(|_| {
        Stop::Coarser(Coarser::ChunkUnreadable {
            line: chunk.line_base + 1,
        })
    })
}

/// The items of a chunk's tree, or a reason to read the input whole.
pub(crate) fn items_of(tree: &Tree<'_>, chunk: &Chunk) -> Result<Vec<NodeId>, Stop> {
    let unreadable = || {
        Stop::Coarser(Coarser::ChunkUnreadable {
            line: chunk.line_base + 1,
        })
    };
    let items: Vec<NodeId> = match (chunk.shape, tree.documents()) {
        (Shape::Documents, _) => return Ok(crate::read::stream::items(tree)),
        // A chunk of entries starts at a dash at the entries' column, so it reads as one
        // block sequence (a root of another kind has no items here); a JSON item starts
        // at its opening brace, so it reads as one mapping.
        (Shape::Entries, [doc]) => tree.items(doc.root()).collect(),
        (Shape::Node, [doc]) => vec![doc.root()],
        _ => return Err(unreadable()),
    };
    // Every item must be a resource: one that is not is refused by the whole read.
    if items.is_empty() || !items.iter().all(|&i| tree.is_map(i)) {
        return Err(unreadable());
    }
    Ok(items)
}
