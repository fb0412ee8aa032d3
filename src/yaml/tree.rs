//! A read-only YAML tree whose every node knows its byte range in the source text, so
//! that edits can be spliced into the original instead of re-serialising a value tree.

use std::borrow::Cow;
use std::collections::HashSet;

use saphyr_parser::{Event, Parser, ScalarStyle, Span};

use super::dialect::Repair;

/// Index of a node in [`Tree::nodes`].
pub type NodeId = usize;

/// Where a node lives in the source, in bytes. Held as two `u32`s (a text is at most
/// [`MAX_TEXT_BYTES`]): a node is then 40 bytes, not 48, and a million-item list holds
/// 8 MB less.
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

    /// Exclusive. Exact for scalars other than block scalars and for flow collections;
    /// for block collections and block scalars it is the start of the next token.
    pub fn end(self) -> usize {
        self.end as usize
    }

    pub fn set_end(&mut self, end: usize) {
        self.end = end as u32;
    }
}

/// The largest text one tree may read: spans are `u32`s. Far past anything the API
/// server stores (1.5 MiB an object) or a repository holds.
pub const MAX_TEXT_BYTES: usize = u32::MAX as usize;

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
    /// The work limit the text reached, when that is why it was refused.
    pub limit: Option<Limit>,
}

/// A limit on the work one text may take (README, "Limits"). A limit counts per text,
/// and the whole input read as one text (when it cannot be cut into items) may reach
/// one where its items read one by one do not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// [`MAX_TEXT_BYTES`]: node spans are `u32`s.
    TextSize,
    AliasExpansion,
    Nesting,
    QuotedRepairs,
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
            json: super::dialect::reads_as_json(text),
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

/// How deep collections may nest. go-yaml (what kubectl, kustomize and kpt read with)
/// stops at 10,000; real manifests stay under 30. Below go-yaml's limit, because every
/// walk over the tree must stay far from the end of a thread's stack.
pub const MAX_DEPTH: usize = 1_000;

/// How many nodes a document may have once its aliases (and merge keys, which are
/// aliases) are expanded: this many, or [`MAX_ALIAS_RATIO`] times the nodes written,
/// whichever is larger. Every walk through aliases is bounded by it; an alias bomb
/// (`containers: [*c, *c, ...]`, each with `envFrom: [*e, *e, ...]`) is refused before
/// any walk starts. go-yaml refuses similar documents ("excessive aliasing").
pub const MAX_ALIAS_EXPANSION: u64 = 100_000;

/// See [`MAX_ALIAS_EXPANSION`].
pub const MAX_ALIAS_RATIO: u64 = 10;

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

/// A scalar's value, borrowed from `src` where the text of its span spells it as it is
/// (most plain scalars; quoted ones without escapes or folded lines), else owned without
/// spare capacity. saphyr hands over every scalar as its own `String` with room to
/// grow: kept as it was, a million one-letter scalars held 129 MB.
fn scalar_value<'a, 't>(
    src: &'a str,
    start: usize,
    end: usize,
    value: Cow<'t, str>,
    own: &impl Fn(Cow<'t, str>) -> Cow<'a, str>,
) -> Cow<'a, str> {
    if value.is_empty() {
        return Cow::Borrowed("");
    }
    if let Some(text) = src.get(start..end) {
        // The span may begin with properties (`&a !t x`) and end with a closing quote;
        // any equal text of `src` serves, wherever it is.
        let closed = text.get(..text.len().saturating_sub(1));
        for t in [Some(text), closed].into_iter().flatten() {
            if t.ends_with(&*value) {
                return Cow::Borrowed(&t[t.len() - value.len()..]);
            }
        }
    }
    match own(value) {
        Cow::Owned(mut v) => {
            v.shrink_to_fit();
            Cow::Owned(v)
        }
        borrowed => borrowed,
    }
}

