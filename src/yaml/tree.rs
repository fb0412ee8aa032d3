//! A read-only YAML tree whose every node knows its byte range in the source text, so
//! that edits can be spliced into the original instead of re-serialising a value tree.
//! The text is read by the reader crate (`config-hash-yaml`), as go-yaml reads it; this
//! module gives the rest of the product the tree shape it was written against.

use std::borrow::Cow;
use std::collections::HashSet;

use config_hash_yaml as reader;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

/// Where a node lives in the source, in bytes. Held as two `u32`s (a text is at most
/// [`MAX_TEXT_BYTES`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSpan {
    start: u32,
    end: u32,
}

impl ByteSpan {
    pub fn new(start: usize, end: usize) -> ByteSpan {
        debug_assert!(end <= MAX_TEXT_BYTES && start <= end.max(start));
        ByteSpan {
            start: start as u32,
            end: end as u32,
        }
    }

    pub fn start(self) -> usize {
        self.start as usize
    }

    /// Exclusive: where the node's content ends (a flow collection's closing bracket, a
    /// block collection's last node, a block scalar's last content line), never past
    /// the blanks and comments after it.
    pub fn end(self) -> usize {
        self.end as usize
    }

    pub fn set_end(&mut self, end: usize) {
        self.end = end as u32;
    }
}

/// The largest text one tree may read: spans are `u32`s.
pub const MAX_TEXT_BYTES: usize = reader::MAX_TEXT_BYTES;

pub use reader::Style;

#[derive(Debug)]
pub enum NodeKind<'a> {
    Scalar {
        value: Cow<'a, str>,
        style: Style,
        tagged: bool,
    },
    Map {
        flow: bool,
        entries: Vec<(NodeId, NodeId)>,
    },
    Seq {
        flow: bool,
        items: Vec<NodeId>,
    },
    /// `*name`: the node the anchor names.
    Alias(NodeId),
}

#[derive(Debug)]
pub struct Node<'a> {
    pub span: ByteSpan,
    pub kind: NodeKind<'a>,
}

/// One YAML document of the stream.
#[derive(Debug, Clone, Copy)]
pub struct Document {
    pub root: NodeId,
    /// Byte offset where the document's content ends: the `...`/`---` that closes it, or
    /// the end of the text (possibly after trailing comments).
    pub content_end: usize,
}

/// A parse failure, positioned for a one-line message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub line: usize,
    pub column: usize,
    pub message: String,
    /// The work limit the text reached, when that is why it was refused.
    pub limit: Option<Limit>,
}

pub use reader::Limit;

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

impl From<reader::Error> for YamlError {
    fn from(e: reader::Error) -> Self {
        YamlError {
            line: e.line(),
            column: e.column(),
            message: e.kind().describe(),
            limit: e.limit(),
        }
    }
}

/// What belongs to a whole input rather than to one chunk of it: its first line ending,
/// and whether it is JSON (kubectl reads a text that starts with `{` or `[` as JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct InputStyle {
    pub eol: &'static str,
    pub json: bool,
}

impl InputStyle {
    pub fn of(text: &str) -> InputStyle {
        let eol = match text.find('\n') {
            Some(i) if i > 0 && text.as_bytes()[i - 1] == b'\r' => "\r\n",
            _ => "\n",
        };
        InputStyle {
            eol,
            json: super::breaks::reads_as_json(text),
        }
    }
}

#[derive(Debug)]
pub struct Tree<'a> {
    pub src: &'a str,
    pub nodes: Vec<Node<'a>>,
    pub docs: Vec<Document>,
    /// Conventions of the whole input, when `src` is one chunk of it: a chunk is edited
    /// as the whole would be. Read once per input, not once per chunk.
    pub whole: InputStyle,
    /// Lines of the whole input before `src`: messages give line numbers of the whole.
    pub line_base: usize,
    /// Where each line of `src` starts, built on the first message that needs a line
    /// number: a binary search then, instead of a scan from the start per message.
    line_starts: std::sync::OnceLock<Vec<usize>>,
}

pub use reader::{MAX_ALIAS_EXPANSION, MAX_ALIAS_RATIO, MAX_DEPTH};

