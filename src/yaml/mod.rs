//! The YAML layer: the tree the product walks (over the reader crate's), the editor
//! that expresses changes as splices, and, from the reader crate, the quoting rules and
//! the splices themselves.

pub mod breaks;
pub mod edit;
pub mod tree;

pub use config_hash_yaml::{scalar, splice};
pub use edit::{EditError, Editor, Layout, NewValue};
pub use splice::Splices;
pub use tree::{Limit, NodeId, Tree, YamlError};