/// A collection being read. Its children wait on a shared scratch stack from `base`
/// on, so each collection gets one exactly sized allocation when it closes instead of a
/// vector that grows.
/// Each also adds up its size with aliases expanded, and names the anchor it defines
/// (0 for none), whose size is known once it closes.
enum Open {
    Map {
        id: NodeId,
        key: Option<NodeId>,
        base: usize,
        size: u64,
        anchor: usize,
    },
    Seq {
        id: NodeId,
        base: usize,
        size: u64,
        anchor: usize,
    },
}

impl<'a> Tree<'a> {
    /// Parses a whole YAML stream. Duplicate keys are rejected, as the API server would.
    pub fn parse(src: &'a str) -> Result<Tree<'a>, YamlError> {
        if src.len() > MAX_TEXT_BYTES {
            return Err(YamlError {
                line: 1,
                column: 1,
                message: format!(
                    "the text is {} bytes, past the size limit of {MAX_TEXT_BYTES} bytes (4 GiB) for one text; split the input",
                    src.len()
                ),
                limit: Some(Limit::TextSize),
            });
        }
        check_characters(src)?;
        // go-yaml's dialect: see `dialect`. The copy keeps every character offset.
        let (mut copy, mut patched) = match super::dialect::parser_copy(src) {
            Some((copy, patched)) => (copy, patched),
            None => match Self::parse_text(src, src, |v| v) {
                Err(e) if Repair::for_error(&e.message).is_some() => (src.to_owned(), Vec::new()),
                read => return read,
            },
        };
        let own = |v: Cow<'_, str>| Cow::Owned(v.into_owned());
        let mut repairs = 0;
        loop {
            let e = match Self::parse_text(&copy, src, own) {
                Ok(mut tree) => {
                    super::dialect::reread_scalars(src, &mut tree.nodes, &patched);
                    return Ok(tree);
                }
                Err(e) => e,
            };
            let Some(repair) = Repair::for_error(&e.message) else {
                return Err(e);
            };
            if !super::dialect::may_unfold(repairs, copy.len()) {
                return Err(repair.past_limit(e));
            }
            if !repair.apply(&mut copy, src, &mut patched, &e) {
                return Err(e);
            }
            repairs += 1;
        }
    }

    /// Builds the tree from `text` (`src`, or a copy with the same characters), reading
    /// JSON's surrogate-pair escapes.
    fn parse_text<'t>(
        text: &'t str,
        src: &'a str,
        own: impl Fn(Cow<'t, str>) -> Cow<'a, str> + Copy,
    ) -> Result<Tree<'a>, YamlError> {
        let Some((rewritten, shifts, at)) = rewrite_surrogates(text) else {
            return Self::build(text, src, &[], own);
        };
        let at = super::dialect::same_chars_in(text, src, &at);
        // Keep the rewrite only if every pair sat in a double-quoted scalar; elsewhere
        // `\ud83d` is literal text and the original must be parsed as it is.
        match Self::build(&rewritten, src, &shifts, |v| Cow::Owned(v.into_owned())) {
            Ok(tree) if tree.all_in_double_quoted(&at) => Ok(tree),
            _ => Self::build(text, src, &[], own),
        }
    }

    /// For tests that measure a walk the alias limit would refuse.
    #[cfg(test)]
    fn build_unlimited(src: &'a str) -> Tree<'a> {
        Self::build_with(src, src, &[], |v| v, u64::MAX).unwrap()
    }

    /// True when every position lies inside a double-quoted scalar. Scalars do not
    /// overlap, so one sorted list of their spans and a binary search per position do.
    fn all_in_double_quoted(&self, positions: &[usize]) -> bool {
        let mut spans: Vec<(usize, usize)> = self
            .nodes
            .iter()
            .filter(|n| {
                matches!(
                    n.kind,
                    NodeKind::Scalar {
                        style: Style::DoubleQuoted,
                        ..
                    }
                )
            })
            .map(|n| (n.span.start(), n.span.end()))
            .collect();
        spans.sort_unstable();
        positions.iter().all(|&pos| {
            let i = spans.partition_point(|&(start, _)| start < pos);
            i > 0 && pos < spans[i - 1].1
        })
    }

    /// Builds the tree from the events of `text`, a copy of `src` or `src` itself.
    fn build<'t>(
        text: &'t str,
        src: &'a str,
        shifts: &[usize],
        own: impl Fn(Cow<'t, str>) -> Cow<'a, str>,
    ) -> Result<Tree<'a>, YamlError> {
        Self::build_with(text, src, shifts, own, MAX_ALIAS_EXPANSION)
    }

