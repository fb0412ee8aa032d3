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
//! Offsets into the text are this crate's business: callers walk nodes by [`NodeId`]
//! (which only a [`Tree`] hands out), ask for positions for messages, and say what to
//! change; the editor finds where. Edits travel as sets the crate owns: a chunk's
//! [`Splices`] move into the whole input through its [`Piece`], a skeleton's back
//! through its [`Cut`], a stamp makes edits inside what it rewrites moot
//! ([`Splices::drop_within`]), what was changed is kept as [`Edits`], and a stream
//! [`Joined`] from several texts splits its edits back onto each.

#![forbid(unsafe_code)]
// The public API is the crate's contract with the product: every item says what it is
// (a new one without docs fails clippy's -D warnings).
#![warn(missing_docs)]

pub mod breaks;
mod chars;
mod context;
mod edit;
mod error;
mod joined;
mod limits;
mod parse;
mod piece;
pub mod scalar;
mod scan;
mod splice;
mod tree;

pub use context::Context;
pub use edit::{EditError, Editor, FillPlace, Layout, NewValue, TextEnd};
pub use error::{Error, ErrorKind, Limit, check_characters};
pub use joined::{JoinError, Joined, LineIndex, SplitError};
pub use limits::{MAX_ALIAS_EXPANSION, MAX_ALIAS_RATIO, MAX_DEPTH, MAX_TEXT_BYTES};
pub use piece::{Cut, Piece};
pub use scan::Style;
pub use splice::{Checked, Edits, MisfitError, OverlapError, Splices};
pub use tree::{Children, Data, Document, Entries, Kind, NodeId, Span, Tree};