impl<'a> Tree<'a> {
    /// Parses a whole YAML stream as go-yaml reads it. Duplicate keys are rejected, as
    /// the API server would.
    pub fn parse(src: &'a str) -> Result<Tree<'a>, YamlError> {
        let read = reader::Tree::parse(src, reader::Context::of(src))?;
        let mut nodes = Vec::with_capacity(read.len());
        for id in read.ids() {
            let span = read.span(id);
            let kind = match read.kind(id) {
                reader::Kind::Scalar(style) => {
                    // Borrowed from the text where it is written as it is.
                    let value = match read.value_span(id) {
                        Some(v) => Cow::Borrowed(&src[v.start()..v.end()]),
                        None => Cow::Owned(read.str(id).unwrap_or("").to_owned()),
                    };
                    NodeKind::Scalar {
                        value,
                        style,
                        tagged: read.tag(id).is_some(),
                    }
                }
                reader::Kind::Map { flow } => NodeKind::Map {
                    flow,
                    entries: read
                        .own_entries(id)
                        .map(|(k, v)| (k.index(), v.index()))
                        .collect(),
                },
                reader::Kind::Seq { flow } => NodeKind::Seq {
                    flow,
                    items: read.items(id).map(|i| i.index()).collect(),
                },
                reader::Kind::Alias => NodeKind::Alias(read.resolve(id).index()),
            };
            // The product's editors write over a block scalar's text, after its header,
            // when it has no properties.
            let start = match read.block_text_start(id) {
                Some(text) if read.content_start(id) == span.start() => text,
                _ => span.start(),
            };
            nodes.push(Node {
                span: ByteSpan::new(start, span.end().max(start)),
                kind,
            });
        }
        let docs = read
            .documents()
            .iter()
            .map(|d| Document {
                root: d.root().index(),
                content_end: d.content_end(),
            })
            .collect();
        Ok(Tree {
            src,
            nodes,
            docs,
            whole: InputStyle::of(src),
            line_base: 0,
            line_starts: std::sync::OnceLock::new(),
        })
    }

    /// Follows aliases to the node that holds the content.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        // Aliases can only name nodes defined earlier, so this chain is finite.
        while let NodeKind::Alias(target) = self.nodes[id].kind {
            id = target;
        }
        id
    }

    /// Where a node's content starts, after any properties (`&anchor`, `!tag`) that its
    /// span begins with.
    pub fn content_start(&self, id: NodeId) -> usize {
        let span = self.nodes[id].span;
        let b = self.src.as_bytes();
        let mut pos = span.start();
        while pos < span.end() && matches!(b[pos], b'&' | b'!') {
            while pos < span.end() && !b[pos].is_ascii_whitespace() {
                pos += 1;
            }
            while pos < span.end() && b[pos].is_ascii_whitespace() {
                pos += 1;
            }
        }
        pos.min(span.end())
    }

    /// True when the node carries an anchor (`&name`) that aliases may use.
    pub fn has_anchor(&self, id: NodeId) -> bool {
        let start = self.nodes[id].span.start();
        self.src[start..self.content_start(id)].contains('&')
    }

    /// True when `id` or anything written inside it (not through aliases) carries an
    /// anchor: removing that text would leave aliases naming nothing.
    pub fn subtree_has_anchor(&self, id: NodeId) -> bool {
        let mut stack = vec![id];
        while let Some(n) = stack.pop() {
            if self.has_anchor(n) {
                return true;
            }
            match &self.nodes[n].kind {
                NodeKind::Map { entries, .. } => {
                    stack.extend(entries.iter().flat_map(|&(k, v)| [k, v]));
                }
                NodeKind::Seq { items, .. } => stack.extend(items.iter().copied()),
                _ => {}
            }
        }
        false
    }

    pub fn is_alias(&self, id: NodeId) -> bool {
        matches!(self.nodes[id].kind, NodeKind::Alias(_))
    }