    fn build_with<'t>(
        text: &'t str,
        src: &'a str,
        shifts: &[usize],
        own: impl Fn(Cow<'t, str>) -> Cow<'a, str>,
        max_expansion: u64,
    ) -> Result<Tree<'a>, YamlError> {
        let mut offsets = Offsets::new(src, shifts);
        // About one node per dozen bytes of YAML: growing the vector costs more.
        let mut nodes: Vec<Node<'a>> = Vec::with_capacity(text.len() / 12);
        let mut docs = Vec::new();
        let mut stack: Vec<Open> = Vec::new();
        let mut pairs: Vec<(NodeId, NodeId)> = Vec::new();
        let mut singles: Vec<NodeId> = Vec::new();
        // Per anchor: the node it names and that node's size with aliases expanded
        // (saturating), 0 while it is open. Sizes are kept per anchor, not per node: only
        // an alias needs one after its node closes, and a word per node cost 8 MB on a
        // million-item list.
        let mut anchors: Vec<Option<(NodeId, u64)>> = Vec::new();
        let mut root: Option<(NodeId, u64)> = None;
        // The current document: its first node, and the first alias that took its
        // expanded size past MAX_ALIAS_EXPANSION.
        let mut doc_first: NodeId = 0;
        let mut past_floor: Option<usize> = None;

