//! The YAML layer: a spanned tree over the parser, quoting rules, and the splice editor
//! that changes only the bytes it means to.

pub mod breaks;
pub mod edit;
pub mod scalar;
pub mod splice;
pub mod tree;

pub use edit::{EditError, Editor, Layout, NewValue};
pub use splice::Splices;
pub use tree::{Limit, NodeId, Tree, YamlError};
