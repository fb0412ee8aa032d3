//! A read-only YAML tree whose every node knows its byte range in the source text, so
//! that edits can be spliced into the original instead of re-serialising a value tree.

use std::borrow::Cow;
use std::collections::HashSet;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

/// Where a node lives in the source, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ByteSpan {
    pub start: usize,
    /// Exclusive. Exact for scalars other than block scalars and for flow collections;
    /// for block collections and block scalars it is the start of the next token.
    pub end: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
}

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
}

impl std::fmt::Display for YamlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {} column {}: {}",
            self.line, self.column, self.message
        )
    }
}

#[derive(Debug)]
pub struct Tree<'a> {
    pub src: &'a str,
    pub nodes: Vec<Node<'a>>,
    pub docs: Vec<Document>,
}

/// Converts saphyr's character offsets to byte offsets. Events arrive almost in source
/// order, so a cursor that walks from the last answer keeps the whole parse linear.
struct Offsets<'a> {
    src: &'a str,
    ascii: bool,
    char_pos: usize,
    byte_pos: usize,
}

impl<'a> Offsets<'a> {
    fn new(src: &'a str) -> Self {
        Offsets {
            src,
            ascii: src.is_ascii(),
            char_pos: 0,
            byte_pos: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.src.len());
        }
        let bytes = self.src.as_bytes();
        while self.char_pos < char_index && self.byte_pos < bytes.len() {
            self.byte_pos += 1;
            while self.byte_pos < bytes.len() && (bytes[self.byte_pos] & 0xC0) == 0x80 {
                self.byte_pos += 1;
            }
            self.char_pos += 1;
        }
        while self.char_pos > char_index && self.byte_pos > 0 {
            self.byte_pos -= 1;
            while self.byte_pos > 0 && (bytes[self.byte_pos] & 0xC0) == 0x80 {
                self.byte_pos -= 1;
            }
            self.char_pos -= 1;
        }
        self.byte_pos
    }
}

enum Open {
    Map {
        id: NodeId,
        key: Option<NodeId>,
        entries: Vec<(NodeId, NodeId)>,
    },
    Seq {
        id: NodeId,
        items: Vec<NodeId>,
    },
}

impl<'a> Tree<'a> {
    /// Parses a whole YAML stream. Duplicate keys are rejected, as the API server would.
    pub fn parse(src: &'a str) -> Result<Tree<'a>, YamlError> {
        let mut offsets = Offsets::new(src);
        let mut nodes: Vec<Node<'a>> = Vec::new();
        let mut docs = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut anchors: Vec<Option<NodeId>> = Vec::new();
        let mut root: Option<NodeId> = None;

        for event in Parser::new_from_str(src) {
            let (event, span) = event.map_err(|e| YamlError {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                message: e.info().to_string(),
            })?;
            let done: Option<NodeId> = match event {
                Event::Scalar(value, style, anchor, tag) => {
                    let start = offsets.byte(span.start.index());
                    let mut end = offsets.byte(span.end.index());
                    let style = match style {
                        ScalarStyle::Plain => Style::Plain,
                        ScalarStyle::SingleQuoted => Style::SingleQuoted,
                        ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
                        ScalarStyle::Literal => Style::Literal,
                        ScalarStyle::Folded => Style::Folded,
                    };
                    // saphyr's end for quoted scalars can run past the closing quote
                    // (over a trailing comment); find the quote ourselves.
                    if matches!(style, Style::SingleQuoted | Style::DoubleQuoted) {
                        end = quoted_end(src, start, style).unwrap_or(end);
                    }
                    let id = push(
                        &mut nodes,
                        ByteSpan { start, end },
                        NodeKind::Scalar {
                            value,
                            style,
                            tagged: tag.is_some(),
                        },
                    );
                    remember(&mut anchors, anchor, id);
                    Some(id)
                }
                Event::Alias(anchor) => {
                    let target = anchors.get(anchor).copied().flatten().ok_or_else(|| {
                        error_at(&span, "alias names an anchor that is not defined")
                    })?;
                    let start = offsets.byte(span.start.index());
                    let end = offsets.byte(span.end.index());
                    Some(push(
                        &mut nodes,
                        ByteSpan { start, end },
                        NodeKind::Alias(target),
                    ))
                }
                Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                    let is_map = matches!(event, Event::MappingStart(..));
                    let start = offsets.byte(span.start.index());
                    let end = offsets.byte(span.end.index());
                    // A flow collection's start span ends just after its `{` or `[` (it
                    // may begin with an anchor or tag); a block one's span is empty or
                    // holds only properties.
                    let opener = if is_map { b'{' } else { b'[' };
                    let flow = end > start && src.as_bytes().get(end - 1) == Some(&opener);
                    let start = if flow { end - 1 } else { start };
                    let kind = if is_map {
                        NodeKind::Map {
                            flow,
                            entries: Vec::new(),
                        }
                    } else {
                        NodeKind::Seq {
                            flow,
                            items: Vec::new(),
                        }
                    };
                    let id = push(&mut nodes, ByteSpan { start, end: start }, kind);
                    remember(&mut anchors, anchor, id);
                    stack.push(if is_map {
                        Open::Map {
                            id,
                            key: None,
                            entries: Vec::new(),
                        }
                    } else {
                        Open::Seq {
                            id,
                            items: Vec::new(),
                        }
                    });
                    None
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    let end = offsets.byte(span.end.index());
                    let Some(open) = stack.pop() else {
                        return Err(error_at(&span, "unbalanced collection"));
                    };
                    let id = match open {
                        Open::Map { id, entries, .. } => {
                            check_duplicates(src, &nodes, &entries)?;
                            if let NodeKind::Map { entries: e, .. } = &mut nodes[id].kind {
                                *e = entries;
                            }
                            id
                        }
                        Open::Seq { id, items } => {
                            if let NodeKind::Seq { items: i, .. } = &mut nodes[id].kind {
                                *i = items;
                            }
                            id
                        }
                    };
                    nodes[id].span.end = end.max(nodes[id].span.start);
                    Some(id)
                }
                Event::DocumentEnd => {
                    if let Some(root) = root.take() {
                        docs.push(Document {
                            root,
                            content_end: offsets.byte(span.start.index()),
                        });
                    }
                    None
                }
                _ => None,
            };
            if let Some(id) = done {
                match stack.last_mut() {
                    Some(Open::Map { key, entries, .. }) => match key.take() {
                        None => *key = Some(id),
                        Some(k) => entries.push((k, id)),
                    },
                    Some(Open::Seq { items, .. }) => items.push(id),
                    None => root = Some(id),
                }
            }
        }
        Ok(Tree { src, nodes, docs })
    }