        for event in Parser::new_from_str(text) {
            let (event, span) = event.map_err(|e| YamlError {
                line: e.marker().line(),
                column: e.marker().col() + 1,
                message: e.info().to_string(),
                limit: None,
            })?;
            let done: Option<(NodeId, u64)> = match event {
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
                        ByteSpan::new(start, end),
                        NodeKind::Scalar {
                            value: scalar_value(src, start, end, value, &own),
                            style,
                            tagged: tag.is_some(),
                        },
                    );
                    remember(&mut anchors, anchor, id, 1);
                    Some((id, 1))
                }
                Event::Alias(anchor) => {
                    let (target, size) =
                        anchors.get(anchor).copied().flatten().ok_or_else(|| {
                            error_at(&span, "alias names an anchor that is not defined")
                        })?;
                    if size == 0 {
                        return Err(error_at(
                            &span,
                            "alias refers to a collection that contains it (a recursive alias); no Kubernetes reader accepts it",
                        ));
                    }
                    let start = offsets.byte(span.start.index());
                    let end = offsets.byte(span.end.index());
                    let id = push(
                        &mut nodes,
                        ByteSpan::new(start, end),
                        NodeKind::Alias(target),
                    );
                    Some((id, size))
                }
                Event::MappingStart(anchor, _) | Event::SequenceStart(anchor, _) => {
                    let is_map = matches!(event, Event::MappingStart(..));
                    let start = offsets.byte(span.start.index());
                    let end = offsets.byte(span.end.index());
                    // A flow collection's start span ends just after its `{` or `[` (it
                    // may begin with an anchor or tag); a block one's span is empty or
                    // holds only properties.
                    // (saphyr's span may also run over spaces, line breaks and a comment
                    // after the opener: `{ # note`. A comment starts after a blank, which
                    // no anchor or tag holds.)
                    let opener = if is_map { '{' } else { '[' };
                    let text = &src[start..end.max(start)];
                    let comment = text.find(" #").or_else(|| text.find("\t#"));
                    let opened = text[..comment.unwrap_or(text.len())].trim_end();
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
                    if stack.len() >= MAX_DEPTH {
                        return Err(YamlError {
                            limit: Some(Limit::Nesting),
                            ..error_at(
                                &span,
                                &format!(
                                    "collections nest deeper than {MAX_DEPTH} levels (the nesting limit); no manifest needs this"
                                ),
                            )
                        });
                    }
                    let id = push(&mut nodes, ByteSpan::new(start, start), kind);
                    remember(&mut anchors, anchor, id, 0);
                    stack.push(if is_map {
                        Open::Map {
                            id,
                            key: None,
                            base: pairs.len(),
                            size: 1,
                            anchor,
                        }
                    } else {
                        Open::Seq {
                            id,
                            base: singles.len(),
                            size: 1,
                            anchor,
                        }
                    });
                    None
                }
                Event::MappingEnd | Event::SequenceEnd => {
                    let mut end = offsets.byte(span.end.index());
                    let Some(open) = stack.pop() else {
                        return Err(error_at(&span, "unbalanced collection"));
                    };
                    let (id, size, anchor) = match open {
                        Open::Map {
                            id,
                            base,
                            size,
                            anchor,
                            ..
                        } => {
                            let entries = pairs.split_off(base);
                            check_duplicates(src, &nodes, &entries)?;
                            if let NodeKind::Map { entries: e, .. } = &mut nodes[id].kind {
                                *e = entries;
                            }
                            (id, size, anchor)
                        }
                        Open::Seq {
                            id,
                            base,
                            size,
                            anchor,
                        } => {
                            let items = singles.split_off(base);
                            if let NodeKind::Seq { items: i, .. } = &mut nodes[id].kind {
                                *i = items;
                            }
                            (id, size, anchor)
                        }
                    };
                    // A flow collection ends at its closing bracket. saphyr's end runs on
                    // over the blanks and any comment after it, which an edit replacing
                    // the collection would take with it.
                    let close = offsets.byte(span.start.index());
                    let flow = matches!(
                        nodes[id].kind,
                        NodeKind::Map { flow: true, .. } | NodeKind::Seq { flow: true, .. }
                    );
                    if flow && matches!(src.as_bytes().get(close), Some(b']' | b'}')) {
                        end = close + 1;
                    }
                    let start = nodes[id].span.start();
                    nodes[id].span.set_end(end.max(start));
                    remember(&mut anchors, anchor, id, size);
                    if size > max_expansion
                        && past_floor.is_none()
                        && nodes.len() - doc_first < (size / MAX_ALIAS_RATIO) as usize
                    {
                        past_floor = Some(nodes[id].span.start());
                    }
                    Some((id, size))
                }
                Event::DocumentStart(..) => {
                    doc_first = nodes.len();
                    past_floor = None;
                    None
                }
                Event::DocumentEnd => {
                    let written = (nodes.len() - doc_first) as u64;
                    let size = root.map_or(0, |(_, size)| size);
                    if size > max_expansion.max(written.saturating_mul(MAX_ALIAS_RATIO)) {
                        let mut err = error_at(&span, "");
                        if let Some(pos) = past_floor {
                            (err.line, err.column) = line_col(src, pos);
                        }
                        let shown = if size == u64::MAX {
                            "2^64".to_string()
                        } else {
                            size.to_string()
                        };
                        return Err(YamlError {
                            message: format!(
                                "the document's aliases expand it to more than {shown} nodes ({written} written; the alias expansion limit is {MAX_ALIAS_EXPANSION} nodes or {MAX_ALIAS_RATIO} times the nodes written); the collection starting here is where it was passed: write those parts out or use fewer aliases"
                            ),
                            limit: Some(Limit::AliasExpansion),
                            ..err
                        });
                    }
                    if let Some((root, _)) = root.take() {
                        docs.push(Document {
                            root,
                            content_end: offsets.byte(span.start.index()),
                        });
                    }
                    None
                }
                _ => None,
            };
            if let Some((id, grown)) = done {
                match stack.last_mut() {
                    Some(Open::Map { key, size, .. }) => {
                        *size = size.saturating_add(grown);
                        match key.take() {
                            None => *key = Some(id),
                            Some(k) => pairs.push((k, id)),
                        }
                    }
                    Some(Open::Seq { size, .. }) => {
                        *size = size.saturating_add(grown);
                        singles.push(id);
                    }
                    None => root = Some((id, grown)),
                }
            }
        }
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

