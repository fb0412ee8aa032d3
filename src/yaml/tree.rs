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
    /// The whole input, when `src` is one chunk of it: conventions that belong to the
    /// input (JSON or YAML) are read there, so a chunk is edited as the whole would be.
    pub whole: &'a str,
    /// Lines of the whole input before `src`: messages give line numbers of the whole.
    pub line_base: usize,
}

/// Converts saphyr's character offsets to byte offsets. Events arrive almost in source
/// order, so a cursor that walks from the last answer keeps the whole parse linear.
struct Offsets<'a, 's> {
    src: &'a str,
    ascii: bool,
    char_pos: usize,
    byte_pos: usize,
    /// Positions (in the parsed text) after each surrogate-pair escape that was
    /// shortened by two characters before parsing; see [`rewrite_surrogates`].
    shifts: &'s [usize],
}

impl<'a, 's> Offsets<'a, 's> {
    fn new(src: &'a str, shifts: &'s [usize]) -> Self {
        Offsets {
            src,
            ascii: src.is_ascii(),
            char_pos: 0,
            byte_pos: 0,
            shifts,
        }
    }

    fn byte(&mut self, parsed_index: usize) -> usize {
        let char_index = parsed_index + 2 * self.shifts.partition_point(|&p| p <= parsed_index);
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

/// A collection being read. Its children wait on a shared scratch stack from `base`
/// on, so each collection gets one exactly sized allocation when it closes instead of a
/// vector that grows.
enum Open {
    Map {
        id: NodeId,
        key: Option<NodeId>,
        base: usize,
    },
    Seq {
        id: NodeId,
        base: usize,
    },
}

impl<'a> Tree<'a> {
    /// Parses a whole YAML stream. Duplicate keys are rejected, as the API server would.
    pub fn parse(src: &'a str) -> Result<Tree<'a>, YamlError> {
        let Some((text, shifts, at)) = rewrite_surrogates(src) else {
            return Self::build(src, src, &[], |v| v);
        };
        // Keep the rewrite only if every pair sat in a double-quoted scalar; elsewhere
        // `\ud83d` is literal text and the original must be parsed as it is.
        match Self::build(&text, src, &shifts, |v| Cow::Owned(v.into_owned())) {
            Ok(tree) if at.iter().all(|&pos| tree.in_double_quoted(pos)) => Ok(tree),
            _ => Self::build(src, src, &[], |v| v),
        }
    }

    fn in_double_quoted(&self, pos: usize) -> bool {
        self.nodes.iter().any(|n| {
            matches!(
                n.kind,
                NodeKind::Scalar {
                    style: Style::DoubleQuoted,
                    ..
                }
            ) && n.span.start < pos
                && pos < n.span.end
        })
    }

    /// Builds the tree from the events of `text`, a copy of `src` or `src` itself.
    fn build<'t>(
        text: &'t str,
        src: &'a str,
        shifts: &[usize],
        own: impl Fn(Cow<'t, str>) -> Cow<'a, str>,
    ) -> Result<Tree<'a>, YamlError> {
        let mut offsets = Offsets::new(src, shifts);
        // About one node per dozen bytes of YAML: growing the vector costs more.
        let mut nodes: Vec<Node<'a>> = Vec::with_capacity(text.len() / 12);
        let mut docs = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut pairs: Vec<(NodeId, NodeId)> = Vec::new();
        let mut singles: Vec<NodeId> = Vec::new();
        let mut anchors: Vec<Option<NodeId>> = Vec::new();
        let mut root: Option<NodeId> = None;

        for event in Parser::new_from_str(text) {
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
                            value: own(value),
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
                    // (saphyr's span may also run over spaces after the opener.)
                    let opener = if is_map { '{' } else { '[' };
                    let opened = src[start..end.max(start)].trim_end();
                    let flow = opened.ends_with(opener);
                    let start = if flow {
                        start + opened.len() - 1
                    } else {
                        start
                    };
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
                            base: pairs.len(),
                        }
                    } else {
                        Open::Seq {
                            id,
                            base: singles.len(),
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
                        Open::Map { id, base, .. } => {
                            let entries = pairs.split_off(base);
                            check_duplicates(src, &nodes, &entries)?;
                            if let NodeKind::Map { entries: e, .. } = &mut nodes[id].kind {
                                *e = entries;
                            }
                            id
                        }
                        Open::Seq { id, base } => {
                            let items = singles.split_off(base);
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
                    Some(Open::Map { key, .. }) => match key.take() {
                        None => *key = Some(id),
                        Some(k) => pairs.push((k, id)),
                    },
                    Some(Open::Seq { .. }) => singles.push(id),
                    None => root = Some(id),
                }
            }
        }
        Ok(Tree {
            src,
            nodes,
            docs,
            whole: src,
            line_base: 0,
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
        let line = before.bytes().filter(|&b| b == b'\n').count() + 1 + self.line_base;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        (line, col)
    }
}

/// JSON writes characters outside the Basic Multilingual Plane as surrogate-pair
/// escapes (`"\ud83d\ude80"`, what Python's json and `jq -a` emit), which the YAML
/// parser rejects. Rewrites each pair as the equivalent 10-character `\U0001f680`
/// escape, returning the text, the parsed-text positions after each rewrite (each two
/// characters shorter than the original) and the original byte offsets of the pairs.
fn rewrite_surrogates(src: &str) -> Option<(String, Vec<usize>, Vec<usize>)> {
    if !src.contains("\\u") {
        return None;
    }
    let hex4 = |s: &str| -> Option<u32> {
        (s.len() == 4 && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| u32::from_str_radix(s, 16).ok())
            .flatten()
    };
    let b = src.as_bytes();
    let (mut out, mut shifts, mut at) = (String::with_capacity(src.len()), Vec::new(), Vec::new());
    let (mut i, mut copied, mut chars_out) = (0, 0, 0usize);
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        let pair = src.get(i..i + 12).and_then(|p| {
            let hi = hex4(p.get(2..6)?)?;
            let lo = hex4(p.get(8..12)?)?;
            (p.starts_with("\\u")
                && &p[6..8] == "\\u"
                && (0xD800..0xDC00).contains(&hi)
                && (0xDC00..0xE000).contains(&lo))
            .then(|| 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00))
        });
        match pair {
            Some(code) => {
                chars_out += src[copied..i].chars().count();
                out.push_str(&src[copied..i]);
                out.push_str(&format!("\\U{code:08x}"));
                chars_out += 10;
                shifts.push(chars_out);
                at.push(i);
                i += 12;
                copied = i;
            }
            None => i += 2,
        }
    }
    if at.is_empty() {
        return None;
    }
    out.push_str(&src[copied..]);
    Some((out, shifts, at))
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
        assert_eq!(&src[span.start..span.end], "\"x\"");
    }

    #[test]
    fn json_surrogate_pairs_are_read_and_offsets_kept() {
        let src = r#"{"a": "x\ud83d\ude80y", "b": "z"}"#;
        let tree = Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        assert_eq!(tree.str(tree.get(root, "a").unwrap()), Some("x\u{1f680}y"));
        let b = tree.node(tree.get(root, "b").unwrap()).span;
        assert_eq!(&src[b.start..b.end], "\"z\"");
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
        assert!(
            err.message.contains("duplicate key \"a\""),
            "{}",
            err.message
        );
    }
}
