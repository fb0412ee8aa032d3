//! A read-only YAML tree whose every node knows its byte range in the source text, so
//! that edits can be spliced into the original instead of re-serialising a value tree.
//! The text is read by the reader crate (`config-hash-yaml`), as go-yaml reads it; this
//! module gives the rest of the product the tree shape it was written against.

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

/// What a node is, with a scalar's value (through no alias).
#[derive(Debug, Clone, Copy)]
pub enum NodeKind<'t> {
    Scalar {
        value: &'t str,
        style: Style,
        tagged: bool,
    },
    Map {
        flow: bool,
    },
    Seq {
        flow: bool,
    },
    /// `*name`: the node the anchor names.
    Alias(NodeId),
}

/// A node's place in the text and what it is.
#[derive(Debug, Clone, Copy)]
pub struct Node<'t> {
    pub span: ByteSpan,
    pub kind: NodeKind<'t>,
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

/// A parsed text: the reader's compact tree, and what the product asks of it.
#[derive(Debug)]
pub struct Tree<'a> {
    read: reader::Tree<'a>,
    pub src: &'a str,
    pub docs: Vec<Document>,
    /// Conventions of the whole input, when `src` is one chunk of it: a chunk is edited
    /// as the whole would be.
    whole: InputStyle,
}

pub use reader::{MAX_ALIAS_EXPANSION, MAX_ALIAS_RATIO, MAX_DEPTH};

#[inline]
fn id(i: NodeId) -> reader::NodeId {
    reader::NodeId::from_index(i)
}

impl<'a> Tree<'a> {
    /// Parses a whole YAML stream as go-yaml reads it. Duplicate keys are rejected, as
    /// the API server would.
    pub fn parse(src: &'a str) -> Result<Tree<'a>, YamlError> {
        Self::parse_in(src, InputStyle::of(src), 0)
    }

    /// Parses `src`, one part of a whole input of style `whole` that starts after
    /// `line_base` lines of it: messages give the whole input's line numbers.
    pub fn parse_in(
        src: &'a str,
        whole: InputStyle,
        line_base: usize,
    ) -> Result<Tree<'a>, YamlError> {
        let ctx = reader::Context::of(src).at_line(line_base);
        let read = reader::Tree::parse(src, ctx)?;
        let docs = read
            .documents()
            .iter()
            .map(|d| Document {
                root: d.root().index(),
                content_end: d.content_end(),
            })
            .collect();
        Ok(Tree {
            read,
            src,
            docs,
            whole,
        })
    }

    /// The whole input's conventions.
    pub fn whole(&self) -> InputStyle {
        self.whole
    }

    /// The reader's tree.
    pub fn reader(&self) -> &reader::Tree<'a> {
        &self.read
    }

    /// Follows aliases to the node that holds the content.
    pub fn resolve(&self, n: NodeId) -> NodeId {
        self.read.resolve(id(n)).index()
    }

    /// Where a node's content starts, after any properties (`&anchor`, `!tag`).
    pub fn content_start(&self, n: NodeId) -> usize {
        match self.read.block_text_start(id(n)) {
            Some(text) if self.read.content_start(id(n)) == self.read.span(id(n)).start() => text,
            _ => self.read.content_start(id(n)),
        }
    }

    /// True when the node carries an anchor (`&name`) that aliases may use.
    pub fn has_anchor(&self, n: NodeId) -> bool {
        self.read.has_anchor(id(n))
    }

    /// True when `n` or anything written inside it (not through aliases) carries an
    /// anchor: removing that text would leave aliases naming nothing.
    pub fn subtree_has_anchor(&self, n: NodeId) -> bool {
        self.read.subtree_has_anchor(id(n))
    }

    pub fn is_alias(&self, n: NodeId) -> bool {
        self.read.is_alias(id(n))
    }

    /// The node's span and kind. A block scalar without properties spans its text
    /// (after its header), which is what the product writes over.
    pub fn node(&self, n: NodeId) -> Node<'_> {
        let i = id(n);
        let span = self.read.span(i);
        let kind = match self.read.kind(i) {
            reader::Kind::Scalar(style) => NodeKind::Scalar {
                value: self.read.str(i).unwrap_or(""),
                style,
                tagged: self.read.tag(i).is_some(),
            },
            reader::Kind::Map { flow } => NodeKind::Map { flow },
            reader::Kind::Seq { flow } => NodeKind::Seq { flow },
            reader::Kind::Alias => NodeKind::Alias(self.read.resolve(i).index()),
        };
        let start = match self.read.block_text_start(i) {
            Some(text) if self.read.content_start(i) == span.start() => text,
            _ => span.start(),
        };
        Node {
            span: ByteSpan::new(start, span.end().max(start)),
            kind,
        }
    }

    /// Where the indicator that introduces a node stands: the `-` of a block sequence
    /// item, the `:` before a value, the `?` of an explicit key.
    pub fn lead(&self, n: NodeId) -> Option<usize> {
        self.read.lead(id(n))
    }

    /// Where a mapping entry whose key is `k` starts: at the `?` of an explicit key,
    /// else at the key.
    pub fn entry_start(&self, k: NodeId) -> usize {
        self.lead(k)
            .unwrap_or_else(|| self.read.span(id(k)).start())
    }

    /// The scalar text of a node (through aliases), if it is a scalar.
    pub fn str(&self, n: NodeId) -> Option<&str> {
        self.read.str(id(n))
    }

    /// True for a plain scalar YAML reads as null (`key:`, `~`, `null`).
    pub fn is_null(&self, n: NodeId) -> bool {
        self.read.is_null(id(n)) && !self.read.is_tagged(self.read.resolve(id(n)))
    }

    /// A boolean field as Kubernetes reads it (`optional: true`).
    pub fn is_true(&self, n: NodeId) -> bool {
        matches!(self.str(n), Some("true" | "True" | "TRUE"))
    }

    /// The entries of a mapping (through aliases), own entries first, then those merged
    /// in with `<<`, which own entries override. Linear in what it returns.
    pub fn entries(&self, n: NodeId) -> Vec<(NodeId, NodeId)> {
        self.read
            .entries(id(n))
            .into_iter()
            .map(|(k, v)| (k.index(), v.index()))
            .collect()
    }

    /// [`Tree::entries`], half the size while it is held: for maps of a million entries.
    pub fn entries_iter(&self, n: NodeId) -> impl Iterator<Item = (NodeId, NodeId)> + use<> {
        self.read
            .entries(id(n))
            .into_iter()
            .map(|(k, v)| (k.index(), v.index()))
    }

    /// Looks a key up in a mapping (through aliases and merge keys).
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        self.read.get(id(map), key).map(reader::NodeId::index)
    }

    /// Follows a path of mapping keys.
    pub fn get_path(&self, mut node: NodeId, path: &[&str]) -> Option<NodeId> {
        for key in path {
            node = self.get(node, key)?;
        }
        Some(node)
    }

    /// A mapping's own entries, as written (no aliases or merges followed).
    pub fn own_entries(&self, map: NodeId) -> Vec<(NodeId, NodeId)> {
        self.read
            .own_entries(id(map))
            .map(|(k, v)| (k.index(), v.index()))
            .collect()
    }

    /// The items of a sequence (through aliases).
    pub fn items(&self, seq: NodeId) -> Vec<NodeId> {
        self.read
            .items(id(seq))
            .map(reader::NodeId::index)
            .collect()
    }

    pub fn is_map(&self, n: NodeId) -> bool {
        self.read.is_map(id(n))
    }

    pub fn is_seq(&self, n: NodeId) -> bool {
        self.read.is_seq(id(n))
    }

    pub fn is_flow(&self, n: NodeId) -> bool {
        self.read.is_flow(id(n))
    }

    /// 1-based line and column of a byte offset, counting the lines of the whole input
    /// before this text: for messages.
    pub fn line_col(&self, pos: usize) -> (usize, usize) {
        self.read.line_col(pos)
    }
}

