//! The tree: every node of every document, in pre-order, 12 bytes each, with exact
//! spans; what few nodes need more (decoded values, properties, aliases, collections'
//! extents) lives in side tables.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::chars::NONE;
use crate::context::Context;
use crate::error::{Error, ErrorKind, Limit};
use crate::limits::{MAX_ALIAS_EXPANSION, MAX_ALIAS_RATIO, MAX_DEPTH};
use crate::scan::{RawError, Style};

/// A node of a [`Tree`]: an index into its nodes, in document order (pre-order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NodeId(pub(crate) u32);

impl NodeId {
    #[inline]
    fn ix(self) -> usize {
        self.0 as usize
    }

    /// The node's place in document order (pre-order): a dense index for tables kept
    /// beside the tree. There is no way back from a number: only a [`Tree`] hands out
    /// its nodes.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A byte range of the text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    start: u32,
    end: u32,
}

impl Span {
    /// Where it starts.
    pub fn start(self) -> usize {
        self.start as usize
    }

    /// Where it ends (exclusive).
    pub fn end(self) -> usize {
        self.end as usize
    }

    /// True when it holds no byte (a node written as nothing has a place only).
    pub fn is_empty(self) -> bool {
        self.end <= self.start
    }
}

/// What a node is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A scalar, written in this style.
    Scalar(Style),
    /// A mapping: `{...}` when `flow`, else block entries.
    Map {
        /// Written in flow style (`{...}`).
        flow: bool,
    },
    /// A sequence: `[...]` when `flow`, else block entries (`- ...`).
    Seq {
        /// Written in flow style (`[...]`).
        flow: bool,
    },
    /// `*name`: [`Tree::resolve`] gives the node its anchor names.
    Alias,
}

// Node kinds, in the low bits of `Node::info`.
const K_PLAIN: u32 = 0;
const K_SINGLE: u32 = 1;
const K_DOUBLE: u32 = 2;
const K_LITERAL: u32 = 3;
const K_FOLDED: u32 = 4;
const K_ALIAS: u32 = 5;
const K_BLOCK_MAP: u32 = 6;
const K_FLOW_MAP: u32 = 7;
const K_BLOCK_SEQ: u32 = 8;
const K_FLOW_SEQ: u32 = 9;
const KIND_MASK: u32 = 0xF;
const HAS_PROPS: u32 = 1 << 4;
const DECODED: u32 = 1 << 5;
const LEAD_SHIFT: u32 = 8;
const LEAD_OVERFLOW: u32 = 0xFF_FFFF;

/// 12 bytes. `end` is the span's end for scalars; for collections and aliases it is an
/// index into `colls` or `aliases`, which hold the end. `info` packs the kind, two flags
/// and how far before `start` the node's indicator (`-`, `:`, `?`) stands.
#[derive(Debug, Clone, Copy)]
struct Node {
    start: u32,
    end: u32,
    info: u32,
}

#[derive(Debug, Clone, Copy)]
struct Coll {
    end: u32,
    /// The node after this collection's subtree.
    next: u32,
}

#[derive(Debug, Clone, Copy)]
struct AliasRec {
    end: u32,
    target: u32,
}

/// A node's properties: anchor and tag spans ([`NONE`] when absent), and where its
/// content starts after them.
#[derive(Debug, Clone, Copy)]
struct PropsRec {
    node: u32,
    anchor: (u32, u32),
    tag: (u32, u32),
    content: u32,
}

/// One document of the stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Document {
    root: NodeId,
    start: u32,
    content_end: u32,
}

impl Document {
    /// The document's root node.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// Where the document starts: its `---`, or its first token.
    pub fn start(&self) -> usize {
        self.start as usize
    }

    /// Where its content ends: the `...` or `---` after it, or the end of the text
    /// (after any comments that follow the content).
    pub fn content_end(&self) -> usize {
        self.content_end as usize
    }
}

/// A read-only YAML tree over a text: every node knows its exact byte range, so that
/// edits are splices into the original text.
#[derive(Debug)]
pub struct Tree<'a> {
    src: &'a str,
    ctx: Context,
    nodes: Vec<Node>,
    colls: Vec<Coll>,
    aliases: Vec<AliasRec>,
    /// (node, start, end) into `decoded_text`, by node, and for a block scalar where
    /// its text starts.
    decoded: Vec<(u32, u32, u32, u32)>,
    decoded_text: String,
    props: Vec<PropsRec>,
    /// Indicator positions too far before their node for `info`.
    leads: Vec<(u32, u32)>,
    docs: Vec<Document>,
    line_starts: std::sync::OnceLock<Vec<u32>>,
}

/// A cheap hasher for short keys (FxHash's multiply-rotate): keys come from the text,
/// and a lookup is linear whatever their hashes, so no protection against chosen
/// collisions is needed beyond what a bad input costs anyway (one slower map).
#[derive(Default)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut h = self.0;
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let w = u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
            h = (h.rotate_left(5) ^ w).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        for &c in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(c)).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
        }
        self.0 = h;
    }
}

pub(crate) type FxBuild = BuildHasherDefault<FxHasher>;

/// Node properties as the parser read them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Props {
    /// Where the first property starts ([`NONE`]: none).
    pub start: u32,
    pub end: u32,
    pub anchor: (u32, u32),
    pub tag: (u32, u32),
}

impl Props {
    pub const NONE: Props = Props {
        start: NONE,
        end: NONE,
        anchor: (NONE, NONE),
        tag: (NONE, NONE),
    };

    pub fn any(&self) -> bool {
        self.start != NONE
    }
}

/// A collection being read.
struct Open {
    id: u32,
    /// Where its keys wait in `keys` (maps only).
    keys_base: usize,
    /// Its size with aliases expanded (saturating).
    size: u64,
    /// It defines an anchor, whose size is known when it closes.
    anchored: bool,
    is_map: bool,
    /// The next child completed is a key (maps only).
    key_next: bool,
}

/// Builds a [`Tree`] from the parser's events.
pub(crate) struct Builder<'a> {
    tree: Tree<'a>,
    stack: Vec<Open>,
    keys: Vec<u32>,
    /// Anchor name to (node, size with aliases expanded; 0 while open).
    anchors: HashMap<&'a str, (u32, u64), FxBuild>,
    /// The end of the last node finished.
    pub last_end: u32,
    root: Option<(u32, u64)>,
    doc_start: u32,
    doc_first: usize,
    past_floor: Option<u32>,
    max_expansion: u64,
}