fn remember(anchors: &mut Vec<Option<(NodeId, u64)>>, anchor: usize, id: NodeId, size: u64) {
    if anchor == 0 {
        return;
    }
    if anchors.len() <= anchor {
        anchors.resize(anchor + 1, None);
    }
    anchors[anchor] = Some((id, size));
}

/// Refuses characters YAML does not allow anywhere in a stream (not even in comments):
/// C0 controls other than tab, LF and CR, DEL, C1 controls other than NEL, U+FFFE and
/// U+FFFF. go-yaml (kubectl, kustomize, kpt) refuses them too. Without this check the
/// parser reports a NUL in a quoted scalar as "found unexpected end of stream". The
/// message says which character and where, never the text around it.
pub fn check_characters(src: &str) -> Result<(), YamlError> {
    let b = src.as_bytes();
    let bad = b.iter().enumerate().find_map(|(i, &c)| match c {
        b'\t' | b'\n' | b'\r' => None,
        0..=0x1f | 0x7f => Some((i, u32::from(c))),
        // U+0080..U+009F except U+0085 (NEL).
        0xc2 => match b.get(i + 1) {
            Some(&n @ 0x80..=0x9f) if n != 0x85 => Some((i, u32::from(n))),
            _ => None,
        },
        // U+FFFE, U+FFFF.
        0xef if b.get(i + 1) == Some(&0xbf) && matches!(b.get(i + 2), Some(0xbe | 0xbf)) => {
            Some((i, src[i..].chars().next().map_or(0, u32::from)))
        }
        _ => None,
    });
    match bad {
        None => Ok(()),
        Some((pos, code)) => {
            let (line, column) = line_col(src, pos);
            Err(YamlError {
                line,
                column,
                message: format!(
                    "the character U+{code:04X} is not allowed in YAML, not even in a comment; remove it, or write it escaped inside a double-quoted string (\"\\u{code:04X}\")"
                ),
                limit: None,
            })
        }
    }
}

/// 1-based line and column of a byte offset.
fn line_col(src: &str, pos: usize) -> (usize, usize) {
    let before = &src[..pos.min(src.len())];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn error_at(span: &Span, message: &str) -> YamlError {
    YamlError {
        line: span.start.line(),
        column: span.start.col() + 1,
        message: message.to_string(),
        limit: None,
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
            let pos = nodes[k].span.start();
            let before = &src[..pos];
            let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
            let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
            Err(YamlError {
                line,
                column,
                // The key itself is not quoted: a Secret value mistyped as a flow map
                // (`{hunter2}`) is a key, and messages never echo Secret values.
                message: "duplicate key in a mapping (the API server rejects duplicate fields; keep one; see the line and column for which)".to_string(),
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

    /// F3: `m1: {<<: [*m0 x 9]}`, ... `m15`: each level read its merges nine times.
    #[test]
    fn merge_chains_through_aliases_are_linear() {
        let mut src = String::from("m0: &m0 {k0: v}\n");
        for level in 1..16 {
            let refs = vec![format!("*m{}", level - 1); 9].join(", ");
            src.push_str(&format!(
                "m{level}: &m{level} {{k{level}: v, <<: [{refs}]}}\n"
            ));
        }
        src.push_str("top: {<<: *m15, own: x}\n");
        let keys = within(10, move || {
            // The expansion limit refuses this document (as go-yaml would); the merge
            // walk itself must still be linear, so measure it without the limit.
            let tree = Tree::build_unlimited(&src);
            let top = tree.get(tree.docs[0].root, "top").unwrap();
            let mut keys: Vec<String> = tree
                .entries(top)
                .iter()
                .map(|&(k, _)| tree.str(k).unwrap().to_string())
                .collect();
            keys.sort();
            (keys, tree.get(top, "k0").is_some())
        });
        assert_eq!(keys.0.len(), 17, "{:?}", keys.0);
        assert!(keys.1);
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
