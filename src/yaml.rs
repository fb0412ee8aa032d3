//! The YAML layer, from the reader crate (`config-hash-yaml`): the tree the product
//! walks, the editor that writes its changes as splices, and the quoting rules. The
//! crate owns every byte offset; the product names nodes and says what to change.

pub use config_hash_yaml::edit::{FillPlace, TextEnd};
pub use config_hash_yaml::{
    Checked, Context, Cut, EditError, Editor, Edits, Error, JoinError, Joined, Kind, Layout, Limit,
    LineIndex, NewValue, NodeId, Piece, Splices, Style, Tree, breaks, check_characters, scalar,
    splice,
};

/// Reads `src`, a whole input (its own context), as go-yaml reads it.
pub fn parse(src: &str) -> Result<Tree<'_>, Error> {
    Tree::parse(src, Context::of(src))
}