impl<'a> Builder<'a> {
    pub fn new(src: &'a str, ctx: Context) -> Builder<'a> {
        // Dense shapes (`[a, a, ...]`) have a node every two bytes: room for that much is
        // reserved, but pages never written are never resident.
        let nodes = Vec::with_capacity(src.len() / 2 + 8);
        Builder {
            tree: Tree {
                src,
                ctx,
                nodes,
                colls: Vec::new(),
                aliases: Vec::new(),
                decoded: Vec::new(),
                decoded_text: String::new(),
                props: Vec::new(),
                leads: Vec::new(),
                docs: Vec::new(),
                line_starts: std::sync::OnceLock::new(),
            },
            stack: Vec::new(),
            keys: Vec::new(),
            anchors: HashMap::default(),
            last_end: 0,
            root: None,
            doc_start: 0,
            doc_first: 0,
            past_floor: None,
            max_expansion: MAX_ALIAS_EXPANSION,
        }
    }

    #[cfg(test)]
    pub fn unlimited(mut self) -> Self {
        self.max_expansion = u64::MAX;
        self
    }

    pub fn finish(mut self, decoded_text: String) -> Tree<'a> {
        let t = &mut self.tree;
        t.decoded_text = decoded_text;
        t.nodes.shrink_to_fit();
        t.colls.shrink_to_fit();
        t.decoded.shrink_to_fit();
        t.decoded_text.shrink_to_fit();
        self.tree
    }

    pub fn document_start(&mut self, at: usize) {
        self.doc_start = at as u32;
        self.doc_first = self.tree.nodes.len();
        self.past_floor = None;
        self.root = None;
    }

    pub fn document_end(&mut self, content_end: usize) -> Result<(), RawError> {
        let written = (self.tree.nodes.len() - self.doc_first) as u64;
        let size = self.root.map_or(0, |(_, s)| s);
        if size
            > self
                .max_expansion
                .max(written.saturating_mul(MAX_ALIAS_RATIO))
        {
            return Err(RawError {
                kind: ErrorKind::Limit(Limit::AliasExpansion),
                at: self.past_floor.unwrap_or(self.doc_start) as usize,
            });
        }
        if let Some((root, _)) = self.root.take() {
            self.tree.docs.push(Document {
                root: NodeId(root),
                start: self.doc_start,
                content_end: content_end as u32,
            });
        }
        Ok(())
    }

    fn push_node(&mut self, start: u32, end: u32, kind: u32, lead: u32) -> u32 {
        let id = self.tree.nodes.len() as u32;
        let delta = if lead == NONE {
            0
        } else {
            let d = start - lead;
            if d >= LEAD_OVERFLOW {
                self.tree.leads.push((id, lead));
                LEAD_OVERFLOW
            } else {
                d
            }
        };
        self.tree.nodes.push(Node {
            start,
            end,
            info: kind | (delta << LEAD_SHIFT),
        });
        id
    }

    fn record_props(&mut self, id: u32, props: &Props, content: u32) {
        self.tree.nodes[id as usize].info |= HAS_PROPS;
        self.tree.props.push(PropsRec {
            node: id,
            anchor: props.anchor,
            tag: props.tag,
            content,
        });
    }