    pub fn node(&self, id: NodeId) -> &Node<'a> {
        &self.nodes[id]
    }

    /// The scalar text of a node (through aliases), if it is a scalar.
    pub fn str(&self, id: NodeId) -> Option<&str> {
        match &self.nodes[self.resolve(id)].kind {
            NodeKind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// True for a plain scalar YAML reads as null (`key:`, `~`, `null`).
    pub fn is_null(&self, id: NodeId) -> bool {
        match &self.nodes[self.resolve(id)].kind {
            NodeKind::Scalar {
                value,
                style: Style::Plain,
                tagged: false,
            } => matches!(value.as_ref(), "" | "~" | "null" | "Null" | "NULL"),
            _ => false,
        }
    }

    /// A boolean field as Kubernetes reads it (`optional: true`).
    pub fn is_true(&self, id: NodeId) -> bool {
        matches!(self.str(id), Some("true" | "True" | "TRUE"))
    }

    /// The entries of a mapping (through aliases), own entries first, then those merged
    /// in with `<<`, which own entries override.
    ///
    /// Linear in the entries it returns: keys are de-duplicated through a set, and a map
    /// merged more than once (`<<: [*a, *a]`, or chains of merges through aliases) is
    /// read once, since a second reading could add no key the first did not. The walk
    /// keeps its own stack, so a long chain of merges cannot overflow the thread's.
    pub fn entries(&self, id: NodeId) -> Vec<(NodeId, NodeId)> {
        let mut out = Vec::new();
        let mut seen_keys: HashSet<&str> = HashSet::new();
        let mut visited: HashSet<NodeId> = HashSet::new();
        // Maps still to read, the next on top; merges are read depth first, in order.
        let mut todo = vec![self.resolve(id)];
        while let Some(map) = todo.pop() {
            if !visited.insert(map) {
                continue;
            }
            let NodeKind::Map { entries, .. } = &self.nodes[map].kind else {
                continue;
            };
            let mut merges = Vec::new();
            for &(k, v) in entries {
                if self.is_merge_key(k) {
                    merges.push(v);
                } else {
                    match self.str(k) {
                        Some(key) if !seen_keys.insert(key) => {}
                        _ => out.push((k, v)),
                    }
                }
            }
            for &m in merges.iter().rev() {
                let m = self.resolve(m);
                match &self.nodes[m].kind {
                    NodeKind::Map { .. } => todo.push(m),
                    NodeKind::Seq { items, .. } => {
                        todo.extend(items.iter().rev().map(|&i| self.resolve(i)));
                    }
                    _ => {}
                }
            }
        }
        out
    }

    fn is_merge_key(&self, k: NodeId) -> bool {
        matches!(&self.nodes[k].kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value == "<<")
    }

    /// Looks a key up in a mapping (through aliases and merge keys).
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        let map = self.resolve(map);
        let NodeKind::Map { entries, .. } = &self.nodes[map].kind else {
            return None;
        };
        // Fast path: own entries, which override anything merged in.
        let mut has_merge = false;
        for &(k, v) in entries {
            match self.str(k) {
                Some(s) if s == key => return Some(v),
                Some("<<") => has_merge = true,
                _ => {}
            }
        }
        if !has_merge {
            return None;
        }
        self.entries(map)
            .into_iter()
            .find(|&(k, _)| self.str(k) == Some(key))
            .map(|(_, v)| v)
    }

    /// Follows a path of mapping keys.
    pub fn get_path(&self, mut node: NodeId, path: &[&str]) -> Option<NodeId> {
        for key in path {
            node = self.get(node, key)?;
        }
        Some(node)
    }

    /// A mapping's own entries, as written (no aliases or merges followed).
    pub fn own_entries(&self, map: NodeId) -> &[(NodeId, NodeId)] {
        match &self.nodes[map].kind {
            NodeKind::Map { entries, .. } => entries,
            _ => &[],
        }
    }

    /// The items of a sequence (through aliases).
    pub fn items(&self, seq: NodeId) -> &[NodeId] {
        match &self.nodes[self.resolve(seq)].kind {
            NodeKind::Seq { items, .. } => items,
            _ => &[],
        }
    }

    pub fn is_map(&self, id: NodeId) -> bool {
        matches!(self.nodes[self.resolve(id)].kind, NodeKind::Map { .. })
    }

    pub fn is_seq(&self, id: NodeId) -> bool {
        matches!(self.nodes[self.resolve(id)].kind, NodeKind::Seq { .. })
    }

    pub fn is_flow(&self, id: NodeId) -> bool {
        matches!(
            self.nodes[id].kind,
            NodeKind::Map { flow: true, .. } | NodeKind::Seq { flow: true, .. }
        )
    }

    /// 1-based line and column of a byte offset, for messages.
    pub fn line_col(&self, pos: usize) -> (usize, usize) {
        let pos = pos.min(self.src.len());
        let starts = self.line_starts.get_or_init(|| {
            std::iter::once(0)
                .chain(self.src.match_indices('\n').map(|(i, _)| i + 1))
                .collect()
        });
        let line = starts.partition_point(|&s| s <= pos);
        let start = starts[line - 1];
        let col = self.src[start..pos].chars().count() + 1;
        (line + self.line_base, col)
    }
}

