//! The YAML layer, from the reader crate (`goyaml-splice`): the tree the product
//! walks, the editor that writes its changes as splices, the sets those splices travel
//! in (a chunk's, a skeleton's, a run's, a joined stream's) and the quoting rules. The
//! crate owns every byte offset; the product names nodes, chunks and edit sets.

pub use config_hash_yaml::{
    Checked, Context, Cut, EditError, Editor, Edits, Error, FillPlace, JoinError, Joined, Kind,
    Layout, Limit, LineIndex, NewValue, NodeId, Piece, Splices, Style, TextEnd, Tree,
    check_characters,
};

/// Line breaks as go-yaml reads them, and texts read through an LF copy.
pub mod breaks {
    pub use config_hash_yaml::breaks::{UNICODE_BREAKS, lone_cr_as_lf, reads_as_json};
}

/// How the function writes a string so that every YAML reader reads that string back.
pub mod scalar {
    pub use config_hash_yaml::scalar::{double_quoted, key};
}

/// Reads `src`, a whole input (its own context), as go-yaml reads it.
pub fn parse(src: &str) -> Result<Tree<'_>, Error> {
    Tree::parse(src, Context::of(src))
}