    fn anchor_name(&self, props: &Props) -> Option<&'a str> {
        (props.anchor.0 != NONE)
            .then(|| &self.tree.src[props.anchor.0 as usize + 1..props.anchor.1 as usize])
    }

    /// A scalar: `start..end` is its text (for an empty one, a place), `decoded` its
    /// value when that differs from its text, `lead` its indicator.
    #[allow(clippy::too_many_arguments)]
    pub fn scalar(
        &mut self,
        props: &Props,
        start: u32,
        end: u32,
        style: Style,
        decoded: Option<(u32, u32, u32)>,
        lead: u32,
    ) -> Result<(), RawError> {
        let kind = match style {
            Style::Plain => K_PLAIN,
            Style::SingleQuoted => K_SINGLE,
            Style::DoubleQuoted => K_DOUBLE,
            Style::Literal => K_LITERAL,
            Style::Folded => K_FOLDED,
        };
        let (node_start, node_end) = if props.any() {
            // A node of properties alone (`a: &x`) is written as them.
            let end = if start == end && start >= props.end {
                props.end
            } else {
                end
            };
            (props.start, end)
        } else {
            (start, end)
        };
        let id = self.push_node(node_start, node_end, kind, lead);
        if let Some((s, e, text)) = decoded {
            self.tree.nodes[id as usize].info |= DECODED;
            self.tree.decoded.push((id, s, e, text));
        }
        if props.any() {
            self.record_props(id, props, start.min(node_end));
        }
        if let Some(name) = self.anchor_name(props) {
            self.anchors.insert(name, (id, 1));
        }
        self.last_end = node_end;
        self.done(id, 1);
        Ok(())
    }

    pub fn alias(&mut self, start: u32, end: u32, lead: u32) -> Result<(), RawError> {
        let name = &self.tree.src[start as usize + 1..end as usize];
        let Some(&(target, size)) = self.anchors.get(name) else {
            return Err(RawError {
                kind: ErrorKind::UndefinedAlias,
                at: start as usize,
            });
        };
        if (target as usize) < self.doc_first {
            return Err(RawError {
                kind: ErrorKind::AliasToAnotherDocument,
                at: start as usize,
            });
        }
        if size == 0 {
            return Err(RawError {
                kind: ErrorKind::RecursiveAlias,
                at: start as usize,
            });
        }
        let rec = self.tree.aliases.len() as u32;
        self.tree.aliases.push(AliasRec { end, target });
        let id = self.push_node(start, rec, K_ALIAS, lead);
        self.last_end = end;
        self.done(id, size);
        Ok(())
    }

    pub fn collection_start(
        &mut self,
        props: &Props,
        content: u32,
        map: bool,
        flow: bool,
        lead: u32,
    ) -> Result<(), RawError> {
        let start = if props.any() { props.start } else { content };
        if self.stack.len() >= MAX_DEPTH {
            return Err(RawError {
                kind: ErrorKind::Limit(Limit::Nesting),
                at: start as usize,
            });
        }
        let kind = match (map, flow) {
            (true, false) => K_BLOCK_MAP,
            (true, true) => K_FLOW_MAP,
            (false, false) => K_BLOCK_SEQ,
            (false, true) => K_FLOW_SEQ,
        };
        let rec = self.tree.colls.len() as u32;
        self.tree.colls.push(Coll {
            end: start,
            next: 0,
        });
        let id = self.push_node(start, rec, kind, lead);
        if props.any() {
            self.record_props(id, props, content);
        }
        let anchor = self.anchor_name(props);
        if let Some(name) = anchor {
            self.anchors.insert(name, (id, 0));
        }
        self.stack.push(Open {
            id,
            keys_base: self.keys.len(),
            size: 1,
            anchored: anchor.is_some(),
            is_map: map,
            key_next: true,
        });
        Ok(())
    }

    /// Closes the innermost collection; `end` is its closing bracket's end (flow), or
    /// `None` to end it with its last node.
    /// `decoded` is the decoded values so far (the scanner's, until the tree takes them).
    pub fn collection_end(&mut self, end: Option<u32>, decoded: &str) -> Result<(), RawError> {
        let open = self.stack.pop().expect("the parser balances collections");
        let end = end.unwrap_or(self.last_end);
        if open.is_map {
            self.check_duplicates(open.keys_base, decoded)?;
            self.keys.truncate(open.keys_base);
        }
        let id = open.id;
        let rec = self.tree.nodes[id as usize].end as usize;
        let next = self.tree.nodes.len() as u32;
        let start = self.tree.nodes[id as usize].start;
        self.tree.colls[rec] = Coll {
            end: end.max(start),
            next,
        };
        self.last_end = end.max(start);
        if open.anchored {
            // Find the anchor naming this collection (it may have been redefined since,
            // inside it: then the inner definition wins, as go-yaml's map does).
            if let Some(props) = self.tree.props_of(NodeId(id)) {
                let name = &self.tree.src[props.anchor.0 as usize + 1..props.anchor.1 as usize];
                if let Some(entry) = self.anchors.get_mut(name) {
                    if entry.0 == id {
                        entry.1 = open.size;
                    }
                }
            }
        }
        if open.size > self.max_expansion
            && self.past_floor.is_none()
            && self.tree.nodes.len() - self.doc_first < (open.size / MAX_ALIAS_RATIO) as usize
        {
            self.past_floor = Some(start);
        }
        self.done(id, open.size);
        Ok(())
    }

    /// A node is complete: it counts into its parent's size, and is a key or not.
    fn done(&mut self, id: u32, size: u64) {
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some((id, size));
            return;
        };
        parent.size = parent.size.saturating_add(size);
        if parent.is_map {
            // Keys and values alternate; only keys wait for the duplicate check.
            if parent.key_next {
                self.keys.push(id);
            }
            parent.key_next = !parent.key_next;
        }
    }

    fn check_duplicates(&self, base: usize, decoded: &'a str) -> Result<(), RawError> {
        let keys = &self.keys[base..];
        let t = &self.tree;
        let key_of = |k: u32| -> Option<&str> {
            let k = NodeId(k);
            match t.kind(k) {
                Kind::Scalar(_) => t.value_in(k, decoded).filter(|v| *v != "<<"),
                _ => None,
            }
        };
        let duplicate = if keys.len() <= 16 {
            let mut seen: [&str; 16] = [""; 16];
            let mut n = 0;
            keys.iter().find_map(|&k| {
                let key = key_of(k)?;
                if seen[..n].contains(&key) {
                    return Some(k);
                }
                seen[n] = key;
                n += 1;
                None
            })
        } else {
            let mut seen: std::collections::HashSet<&str, FxBuild> =
                std::collections::HashSet::with_capacity_and_hasher(keys.len(), FxBuild::default());
            keys.iter()
                .find_map(|&k| key_of(k).filter(|key| !seen.insert(key)).map(|_| k))
        };
        match duplicate {
            None => Ok(()),
            Some(k) => Err(RawError {
                kind: ErrorKind::DuplicateKey,
                at: t.nodes[k as usize].start as usize,
            }),
        }
    }
}

/// The key that starts at `at`, as written, when it is followed by its `:` and fits a
/// message (one line, at most 64 characters): a plain key up to its `:`, or a quoted
/// one with its quotes. `None` for a key with no value (it may be a value typed as a
/// flow mapping: a Secret's) or anything else.
fn written_key(src: &str, at: usize) -> Option<&str> {
    let rest = src.get(at..)?;
    let bytes = rest.as_bytes();
    let end = match bytes.first()? {
        b'"' => {
            let mut i = 1;
            loop {
                match bytes.get(i)? {
                    b'\\' => i += 2,
                    b'"' => break i + 1,
                    _ => i += 1,
                }
            }
        }
        b'\'' => {
            let mut i = 1;
            loop {
                match (bytes.get(i)?, bytes.get(i + 1)) {
                    (b'\'', Some(b'\'')) => i += 2,
                    (b'\'', _) => break i + 1,
                    _ => i += 1,
                }
            }
        }
        _ => rest.find([':', ',', '{', '}', '[', ']', '#', '\n', '\r'])?,
    };
    let key = rest[..end].trim_end_matches([' ', '\t']);
    let after = rest[end..].trim_start_matches([' ', '\t']);
    let fits = !key.is_empty() && key.chars().count() <= 64 && !key.contains(['\n', '\r']);
    (fits && after.starts_with(':')).then_some(key)
}

impl<'a> Tree<'a> {
    /// The error `e` as a public error: line and column for messages, and the key of a
    /// duplicate key.
    pub(crate) fn error_at(src: &str, ctx: Context, e: RawError) -> Error {
        let (line, column) = line_col_of(src, ctx.json(), e.at);
        let error = Error::new(e.kind, e.at, line + ctx.line_base(), column);
        match e.kind {
            ErrorKind::DuplicateKey => match written_key(src, e.at) {
                Some(key) => error.with_key(key),
                None => error,
            },
            ErrorKind::UndefinedAlias
            | ErrorKind::RecursiveAlias
            | ErrorKind::AliasToAnotherDocument => {
                // `*name`: the name ends where a name's characters do.
                let alias = &src[e.at..];
                let end = alias[1..]
                    .find(|c: char| c.is_whitespace() || ",[]{}".contains(c))
                    .map_or(alias.len(), |n| n + 1);
                error.with_alias(&alias[..end])
            }
            _ => error,
        }
    }