/// Refuses characters YAML does not allow anywhere in a stream (not even in comments):
/// C0 controls other than tab, LF and CR, DEL, C1 controls other than NEL, U+FFFE and
/// U+FFFF, as go-yaml (kubectl, kustomize, kpt) refuses them, before the input is cut
/// into chunks: the message says which character and where, never the text around it.
pub fn check_characters(src: &str) -> Result<(), YamlError> {
    let bad = src.char_indices().find(|&(_, c)| {
        matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
            || (('\u{80}'..='\u{9f}').contains(&c) && c != '\u{85}')
            || c == '\u{fffe}'
            || c == '\u{ffff}'
    });
    match bad {
        None => Ok(()),
        Some((pos, c)) => {
            let before = &src[..pos];
            let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            let code = u32::from(c);
            Err(YamlError {
                line,
                column,
                message: reader::ErrorKind::ControlCharacter { code }.describe(),
                limit: None,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_byte_offsets_of_the_original_text() {
        let src = "k: 'ü' # c\nn: \"x\" # d\n";
        let tree = Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        let n = tree.get(root, "n").unwrap();
        let span = tree.node(n).span;
        assert_eq!(&src[span.start()..span.end()], "\"x\"");
    }

    #[test]
    fn json_surrogate_pairs_are_read_and_offsets_kept() {
        let src = r#"{"a": "x\ud83d\ude80y", "b": "z"}"#;
        let tree = Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        assert_eq!(tree.str(tree.get(root, "a").unwrap()), Some("x\u{1f680}y"));
        let b = tree.node(tree.get(root, "b").unwrap()).span;
        assert_eq!(&src[b.start()..b.end()], "\"z\"");
    }

    #[test]
    fn surrogate_text_outside_double_quotes_stays_literal() {
        let src = "a: '\\ud83d\\ude80'\n";
        let tree = Tree::parse(src).unwrap();
        assert_eq!(
            tree.str(tree.get(tree.docs[0].root, "a").unwrap()),
            Some("\\ud83d\\ude80")
        );
    }

    #[test]
    fn duplicate_keys_are_rejected_with_a_position() {
        let err = Tree::parse("a: 1\nb: 2\na: 3\n").unwrap_err();
        assert_eq!((err.line, err.column), (3, 1));
        assert!(err.message.contains("duplicate key"), "{}", err.message);
    }

    /// Runs `f` on another thread and fails if it takes longer than `secs`.
    fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(f());
        });
        rx.recv_timeout(std::time::Duration::from_secs(secs))
            .unwrap_or_else(|_| panic!("did not finish within {secs} s"))
    }

    #[test]
    fn merge_order_own_keys_first_then_merges_in_order() {
        let tree = Tree::parse("a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc: {<<: [*a, *b], x: 3}\n")
            .unwrap();
        let c = tree.get(tree.docs[0].root, "c").unwrap();
        let got: Vec<(&str, &str)> = tree
            .entries(c)
            .iter()
            .map(|&(k, v)| (tree.str(k).unwrap(), tree.str(v).unwrap()))
            .collect();
        assert_eq!(got, [("x", "3"), ("y", "1"), ("z", "2")]);
    }

    /// F5: a mapping with many keys, merged or not, is read in linear time.
    #[test]
    fn a_mapping_with_many_keys_is_read_in_linear_time() {
        let mut src = String::from("data:\n");
        for i in 0..200_000 {
            src.push_str(&format!("  k{i}: v\n"));
        }
        src.push_str("merged: {<<: *d}\n");
        let src = src.replacen("data:\n", "data: &d\n", 1);
        let n = within(60, move || {
            let tree = Tree::parse(&src).unwrap();
            let root = tree.docs[0].root;
            let merged = tree.get(root, "merged").unwrap();
            tree.entries(merged).len()
        });
        assert_eq!(n, 200_000);
    }

    /// F4: aliases that multiply a document are refused with the limit's name, before
    /// any walk through them starts.
    #[test]
    fn alias_fan_out_is_refused_naming_the_limit() {
        let refs = |name: &str, n: usize| vec![format!("*{name}"); n].join(", ");
        let src = format!(
            "e: &e {{configMapRef: {{name: c}}}}\nc: &c {{name: a, envFrom: [{}]}}\ncontainers: [{}]\n",
            refs("e", 2000),
            refs("c", 2000)
        );
        let err = Tree::parse(&src).unwrap_err();
        assert!(
            err.message.contains("alias expansion limit"),
            "{}",
            err.message
        );
        // Where: the collection that passed the limit, from its start.
        assert_eq!((err.line, err.column), (3, 13), "{err}");
        // Ordinary reuse of an anchor stays fine.
        let ok = format!(
            "e: &e {{configMapRef: {{name: c}}}}\nl: [{}]\n",
            refs("e", 50)
        );
        assert!(Tree::parse(&ok).is_ok());
    }

    #[test]
    fn a_control_character_is_named_not_taken_for_the_end_of_the_stream() {
        let err = Tree::parse("a: 1\nb: \"x\0y\"\n").unwrap_err();
        assert_eq!((err.line, err.column), (2, 6), "{err}");
        assert!(err.message.contains("U+0000"), "{err}");
        assert!(!err.message.contains("end of stream"), "{err}");
        // Anywhere, as go-yaml: also in a comment, and C1 controls and U+FFFF.
        for bad in ["# \u{7}\n", "a: \u{85}\u{9f}\n", "a: \u{ffff}\n"] {
            assert!(Tree::parse(bad).is_err(), "{bad:?}");
        }
        for (bad, code) in [("a: \u{fffe}\n", "U+FFFE"), ("# \u{ffff}\n", "U+FFFF")] {
            let err = Tree::parse(bad).unwrap_err();
            assert!(err.message.contains(code), "{bad:?}: {err}");
        }
        for good in ["a: \u{85}\n", "a: \"\\0\"\t# ok\r\n", "a: \u{a0}\u{fffd}\n"] {
            assert!(Tree::parse(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn a_flow_collection_ends_at_its_closing_bracket() {
        // Not at the next token: the blanks and a comment after it are not its text.
        for src in [
            "a: [x] # c\nb: 1\n",
            "{a: {k: v}   , b: 1}\n",
            "a: [x]  \r\nb: 1\n",
        ] {
            let tree = Tree::parse(src).unwrap();
            let a = tree.get(tree.docs[0].root, "a").unwrap();
            let span = tree.node(a).span;
            let text = &src[span.start()..span.end()];
            assert!(
                text.ends_with([']', '}']) && !text.ends_with(' '),
                "{src:?}: {text:?}"
            );
        }
    }

    #[test]
    fn a_recursive_alias_is_refused() {
        let err = Tree::parse("a: &a [1, *a]\n").unwrap_err();
        assert!(err.message.contains("recursive alias"), "{}", err.message);
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused_naming_it() {
        // `- - - x`: block sequences nest two bytes a level (saphyr itself stops flow
        // collections at 256 levels).
        let deep = |n: usize| format!("{}x\n", "- ".repeat(n));
        assert!(Tree::parse(&deep(MAX_DEPTH)).is_ok());
        let err = Tree::parse(&deep(MAX_DEPTH + 1)).unwrap_err();
        assert!(err.message.contains("nesting limit"), "{}", err.message);
        assert_eq!((err.line, err.column), (1, 2 * MAX_DEPTH + 1));
    }

    #[test]
    fn a_duplicate_key_is_never_quoted_in_the_message() {
        // A Secret value mistyped as a flow map is a key: it must not be echoed.
        let err = Tree::parse("stringData: {hunter2, hunter2}\n").unwrap_err();
        assert!(err.message.contains("duplicate key"), "{}", err.message);
        assert!(!err.to_string().contains("hunter2"), "{err}");
    }
}
