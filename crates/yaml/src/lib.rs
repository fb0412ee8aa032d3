//! config-hash's YAML layer: a reader that reads what go-yaml v3 reads (the reader of
//! kubectl, kustomize and kpt), in one pass over the text, into a compact tree whose
//! every node knows its exact byte range; and an editor that changes a text by
//! splicing into it, never by writing a value tree out again.
//!
//! ```text
//! Tree::parse(text, Context::of(whole))  ->  Tree: documents, nodes, spans
//! Editor::new(&tree, Layout::for_item())  ->  Splices  ->  edited text
//! ```
//!
//! Offsets into the text are this crate's business: callers walk nodes by [`NodeId`],
//! ask for positions for messages, and say what to change; the editor finds where.

#![forbid(unsafe_code)]

pub mod breaks;
mod chars;
mod context;
pub mod edit;
mod error;
mod limits;
mod parse;
pub mod scalar;
mod scan;
pub mod splice;
mod tree;

pub use context::Context;
pub use edit::{EditError, Editor, Layout, NewValue};
pub use error::{Error, ErrorKind, Limit, check_characters};
pub use limits::{MAX_ALIAS_EXPANSION, MAX_ALIAS_RATIO, MAX_DEPTH, MAX_TEXT_BYTES};
pub use scan::Style;
pub use splice::{Checked, OverlapError, Splices};
pub use tree::{Children, Data, Document, Entries, Kind, NodeId, Span, Tree};