    /// The text the tree was read from.
    pub fn src(&self) -> &'a str {
        self.src
    }

    /// What the text was read as ([`Context`]).
    pub fn context(&self) -> Context {
        self.ctx
    }

    /// The documents of the stream, in order.
    pub fn documents(&self) -> &[Document] {
        &self.docs
    }

    /// How many nodes the tree holds.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// True when the text holds no node.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Every node, in document order.
    pub fn ids(&self) -> impl Iterator<Item = NodeId> + use<> {
        (0..self.nodes.len() as u32).map(NodeId)
    }

    #[inline]
    fn node(&self, id: NodeId) -> Node {
        self.nodes[id.ix()]
    }

    /// What the node is, as written (an alias is [`Kind::Alias`]).
    pub fn kind(&self, id: NodeId) -> Kind {
        match self.node(id).info & KIND_MASK {
            K_PLAIN => Kind::Scalar(Style::Plain),
            K_SINGLE => Kind::Scalar(Style::SingleQuoted),
            K_DOUBLE => Kind::Scalar(Style::DoubleQuoted),
            K_LITERAL => Kind::Scalar(Style::Literal),
            K_FOLDED => Kind::Scalar(Style::Folded),
            K_ALIAS => Kind::Alias,
            K_BLOCK_MAP => Kind::Map { flow: false },
            K_FLOW_MAP => Kind::Map { flow: true },
            K_BLOCK_SEQ => Kind::Seq { flow: false },
            _ => Kind::Seq { flow: true },
        }
    }

    #[inline]
    fn kind_bits(&self, id: NodeId) -> u32 {
        self.node(id).info & KIND_MASK
    }

    #[inline]
    fn is_collection_bits(k: u32) -> bool {
        k >= K_BLOCK_MAP
    }

    /// Follows an alias to the node its anchor names (any other node is itself).
    #[inline]
    pub fn resolve(&self, id: NodeId) -> NodeId {
        let n = self.node(id);
        if n.info & KIND_MASK == K_ALIAS {
            NodeId(self.aliases[n.end as usize].target)
        } else {
            id
        }
    }

    /// An alias (`*name`), as written.
    pub fn is_alias(&self, id: NodeId) -> bool {
        self.kind_bits(id) == K_ALIAS
    }

    /// A mapping, through aliases.
    pub fn is_map(&self, id: NodeId) -> bool {
        matches!(self.kind_bits(self.resolve(id)), K_BLOCK_MAP | K_FLOW_MAP)
    }

    /// A sequence, through aliases.
    pub fn is_seq(&self, id: NodeId) -> bool {
        matches!(self.kind_bits(self.resolve(id)), K_BLOCK_SEQ | K_FLOW_SEQ)
    }

    /// A scalar, through aliases.
    pub fn is_scalar(&self, id: NodeId) -> bool {
        self.kind_bits(self.resolve(id)) <= K_FOLDED
    }

    /// A flow collection (`{...}`, `[...]`), as written (not through aliases).
    pub fn is_flow(&self, id: NodeId) -> bool {
        matches!(self.kind_bits(id), K_FLOW_MAP | K_FLOW_SEQ)
    }

    /// The style of a scalar as written (not through aliases).
    pub fn style(&self, id: NodeId) -> Option<Style> {
        match self.kind(id) {
            Kind::Scalar(s) => Some(s),
            _ => None,
        }
    }

    /// The node's text: from its first property (`&a`, `!t`) or its content, to where
    /// its content ends (a flow collection's closing bracket, a block collection's last
    /// node, a quoted scalar's closing quote, a block scalar's last content line before
    /// its break; trailing blanks, comments and empty lines are never part of it).
    pub fn span(&self, id: NodeId) -> Span {
        let n = self.node(id);
        let end = match n.info & KIND_MASK {
            K_ALIAS => self.aliases[n.end as usize].end,
            k if Self::is_collection_bits(k) => self.colls[n.end as usize].end,
            _ => n.end,
        };
        Span {
            start: n.start,
            end,
        }
    }

    fn props_of(&self, id: NodeId) -> Option<&PropsRec> {
        if self.node(id).info & HAS_PROPS == 0 {
            return None;
        }
        let i = self.props.partition_point(|p| p.node < id.0);
        self.props.get(i).filter(|p| p.node == id.0)
    }

    /// Where the node's content starts, after its properties.
    pub fn content_start(&self, id: NodeId) -> usize {
        match self.props_of(id) {
            Some(p) => p.content as usize,
            None => self.node(id).start as usize,
        }
    }

    /// The anchor the node defines (`&name` gives `name`).
    pub fn anchor(&self, id: NodeId) -> Option<&'a str> {
        let p = self.props_of(id)?;
        (p.anchor.0 != NONE).then(|| &self.src[p.anchor.0 as usize + 1..p.anchor.1 as usize])
    }

    /// True when the node defines an anchor ([`Tree::anchor`]).
    pub fn has_anchor(&self, id: NodeId) -> bool {
        self.anchor(id).is_some()
    }

    /// The tag as written (`!!str`, `!<tag:yaml.org,2002:str>`, `!`).
    pub fn tag(&self, id: NodeId) -> Option<&'a str> {
        let p = self.props_of(id)?;
        (p.tag.0 != NONE).then(|| &self.src[p.tag.0 as usize..p.tag.1 as usize])
    }

    /// Where the indicator that introduces the node stands: the `-` of a block sequence
    /// item, the `:` before a value, the `?` of an explicit key.
    pub fn lead(&self, id: NodeId) -> Option<usize> {
        let n = self.node(id);
        match n.info >> LEAD_SHIFT {
            0 => None,
            LEAD_OVERFLOW => {
                let i = self.leads.partition_point(|l| l.0 < id.0);
                Some(self.leads[i].1 as usize)
            }
            d => Some((n.start - d) as usize),
        }
    }

    /// Where a mapping entry whose key is `k` starts: at the `?` of an explicit key,
    /// else at the key.
    pub fn entry_start(&self, k: NodeId) -> usize {
        self.lead(k).unwrap_or_else(|| self.span(k).start())
    }

    /// Where the editor writes over a node: a block scalar without properties from its
    /// first content line (its header stays), any other node from its span's start.
    pub(crate) fn edit_start(&self, id: NodeId) -> usize {
        match self.block_text_start(id) {
            Some(text) if self.content_start(id) == self.span(id).start() => text,
            _ => self.span(id).start(),
        }
    }

    /// True when `id` or anything written inside it (not through aliases) defines an
    /// anchor: removing its text would leave aliases naming nothing.
    pub fn subtree_has_anchor(&self, id: NodeId) -> bool {
        let end = self.subtree_end(id);
        let first = self.props.partition_point(|p| p.node < id.0);
        self.props[first..]
            .iter()
            .take_while(|p| p.node < end)
            .any(|p| p.anchor.0 != NONE)
    }

    /// The node after `id`'s subtree.
    #[inline]
    fn subtree_end(&self, id: NodeId) -> u32 {
        let n = self.node(id);
        if Self::is_collection_bits(n.info & KIND_MASK) {
            self.colls[n.end as usize].next
        } else {
            id.0 + 1
        }
    }

    /// The value of a scalar as written (not through aliases).
    pub(crate) fn scalar_value(&self, id: NodeId) -> Option<&str> {
        self.value_in(id, &self.decoded_text)
    }

    /// [`Tree::scalar_value`], its decoded values in `decoded`.
    fn value_in<'s>(&'s self, id: NodeId, decoded: &'s str) -> Option<&'s str> {
        let n = self.node(id);
        let k = n.info & KIND_MASK;
        if k > K_FOLDED {
            return None;
        }
        if n.info & DECODED != 0 {
            let i = self.decoded.partition_point(|d| d.0 < id.0);
            let (_, s, e, _) = self.decoded[i];
            return Some(&decoded[s as usize..e as usize]);
        }
        let start = self.content_start(id);
        let end = n.end as usize;
        if start >= end {
            return Some("");
        }
        Some(match k {
            K_SINGLE | K_DOUBLE => &self.src[start + 1..end - 1],
            _ => &self.src[start..end],
        })
    }

    /// Where a scalar's value is written as it is in the text (a plain scalar on one
    /// line, a quoted one without escapes or line breaks): `None` when its value had to
    /// be decoded (or it is no scalar).
    pub fn value_span(&self, id: NodeId) -> Option<Span> {
        let n = self.node(id);
        let k = n.info & KIND_MASK;
        if k > K_FOLDED || n.info & DECODED != 0 {
            return None;
        }
        let start = self.content_start(id) as u32;
        let end = n.end;
        Some(match k {
            K_SINGLE | K_DOUBLE if end >= start + 2 => Span {
                start: start + 1,
                end: end - 1,
            },
            _ => Span {
                start: start.min(end),
                end,
            },
        })
    }

    /// Where a block scalar's text starts: its first content line, after the
    /// indentation (for one without content lines, the end of its header).
    pub fn block_text_start(&self, id: NodeId) -> Option<usize> {
        if !matches!(self.kind_bits(id), K_LITERAL | K_FOLDED) {
            return None;
        }
        let i = self.decoded.partition_point(|d| d.0 < id.0);
        Some(self.decoded[i].3 as usize)
    }

    /// The string of a scalar, through aliases.
    pub fn str(&self, id: NodeId) -> Option<&str> {
        self.scalar_value(self.resolve(id))
    }

    /// True for a scalar go-yaml reads as null: plain and untagged `""`, `~`, `null`,
    /// `Null`, `NULL`, or tagged `!!null`.
    pub fn is_null(&self, id: NodeId) -> bool {
        let id = self.resolve(id);
        if self.kind_bits(id) != K_PLAIN {
            return false;
        }
        match self.tag(id) {
            None | Some("!") => matches!(
                self.scalar_value(id),
                Some("" | "~" | "null" | "Null" | "NULL")
            ),
            Some(t) => is_core_tag(t, "null"),
        }
    }

    /// True for a scalar go-yaml v3 reads as the boolean true.
    pub fn is_true(&self, id: NodeId) -> bool {
        let id = self.resolve(id);
        self.kind_bits(id) == K_PLAIN
            && matches!(self.tag(id), None | Some("!"))
            && matches!(self.scalar_value(id), Some("true" | "True" | "TRUE"))
    }

    /// True for a scalar that carries a tag (other than the non-specific `!`).
    pub fn is_tagged(&self, id: NodeId) -> bool {
        self.tag(id).is_some_and(|t| t != "!")
    }

    /// True for a merge key (`<<`, plain, untagged or tagged `!!merge`).
    pub fn is_merge_key(&self, k: NodeId) -> bool {
        self.kind_bits(k) == K_PLAIN
            && self.scalar_value(k) == Some("<<")
            && match self.tag(k) {
                None | Some("!") => true,
                Some(t) => is_core_tag(t, "merge"),
            }
    }

    /// The children of a collection as written (keys and values alternate in a map).
    fn children(&self, id: NodeId) -> Children<'_, 'a> {
        let n = self.node(id);
        let end = if Self::is_collection_bits(n.info & KIND_MASK) {
            self.colls[n.end as usize].next
        } else {
            id.0 + 1
        };
        Children {
            tree: self,
            next: id.0 + 1,
            end,
        }
    }

    /// A mapping's own entries, as written (no aliases or merges followed).
    pub fn own_entries(&self, map: NodeId) -> Entries<'_, 'a> {
        let children = if matches!(self.kind_bits(map), K_BLOCK_MAP | K_FLOW_MAP) {
            self.children(map)
        } else {
            Children {
                tree: self,
                next: 0,
                end: 0,
            }
        };
        Entries { children }
    }

    /// The items of a sequence (through aliases).
    pub fn items(&self, seq: NodeId) -> Children<'_, 'a> {
        let seq = self.resolve(seq);
        if matches!(self.kind_bits(seq), K_BLOCK_SEQ | K_FLOW_SEQ) {
            self.children(seq)
        } else {
            Children {
                tree: self,
                next: 0,
                end: 0,
            }
        }
    }

    /// The entries of a mapping (through aliases): own entries first, then those
    /// merged in with `<<` (which own entries override), in order, depth first.
    ///
    /// Linear in what it returns: keys go through a set, and a map merged more than
    /// once (`<<: [*a, *a]`, or chains through aliases) is read once. The walk keeps its
    /// own stack, so a long chain of merges cannot overflow the thread's.
    pub fn entries(&self, map: NodeId) -> Vec<(NodeId, NodeId)> {
        let map = self.resolve(map);
        let mut out = Vec::new();
        let own_only = self.own_entries(map).all(|(k, _)| !self.is_merge_key(k));
        if own_only {
            out.extend(self.own_entries(map));
            return out;
        }
        let mut seen_keys: std::collections::HashSet<&str, FxBuild> = Default::default();
        let mut visited: std::collections::HashSet<NodeId, FxBuild> = Default::default();
        let mut todo = vec![map];
        while let Some(m) = todo.pop() {
            if !visited.insert(m) {
                continue;
            }
            if !matches!(self.kind_bits(m), K_BLOCK_MAP | K_FLOW_MAP) {
                continue;
            }
            let mut merges = Vec::new();
            for (k, v) in self.own_entries(m) {
                if self.is_merge_key(k) {
                    merges.push(v);
                } else {
                    match self.str(k) {
                        Some(key) if !seen_keys.insert(key) => {}
                        _ => out.push((k, v)),
                    }
                }
            }
            for &v in merges.iter().rev() {
                let v = self.resolve(v);
                match self.kind_bits(v) {
                    K_BLOCK_MAP | K_FLOW_MAP => todo.push(v),
                    K_BLOCK_SEQ | K_FLOW_SEQ => {
                        let items: Vec<NodeId> = self.items(v).map(|i| self.resolve(i)).collect();
                        todo.extend(items.into_iter().rev());
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Looks a key up in a mapping (through aliases and merge keys).
    pub fn get(&self, map: NodeId, key: &str) -> Option<NodeId> {
        let map = self.resolve(map);
        let mut has_merge = false;
        for (k, v) in self.own_entries(map) {
            // Most keys are plain or quoted, untagged and unescaped: their text (inside any
            // quotes) is their value, so they are compared where they lie (this runs for
            // every key of every lookup).
            let n = self.node(k);
            let (start, end) = (n.start as usize, n.end as usize);
            match n.info & (KIND_MASK | HAS_PROPS | DECODED) {
                K_PLAIN => {
                    let text = self.src.get(start..end).unwrap_or("");
                    if text == key {
                        return Some(v);
                    }
                    has_merge |= text == "<<";
                    continue;
                }
                // JSON's keys: quoted, and never a merge key.
                K_SINGLE | K_DOUBLE if end >= start + 2 => {
                    if self.src.get(start + 1..end - 1) == Some(key) {
                        return Some(v);
                    }
                    continue;
                }
                _ => {}
            }
            // A merge key reads as `<<`: only such a key is looked at again.
            match self.str(k) {
                Some("<<") if self.is_merge_key(k) => has_merge = true,
                Some(s) if s == key => return Some(v),
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

    /// Whether the entry `key` of the mapping `map` is followed by nothing but separators
    /// (`:`, `[`, blanks, comments) up to `at`: where a caller cut out the text that was
    /// the entry's value, the cut was right after the key.
    pub(crate) fn only_separators_after_key(&self, map: NodeId, key: &str, at: usize) -> bool {
        let Some(key_end) = self
            .own_entries(map)
            .find(|&(k, _)| self.str(k) == Some(key))
            .map(|(k, _)| self.span(k).end())
        else {
            return false;
        };
        let Some(mut rest) = self.src.get(key_end..at) else {
            return false;
        };
        // A quoted key's span may end before its closing quote.
        rest = rest.strip_prefix(['"', '\'']).unwrap_or(rest);
        loop {
            rest = rest.trim_start_matches([' ', '\t', '\r', '\n', ':', '[']);
            match rest.strip_prefix('#') {
                Some(comment) => rest = comment.find('\n').map_or("", |i| &comment[i..]),
                None => return rest.is_empty(),
            }
        }
    }

    /// 1-based line and column (in characters) of a byte offset, counting the context's
    /// line base: for messages.
    pub fn line_col(&self, pos: usize) -> (usize, usize) {
        let pos = pos.min(self.src.len());
        let starts = self
            .line_starts
            .get_or_init(|| line_starts(self.src, self.ctx.json()));
        let line = starts.partition_point(|&s| s as usize <= pos);
        let start = starts[line - 1] as usize;
        let col = self.src[start..pos]
            .chars()
            .filter(|&c| c != '\u{feff}' || start > 0)
            .count()
            + 1;
        (line + self.ctx.line_base(), col)
    }

    /// The value of a node with aliases and merge keys followed: for tests and
    /// differential checks (bounded by the alias expansion limit the tree passed).
    pub fn data(&self, id: NodeId) -> Data {
        let id = self.resolve(id);
        match self.kind(id) {
            Kind::Scalar(style) => Data::Scalar {
                value: self.scalar_value(id).unwrap_or("").to_string(),
                style,
                tag: self.tag(id).map(str::to_string),
            },
            Kind::Seq { .. } => Data::Seq(self.items(id).map(|i| self.data(i)).collect()),
            Kind::Map { .. } => Data::Map(
                self.entries(id)
                    .into_iter()
                    .map(|(k, v)| (self.data(k), self.data(v)))
                    .collect(),
            ),
            Kind::Alias => unreachable!("resolved"),
        }
    }
}

/// `tag` (as written) names `tag:yaml.org,2002:<name>`.
fn is_core_tag(tag: &str, name: &str) -> bool {
    tag.strip_prefix("!!") == Some(name)
        || tag
            .strip_prefix("!<tag:yaml.org,2002:")
            .and_then(|t| t.strip_suffix('>'))
            == Some(name)
}

/// A node's value with aliases and merges followed ([`Tree::data`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Data {
    /// A scalar's value, how it is written, and its tag as written.
    Scalar {
        /// The decoded value.
        value: String,
        /// How it is written.
        style: Style,
        /// Its tag as written (`!!str`), if any.
        tag: Option<String>,
    },
    /// A sequence's items.
    Seq(Vec<Data>),
    /// A mapping's entries, merged ones included ([`Tree::entries`]).
    Map(Vec<(Data, Data)>),
}

/// One line, JSON-like: a scalar as a quoted string after its tag, if any
/// (`!!int "1"`), `[a, b]`, `{k: v}`. For tests and the `dump` example.
impl std::fmt::Display for Data {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Data::Scalar { value, tag, .. } => {
                if let Some(t) = tag {
                    write!(f, "{t} ")?;
                }
                write!(f, "{value:?}")
            }
            Data::Seq(items) => {
                f.write_str("[")?;
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str("]")
            }
            Data::Map(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// The children of a collection, in order.
#[derive(Clone)]
pub struct Children<'t, 'a> {
    tree: &'t Tree<'a>,
    next: u32,
    end: u32,
}

impl Iterator for Children<'_, '_> {
    type Item = NodeId;

    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        if self.next >= self.end {
            return None;
        }
        let id = NodeId(self.next);
        self.next = self.tree.subtree_end(id);
        Some(id)
    }
}

/// A mapping's own entries, as written.
#[derive(Clone)]
pub struct Entries<'t, 'a> {
    children: Children<'t, 'a>,
}

impl Iterator for Entries<'_, '_> {
    type Item = (NodeId, NodeId);

    #[inline]
    fn next(&mut self) -> Option<(NodeId, NodeId)> {
        let k = self.children.next()?;
        let v = self.children.next()?;
        Some((k, v))
    }
}

/// Where each line starts. Lines in messages are counted by line feeds, as editors and
/// `wc -l` count them (go-yaml counts NEL, LS and PS too, which editors show on one
/// line), so that a message's line is the same whether a text is read whole or in parts.
fn line_starts(src: &str, _json: bool) -> Vec<u32> {
    std::iter::once(0)
        .chain(src.match_indices('\n').map(|(i, _)| i as u32 + 1))
        .collect()
}

/// 1-based line and column (in characters) of `pos`, without a line base: see
/// [`line_starts`].
pub(crate) fn line_col_of(src: &str, _json: bool, pos: usize) -> (usize, usize) {
    let pos = pos.min(src.len());
    let before = &src.as_bytes()[..pos];
    let line = before.iter().filter(|&&c| c == b'\n').count() + 1;
    let start = before
        .iter()
        .rposition(|&c| c == b'\n')
        .map_or(0, |i| i + 1);
    let col = src.get(start..pos).map_or(0, |s| {
        s.chars().filter(|&c| c != '\u{feff}' || start > 0).count()
    });
    (line, col + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(src: &str) -> Tree<'_> {
        Tree::parse(src, Context::of(src)).unwrap()
    }

    fn text<'a>(t: &Tree<'a>, id: NodeId) -> &'a str {
        let s = t.span(id);
        &t.src()[s.start()..s.end()]
    }

    #[test]
    fn spans_are_exact_by_construction() {
        let src = "a: &x !t 'v' # c\nb:\n  - [1, 2]   # c\n  -   k: |\n        x\n\n      j: \"q\"  \nc: {k: v}  \nd:\ne:\n  ? q\n";
        let t = parse(src);
        let root = t.documents()[0].root();
        let get = |k: &str| t.get(root, k).unwrap();
        assert_eq!(text(&t, get("a")), "&x !t 'v'");
        assert_eq!(
            &src[t.content_start(get("a"))..t.span(get("a")).end()],
            "'v'"
        );
        assert_eq!(t.anchor(get("a")), Some("x"));
        assert_eq!(t.tag(get("a")), Some("!t"));
        assert_eq!(src.as_bytes()[t.lead(get("a")).unwrap()], b':');
        let b = get("b");
        assert_eq!(
            text(&t, b),
            "- [1, 2]   # c\n  -   k: |\n        x\n\n      j: \"q\""
        );
        let items: Vec<NodeId> = t.items(b).collect();
        assert_eq!(text(&t, items[0]), "[1, 2]");
        assert_eq!(src.as_bytes()[t.lead(items[1]).unwrap()], b'-');
        assert_eq!(text(&t, items[1]), "k: |\n        x\n\n      j: \"q\"");
        let k = t.get(items[1], "k").unwrap();
        assert_eq!(text(&t, k), "|\n        x");
        assert_eq!(t.str(k), Some("x\n"));
        assert_eq!(text(&t, get("c")), "{k: v}");
        // An empty value sits right after its ':'.
        let d = get("d");
        assert_eq!(t.span(d).start(), t.lead(d).unwrap() + 1);
        assert!(t.is_null(d));
        // An explicit key's '?' is its lead; the value is empty, after the key.
        let e = get("e");
        assert!(t.is_map(e));
        let (q, v) = t.own_entries(e).next().unwrap();
        assert_eq!(src.as_bytes()[t.lead(q).unwrap()], b'?');
        assert_eq!(t.span(v).start(), t.span(q).end());
        assert_eq!(t.documents()[0].content_end(), src.len());
    }

    #[test]
    fn a_block_collection_starts_at_its_first_indicator_or_property() {
        let src = "a: &m\n  ? k\n  : v\nb:\n- x\nc: !t\n  - y\n";
        let t = parse(src);
        let root = t.documents()[0].root();
        let a = t.get(root, "a").unwrap();
        assert_eq!(text(&t, a), "&m\n  ? k\n  : v");
        assert_eq!(&src[t.content_start(a)..t.content_start(a) + 3], "? k");
        assert_eq!(text(&t, t.get(root, "b").unwrap()), "- x");
        let c = t.get(root, "c").unwrap();
        assert_eq!(&src[t.content_start(c)..t.span(c).end()], "- y");
    }

    #[test]
    fn nodes_are_twelve_bytes() {
        assert_eq!(std::mem::size_of::<Node>(), 12);
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

    /// `m1: {<<: [*m0 x 9]}`, ... `m15`: each level would read its merges nine times.
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
        let n = within(10, move || {
            // The expansion limit refuses this document (as go-yaml would); the merge
            // walk itself must still be linear, so measure it without the limit.
            let t = Tree::parse_unlimited(&src);
            let top = t.get(t.documents()[0].root(), "top").unwrap();
            (t.entries(top).len(), t.get(top, "k0").is_some())
        });
        assert_eq!(n, (17, true));
    }

    #[test]
    fn get_finds_a_key_however_it_is_written() {
        // Plain keys are compared where they lie; every other spelling through its value.
        let t = parse(
            "plain: 1\n'single': 2\n\"dou\\x62le\": 3\n!!str tagged: 4\n&k anchored: 5\n? |\n  block\n: 6\n\"<<\": 7\nm: {<<: {x: 8}}\nt: {!!merge <<: {y: 9}}\nq: {\"<<\": {z: 10}}\n?\n: 11\n",
        );
        let root = t.documents()[0].root();
        let value = |map: NodeId, k: &str| t.get(map, k).and_then(|v| t.str(v));
        assert_eq!(value(root, "plain"), Some("1"));
        assert_eq!(value(root, "single"), Some("2"));
        assert_eq!(value(root, "double"), Some("3"));
        assert_eq!(value(root, "tagged"), Some("4"));
        assert_eq!(value(root, "anchored"), Some("5"));
        assert_eq!(value(root, "block\n"), Some("6"));
        assert_eq!(value(root, "<<"), Some("7"), "a quoted << is a plain key");
        assert_eq!(value(root, ""), Some("11"), "an empty plain key");
        assert_eq!(value(root, "plai"), None);
        assert_eq!(value(root, "plainer"), None);
        for (map, key, want) in [
            ("m", "x", Some("8")),
            ("t", "y", Some("9")),
            ("q", "z", None),
        ] {
            let map = t.get(root, map).unwrap();
            assert_eq!(value(map, key), want, "{key}");
        }
    }

    #[test]
    fn merge_order_own_keys_first_then_merges_in_order() {
        let t = parse("a: &a {x: 1, y: 1}\nb: &b {y: 2, z: 2}\nc: {<<: [*a, *b], x: 3}\n");
        let c = t.get(t.documents()[0].root(), "c").unwrap();
        let got: Vec<(&str, &str)> = t
            .entries(c)
            .iter()
            .map(|&(k, v)| (t.str(k).unwrap(), t.str(v).unwrap()))
            .collect();
        assert_eq!(got, [("x", "3"), ("y", "1"), ("z", "2")]);
    }

    #[test]
    fn a_mapping_with_many_keys_is_read_in_linear_time() {
        let mut src = String::from("data: &d\n");
        for i in 0..200_000 {
            src.push_str(&format!("  k{i}: v\n"));
        }
        src.push_str("merged: {<<: *d}\n");
        let n = within(60, move || {
            let t = Tree::parse(&src, Context::of(&src)).unwrap();
            let merged = t.get(t.documents()[0].root(), "merged").unwrap();
            t.entries(merged).len()
        });
        assert_eq!(n, 200_000);
    }

    #[test]
    fn alias_fan_out_is_refused_naming_the_limit() {
        let refs = |name: &str, n: usize| vec![format!("*{name}"); n].join(", ");
        let src = format!(
            "e: &e {{configMapRef: {{name: c}}}}\nc: &c {{name: a, envFrom: [{}]}}\ncontainers: [{}]\n",
            refs("e", 2000),
            refs("c", 2000)
        );
        let err = Tree::parse(&src, Context::of(&src)).unwrap_err();
        assert_eq!(err.limit(), Some(Limit::AliasExpansion));
        // Where: the collection that passed the limit, from its start.
        assert_eq!((err.line(), err.column()), (3, 13), "{err}");
        let ok = format!(
            "e: &e {{configMapRef: {{name: c}}}}\nl: [{}]\n",
            refs("e", 50)
        );
        assert!(Tree::parse(&ok, Context::of(&ok)).is_ok());
    }

    #[test]
    fn nesting_deeper_than_the_limit_is_refused_naming_it() {
        let deep = |n: usize| format!("{}x\n", "- ".repeat(n));
        assert!(Tree::parse(&deep(MAX_DEPTH), Context::of("")).is_ok());
        let err = Tree::parse(&deep(MAX_DEPTH + 1), Context::of("")).unwrap_err();
        assert_eq!(err.limit(), Some(Limit::Nesting));
        assert_eq!((err.line(), err.column()), (1, 2 * MAX_DEPTH + 1));
        let flow = format!("{}{}", "[".repeat(MAX_DEPTH + 1), "]".repeat(MAX_DEPTH + 1));
        assert_eq!(
            Tree::parse(&flow, Context::of("")).unwrap_err().limit(),
            Some(Limit::Nesting)
        );
    }

    #[test]
    fn a_duplicate_key_is_never_quoted_in_the_message() {
        let err = Tree::parse("stringData: {hunter2, hunter2}\n", Context::of("")).unwrap_err();
        assert_eq!(err.kind(), ErrorKind::DuplicateKey);
        assert!(!err.to_string().contains("hunter2"), "{err}");
        let many: String = (0..40).map(|i| format!("k{i}: v\n")).collect::<String>() + "k7: w\n";
        assert_eq!(
            Tree::parse(&many, Context::of("")).unwrap_err().kind(),
            ErrorKind::DuplicateKey
        );
    }

    #[test]
    fn null_and_true_are_typed_as_go_yaml_types_them() {
        let t = parse("a:\nb: ~\nc: 'null'\nd: !!null x\ne: True\nf: yes\ng: !!str true\n");
        let root = t.documents()[0].root();
        let get = |k: &str| t.get(root, k).unwrap();
        assert!(t.is_null(get("a")) && t.is_null(get("b")) && t.is_null(get("d")));
        assert!(!t.is_null(get("c")));
        assert!(t.is_true(get("e")) && !t.is_true(get("f")) && !t.is_true(get("g")));
    }

    #[test]
    fn a_dense_flow_list_holds_twelve_bytes_a_node() {
        let src = format!("[{}a]", "a,".repeat(100_000));
        let t = parse(&src);
        assert_eq!(t.items(t.documents()[0].root()).count(), 100_001);
        assert!(t.decoded.is_empty() && t.props.is_empty() && t.leads.is_empty());
        assert_eq!(t.colls.len(), 1);
    }
}