/// Refuses characters YAML does not allow anywhere in a stream (not even in comments):
/// C0 controls other than tab, LF and CR, DEL, C1 controls other than NEL, U+FFFE and
/// U+FFFF, as go-yaml (kubectl, kustomize, kpt) refuses them, before the input is cut
/// into chunks: the message says which character and where, never the text around it.
pub fn check_characters(src: &str) -> Result<(), YamlError> {
    match first_refused_character(src) {
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

/// A character YAML refuses anywhere in a stream.
fn refused(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}')
        || (('\u{80}'..='\u{9f}').contains(&c) && c != '\u{85}')
        || c == '\u{fffe}'
        || c == '\u{ffff}'
}

/// The first refused character and where it starts. This reads every byte of the input
/// before anything else runs, so it looks at blocks of bytes at once: a block of
/// printable ASCII, tabs and line breaks (nearly every block of a manifest) needs no
/// character decoded; only a block holding another byte is read character by character.
fn first_refused_character(src: &str) -> Option<(usize, char)> {
    const BLOCK: usize = 64;
    // Not printable ASCII, tab, LF or CR: a control character, DEL, or a byte of a
    // character past ASCII.
    let suspect = |b: u8| b >= 0x7f || (b < 0x20 && b != b'\t' && b != b'\n' && b != b'\r');
    let bytes = src.as_bytes();
    let mut pos = 0;
    while pos < bytes.len() {
        let end = (pos + BLOCK).min(bytes.len());
        // No early exit: the compiler reads the whole block in vector registers.
        if !bytes[pos..end]
            .iter()
            .fold(false, |any, &b| any | suspect(b))
        {
            pos = end;
            continue;
        }
        // `pos` is a character boundary: blocks start at one, and a character that
        // runs past the block's end moves the next block's start past it.
        while pos < end {
            if !suspect(bytes[pos]) {
                pos += 1;
                continue;
            }
            let c = src[pos..].chars().next()?;
            if refused(c) {
                return Some((pos, c));
            }
            pos += c.len_utf8();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refused_characters_are_found_where_a_character_by_character_search_finds_them() {
        // Every refused and allowed character class, at every offset around a block's
        // edges, with multi-byte characters that straddle them.
        let pieces = [
            "a", "\t", "\n", "\r", " ", "\u{0}", "\u{7}", "\u{1f}", "\u{7f}", "\u{80}", "\u{85}",
            "\u{9f}", "\u{a0}", "é", "\u{2028}", "\u{fffd}", "\u{fffe}", "\u{ffff}", "🚀",
        ];
        let slow = |s: &str| s.char_indices().find(|&(_, c)| refused(c));
        for before in ["", "é", "🚀", "\u{85}"] {
            for len in [0, 1, 2, 61, 62, 63, 64, 65, 127, 128, 129] {
                let prefix = format!("{}{before}", "x".repeat(len));
                for p in pieces {
                    for tail in ["", "x", "\u{7}", "🚀🚀"] {
                        let s = format!("{prefix}{p}{tail}");
                        assert_eq!(first_refused_character(&s), slow(&s), "{s:?}");
                    }
                }
            }
        }
    }

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