    /// Follows aliases to the node that holds the content.
    pub fn resolve(&self, mut id: NodeId) -> NodeId {
        // Aliases can only name nodes defined earlier, so this chain is finite.
        while let NodeKind::Alias(target) = self.nodes[id].kind {
            id = target;
        }
        id
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
    pub fn entries(&self, id: NodeId) -> Vec<(NodeId, NodeId)> {
        let mut out = Vec::new();
        self.collect_entries(self.resolve(id), &mut out, 0);
        out
    }

    fn collect_entries(&self, id: NodeId, out: &mut Vec<(NodeId, NodeId)>, depth: usize) {
        let NodeKind::Map { entries, .. } = &self.nodes[id].kind else {
            return;
        };
        let mut merges = Vec::new();
        for &(k, v) in entries {
            if depth < 16 && self.is_merge_key(k) {
                merges.push(v);
            } else if !out.iter().any(|&(ok, _)| self.same_key(ok, k)) {
                out.push((k, v));
            }
        }
        for m in merges {
            let m = self.resolve(m);
            match &self.nodes[m].kind {
                NodeKind::Map { .. } => self.collect_entries(m, out, depth + 1),
                NodeKind::Seq { items, .. } => {
                    for &i in items {
                        self.collect_entries(self.resolve(i), out, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    fn is_merge_key(&self, k: NodeId) -> bool {
        matches!(&self.nodes[k].kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value == "<<")
    }

    fn same_key(&self, a: NodeId, b: NodeId) -> bool {
        matches!((self.str(a), self.str(b)), (Some(x), Some(y)) if x == y)
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
        let before = &self.src[..pos.min(self.src.len())];
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

fn push<'a>(nodes: &mut Vec<Node<'a>>, span: ByteSpan, kind: NodeKind<'a>) -> NodeId {
    nodes.push(Node { span, kind });
    nodes.len() - 1
}

fn remember(anchors: &mut Vec<Option<NodeId>>, anchor: usize, id: NodeId) {
    if anchor == 0 {
        return;
    }
    if anchors.len() <= anchor {
        anchors.resize(anchor + 1, None);
    }
    anchors[anchor] = Some(id);
}

fn error_at(span: &Span, message: &str) -> YamlError {
    YamlError {
        line: span.start.line(),
        column: span.start.col() + 1,
        message: message.to_string(),
    }
}

/// The byte just after the closing quote of a quoted scalar starting at `start`.
fn quoted_end(src: &str, start: usize, style: Style) -> Option<usize> {
    let bytes = src.as_bytes();
    let (quote, mut i) = if bytes.get(start) == Some(&b'"') || bytes.get(start) == Some(&b'\'') {
        (bytes[start], start + 1)
    } else {
        // The span begins with a tag or anchor: find the opening quote.
        let q = if style == Style::DoubleQuoted {
            b'"'
        } else {
            b'\''
        };
        let open = start + src[start..].find(q as char)?;
        (q, open + 1)
    };
    while i < bytes.len() {
        match bytes[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && bytes.get(i + 1) == Some(&b'\'') => i += 2,
            b if b == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn check_duplicates(
    src: &str,
    nodes: &[Node<'_>],
    entries: &[(NodeId, NodeId)],
) -> Result<(), YamlError> {
    let key_of = |k: NodeId| match &nodes[k].kind {
        NodeKind::Scalar { value, .. } if value != "<<" => Some(value.as_ref()),
        _ => None,
    };
    let duplicate = if entries.len() <= 16 {
        entries.iter().enumerate().find_map(|(i, &(k, _))| {
            let key = key_of(k)?;
            entries[..i]
                .iter()
                .any(|&(p, _)| key_of(p) == Some(key))
                .then_some(k)
        })
    } else {
        let mut seen = HashSet::with_capacity(entries.len());
        entries
            .iter()
            .find_map(|&(k, _)| key_of(k).filter(|key| !seen.insert(*key)).map(|_| k))
    };
    match duplicate {
        None => Ok(()),
        Some(k) => {
            let pos = nodes[k].span.start;
            let before = &src[..pos];
            let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Err(YamlError {
                line,
                column,
                message: format!(
                    "duplicate key {:?} in a mapping (the API server rejects duplicate fields; keep one)",
                    key_of(k).unwrap_or_default()
                ),
            })
        }
    }
}
