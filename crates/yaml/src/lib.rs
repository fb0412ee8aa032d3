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
pub mod edit;
mod error;
mod parse;
pub mod scalar;
mod scan;
pub mod splice;
mod tree;

pub use edit::{EditError, Editor, Layout, NewValue};
pub use error::{Error, ErrorKind, Limit, check_characters};
pub use scan::Style;
pub use splice::{Checked, OverlapError, Splices};
pub use tree::{Children, Data, Document, Entries, Kind, NodeId, Span, Tree};

/// The largest text one tree may read: offsets are `u32`s. Far past anything the API
/// server stores (1.5 MiB an object) or a repository holds.
pub const MAX_TEXT_BYTES: usize = u32::MAX as usize - 2;

/// How deep collections may nest. go-yaml stops at 10,000; real manifests stay under
/// 30. Below go-yaml's limit, because every walk over the tree must stay far from the
/// end of a thread's stack.
pub const MAX_DEPTH: usize = 1_000;

/// How many nodes a document may have once its aliases (and merge keys, which are
/// aliases) are expanded: this many, or [`MAX_ALIAS_RATIO`] times the nodes written,
/// whichever is larger. Every walk through aliases is bounded by it; an alias bomb is
/// refused before any walk starts. go-yaml refuses similar documents ("excessive
/// aliasing").
pub const MAX_ALIAS_EXPANSION: u64 = 100_000;

/// See [`MAX_ALIAS_EXPANSION`].
pub const MAX_ALIAS_RATIO: u64 = 10;

/// What a text is read as, decided by the whole input it comes from (a chunk of an
/// input is read as the whole would be), and where it sits in that input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Context {
    json: bool,
    eol: &'static str,
    line_base: usize,
}

impl Context {
    /// The context of `whole`, the entire input: JSON when it starts with `{` or `[`
    /// (as kubectl decides), and its first line ending.
    pub fn of(whole: &str) -> Context {
        let b = whole.as_bytes();
        let eol = match b.iter().position(|&c| c == b'\n' || c == b'\r') {
            Some(i) if b[i] == b'\r' && b.get(i + 1) == Some(&b'\n') => "\r\n",
            Some(i) if b[i] == b'\r' => "\r",
            _ => "\n",
        };
        let json = matches!(
            whole
                .trim_start_matches(|c: char| c.is_whitespace())
                .as_bytes()
                .first(),
            Some(b'{' | b'[')
        );
        Context {
            json,
            eol,
            line_base: 0,
        }
    }

    /// The same context for a part of the input that starts after `lines` lines of it:
    /// messages then give the whole input's line numbers.
    pub fn at_line(self, lines: usize) -> Context {
        Context {
            line_base: lines,
            ..self
        }
    }

    /// The whole input is JSON: kubectl reads it with its JSON decoder, where NEL, LS
    /// and PS are characters, not line breaks, and `\/` and surrogate-pair escapes are
    /// read.
    pub fn json(self) -> bool {
        self.json
    }

    /// The whole input's first line ending.
    pub fn eol(self) -> &'static str {
        self.eol
    }

    pub fn line_base(self) -> usize {
        self.line_base
    }
}
