//! The editor: structural edits (set, insert, remove an entry or item; rewrite an
//! entry; drop whole lines) expressed as splices that match the style of the
//! surrounding text (block or flow, indentation, line endings), and the layout
//! detection they follow. Every offset it computes comes from the tree's exact spans;
//! nothing outside this crate does arithmetic on them.

use crate::breaks::UNICODE_BREAKS;
use crate::piece::Cut;
use crate::scalar::{double_quoted, key as key_text};
use crate::scan::Style;
use crate::splice::Splices;
use crate::tree::{Kind, NodeId, Tree};

/// A value the function writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewValue {
    /// A string, double-quoted: every reader sees a string.
    Str(String),
    /// A plain scalar written as is (`true`, a number): not a string.
    Raw(String),
    /// A string written plain in block style when every reader sees a string (a name),
    /// double-quoted otherwise and in flow (JSON) style.
    Plain(String),
    /// A mapping of these entries, in order.
    Map(Vec<(String, NewValue)>),
    /// A sequence of these items.
    Seq(Vec<NewValue>),
}

impl NewValue {
    /// Nests `leaf` under the keys of `path`: `[a, b]` gives `{a: {b: leaf}}`.
    pub fn nested(path: &[&str], leaf: NewValue) -> NewValue {
        path.iter().rev().fold(leaf, |inner, k| {
            NewValue::Map(vec![((*k).to_string(), inner)])
        })
    }
}

/// Why an edit could not be made; the position is a byte offset for messages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// The place to edit is reached through a YAML alias; editing it would change
    /// every other use of the anchor.
    ThroughAlias {
        /// Where the alias is.
        pos: usize,
    },
    /// A field on the path is not a mapping (or sequence) as Kubernetes requires.
    WrongType {
        /// Where the field's value is.
        pos: usize,
        /// The field's key.
        field: String,
        /// What it should be ("a mapping", "a list", "a string").
        expected: &'static str,
    },
    /// A layout the splicer does not handle (for example a comment between `-` and an item).
    Layout {
        /// Where the layout is.
        pos: usize,
        /// What the layout is, for the message.
        what: &'static str,
    },
}

/// The crate's own words, with the byte offset; a program that edits through the crate
/// words the error for its users (config-hash says what to do in the manifest).
impl std::fmt::Display for EditError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EditError::ThroughAlias { pos } => write!(
                f,
                "byte {pos}: the place to edit is reached through an alias, and editing it would change every use of the anchor"
            ),
            EditError::WrongType {
                pos,
                field,
                expected,
            } => write!(f, "byte {pos}: {field} must be {expected}"),
            EditError::Layout { pos, what } => {
                write!(f, "byte {pos}: a layout not edited losslessly ({what})")
            }
        }
    }
}

impl std::error::Error for EditError {}

impl EditError {
    /// Where the edit failed, as a byte offset.
    pub fn pos(&self) -> usize {
        match self {
            EditError::ThroughAlias { pos }
            | EditError::WrongType { pos, .. }
            | EditError::Layout { pos, .. } => *pos,
        }
    }
}

/// Text conventions of the document being edited.
#[derive(Debug, Clone, Copy)]
pub struct Layout {
    eol: &'static str,
    /// Columns between a key and the `-` of its block sequence (0 or 2, usually).
    seq_indent: usize,
    /// Columns from a `-` to its item's content (2, or 4 in `-   name:` style).
    item_gap: usize,
    /// Columns from a key to the entries of the block mapping under it.
    indent: usize,
    /// The document is JSON: everything written is JSON too.
    json: bool,
}

impl Layout {
    /// The conventions of a whole text.
    pub fn detect(src: &str) -> Layout {
        Layout::of_context(crate::context::Context::of(src))
    }

    fn of_context(ctx: crate::context::Context) -> Layout {
        Layout {
            eol: ctx.eol(),
            seq_indent: 0,
            item_gap: 2,
            indent: 2,
            json: ctx.json(),
        }
    }

    /// Conventions of one item's text: its line ending, and the mapping indentation of
    /// its first block mapping nested under a key. Per item, because an orchestrator
    /// gathers items from files that each have their own style.
    pub fn for_item(tree: &Tree<'_>, item: NodeId) -> Layout {
        let mut layout = Layout::of_context(tree.context());
        layout.eol = eol_at(tree.src(), tree.span(item).start(), layout.eol);
        // JSON when the item itself is written as JSON (a flow mapping whose first key
        // is double-quoted), not merely when the text starts with `{`: a `{a: 1}`
        // document is YAML, and the answer must not depend on whether the text is the
        // whole input or the item alone.
        if let Some((first, _)) = tree.own_entries(item).next() {
            layout.json = tree.is_flow(item) && tree.style(first) == Some(Style::DoubleQuoted);
        }
        if let Some(indent) = first_indent(tree, item, 0) {
            layout.indent = indent;
        }
        layout
    }
}

impl Layout {
    /// These conventions, with new block sequences laid out as the block sequence `seq`
    /// under key `key` is: its dashes as far from the key, its items as far from their
    /// dash (when on the dash's line).
    pub fn following_sequence(mut self, tree: &Tree<'_>, key: NodeId, seq: NodeId) -> Layout {
        let src = tree.src();
        let Some(first) = tree.items(seq).next() else {
            return self;
        };
        let key_col = column(src, tree.span(key).start());
        let start = node(tree, first).span.start();
        if let Some(dash) = dash_before(src, start) {
            let dash_col = column(src, dash);
            self.seq_indent = dash_col.saturating_sub(key_col);
            if !src[dash..start].contains('\n') {
                self.item_gap = column(src, start).saturating_sub(dash_col).max(2);
            }
        }
        self
    }
}

/// Columns between a key and the entries of the first block mapping under it, depth-first.
fn first_indent(tree: &Tree<'_>, node: NodeId, depth: usize) -> Option<usize> {
    if depth > 64 {
        return None;
    }
    let src = tree.src();
    match tree.kind(node) {
        Kind::Map { flow: false } => tree.own_entries(node).find_map(|(k, v)| {
            if let (Some((first, _)), false) = (tree.own_entries(v).next(), tree.is_flow(v)) {
                let (ks, fs) = (tree.span(k).start(), tree.entry_start(first));
                let (kc, fc) = (column(src, ks), column(src, fs));
                if fc > kc && src[ks..fs].contains('\n') {
                    return Some(fc - kc);
                }
            }
            first_indent(tree, v, depth + 1)
        }),
        Kind::Seq { flow: false } => tree
            .items(node)
            .find_map(|i| first_indent(tree, i, depth + 1)),
        _ => None,
    }
}

/// The line ending of the line holding `pos` (or of the last line, at the end).
pub fn eol_at(src: &str, pos: usize, default: &'static str) -> &'static str {
    let end = line_end(src, pos);
    match src.as_bytes().get(end) {
        Some(b'\r') => "\r\n",
        Some(_) => "\n",
        None => match src[..end].rfind('\n') {
            Some(i) if i > 0 && src.as_bytes()[i - 1] == b'\r' => "\r\n",
            Some(_) => "\n",
            None => default,
        },
    }
}

/// Text that defines an anchor cannot go: aliases elsewhere would name nothing.
pub fn anchored(pos: usize) -> EditError {
    EditError::Layout {
        pos,
        what: "the value carries an anchor (&name) that aliases may use",
    }
}

/// An editor over one tree, writing into one set of splices.
pub struct Editor<'t, 'a> {
    tree: &'t Tree<'a>,
    layout: Layout,
    splices: Splices,
}

impl<'t, 'a> Editor<'t, 'a> {
    /// An editor of `tree` that writes in the conventions of `layout`.
    pub fn new(tree: &'t Tree<'a>, layout: Layout) -> Self {
        Editor {
            tree,
            layout,
            splices: Splices::new(),
        }
    }

    /// The tree the edits are made against.
    pub fn tree(&self) -> &'t Tree<'a> {
        self.tree
    }

    /// The edits made, to apply to the tree's text.
    pub fn into_splices(self) -> Splices {
        self.splices
    }

    /// Writes the string `new` over the scalar `id`, in a quoting style that keeps the
    /// document valid (JSON stays double-quoted) and keeps the name a string for every
    /// reader. Any `&anchor` (and tag) stays: its aliases name the same object, renamed
    /// with it.
    pub fn replace_name(&mut self, id: NodeId, new: &str) {
        let tree = self.tree;
        let n = node(tree, id);
        let (text, end) = match &n.kind {
            NodeKind::Scalar {
                style: Style::SingleQuoted,
                ..
            } if !new.contains('\'') => (format!("'{new}'"), n.span.end()),
            NodeKind::Scalar {
                style: Style::Plain,
                ..
            } if crate::scalar::plain_is_safe(new) => (new.to_string(), n.span.end()),
            // A block scalar's span runs to the next token, over its last line break and
            // any blank lines, which stay. Without properties it starts at its text (after
            // the `|-` or `>-` line: a name has no line break), which becomes the new name
            // as it is; with an `&anchor` or tag it starts at them, and the indicator goes
            // too.
            NodeKind::Scalar {
                style: Style::Literal | Style::Folded,
                ..
            } => {
                let start = n.span.start();
                let end = start + tree.src()[start..n.span.end()].trim_end().len();
                let as_text = edit_content_start(tree, id) == start && !new.contains(['\n', '\r']);
                let text = if as_text || crate::scalar::plain_is_safe(new) {
                    new.to_string()
                } else {
                    double_quoted(new)
                };
                (text, end)
            }
            _ => (double_quoted(new), n.span.end()),
        };
        self.splices
            .replace(edit_content_start(tree, id), end, text);
    }

    fn src(&self) -> &'a str {
        self.tree.src()
    }

    fn own_get(&self, map: NodeId, key: &str) -> Option<(NodeId, NodeId)> {
        self.tree
            .own_entries(map)
            .find(|&(k, _)| self.tree.str(k) == Some(key))
    }

    fn check_not_alias(&self, id: NodeId) -> Result<(), EditError> {
        if self.tree.is_alias(id) {
            Err(EditError::ThroughAlias {
                pos: node(self.tree, id).span.start(),
            })
        } else {
            Ok(())
        }
    }

    /// Sets `path.../key` under `map` to the string `value`, creating missing mappings.
    pub fn set_string(
        &mut self,
        map: NodeId,
        path: &[&str],
        key: &str,
        value: &str,
    ) -> Result<(), EditError> {
        let mut full: Vec<&str> = path.to_vec();
        full.push(key);
        self.set_value(map, &full, NewValue::Str(value.to_string()))
    }

    /// Sets the value at `path` (at least one key) under `map`. An existing scalar equal
    /// to a string `value` is left as written, whatever its quoting.
    pub fn set_value(
        &mut self,
        map: NodeId,
        path: &[&str],
        value: NewValue,
    ) -> Result<(), EditError> {
        let mut cur = map;
        self.check_not_alias(cur)?;
        for (i, seg) in path.iter().enumerate() {
            let last = i + 1 == path.len();
            let Some((k, v)) = self.own_get(cur, seg) else {
                let rest = NewValue::nested(&path[i + 1..], value);
                self.insert_entry(cur, seg, &rest)?;
                return Ok(());
            };
            if last
                && self.tree.is_alias(v)
                && !matches!(value, NewValue::Map(_) | NewValue::Seq(_))
            {
                // `key: *old`: writing over the alias leaves the anchor and its other uses
                // alone.
                let span = node(self.tree, v).span;
                self.splices
                    .replace(span.start(), span.end(), self.scalar_text_of(&value));
                return Ok(());
            }
            self.check_not_alias(v)?;
            if last {
                match &value {
                    NewValue::Str(want) if self.reads_as_string(v, want) => {
                        return Ok(());
                    }
                    NewValue::Raw(want) if matches!(&node(self.tree, v).kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value == want) =>
                    {
                        return Ok(());
                    }
                    _ => {}
                }
                if self.tree.is_null(v) || self.scalar_text(v).is_some() {
                    self.replace_scalar(cur, k, v, &value)?;
                    return Ok(());
                }
                return Err(EditError::WrongType {
                    pos: node(self.tree, v).span.start(),
                    field: (*seg).to_string(),
                    expected: "a string",
                });
            }
            if self.tree.is_null(v) {
                let rest = NewValue::nested(&path[i + 1..], value);
                self.replace_scalar(cur, k, v, &rest)?;
                return Ok(());
            }
            if !self.tree.is_map(v) {
                return Err(EditError::WrongType {
                    pos: node(self.tree, v).span.start(),
                    field: (*seg).to_string(),
                    expected: "a mapping",
                });
            }
            cur = v;
        }
        Ok(())
    }

    /// True when scalar `v` is `want` for every YAML reader: quoted, a block scalar,
    /// or plain text that no reader takes for a bool, null or number.
    fn reads_as_string(&self, v: NodeId, want: &str) -> bool {
        match &node(self.tree, v).kind {
            NodeKind::Scalar { value, style, .. } if *value == want => {
                *style != Style::Plain || crate::scalar::plain_reads_as_string(value)
            }
            _ => false,
        }
    }

    /// Whether to write JSON into the flow collection `id`: in a JSON document, or where
    /// its keys (or its first map item's keys) are already double-quoted.
    fn json_style(&self, id: NodeId) -> bool {
        let first_key = match &node(self.tree, id).kind {
            NodeKind::Map { .. } => own_entries(self.tree, id).first().map(|e| e.0),
            NodeKind::Seq { .. } => items(self.tree, id)
                .first()
                .and_then(|&i| own_entries(self.tree, i).first().map(|e| e.0)),
            _ => None,
        };
        let quoted = |k: NodeId| {
            matches!(
                node(self.tree, k).kind,
                NodeKind::Scalar {
                    style: Style::DoubleQuoted,
                    ..
                }
            )
        };
        // An empty collection follows the key it is the value of: `"metadata": {}`.
        let after_quoted_key = || {
            let before = self.src()[..node(self.tree, id).span.start()].trim_end();
            before
                .strip_suffix(':')
                .is_some_and(|b| b.trim_end().ends_with('"'))
        };
        self.layout.json
            || match first_key {
                Some(k) => quoted(k),
                None => after_quoted_key(),
            }
    }

    /// How a scalar value is written in place of another scalar.
    fn scalar_text_of(&self, value: &NewValue) -> String {
        match value {
            NewValue::Str(s) => double_quoted(s),
            NewValue::Raw(s) => s.clone(),
            NewValue::Plain(s) => key_text(s).into_owned(),
            NewValue::Map(_) | NewValue::Seq(_) => flow_value(value, true),
        }
    }

    fn scalar_text(&self, id: NodeId) -> Option<&str> {
        match &node(self.tree, id).kind {
            NodeKind::Scalar { value, .. } => Some(value),
            _ => None,
        }
    }

    /// Removes `path.../key` under `map` if present. Only single-line scalar entries are
    /// removed (the function only ever removes what it wrote).
    pub fn remove(&mut self, map: NodeId, path: &[&str], key: &str) -> Result<(), EditError> {
        self.remove_keys(map, path, &[key])
    }

    /// Removes every key of `keys` present under `path...` in `map`, at once: neighbours
    /// in a flow mapping share the separators between them.
    pub fn remove_keys(
        &mut self,
        map: NodeId,
        path: &[&str],
        keys: &[&str],
    ) -> Result<(), EditError> {
        let mut cur = map;
        for seg in path {
            match self.own_get(cur, seg) {
                Some((_, v)) if self.tree.is_map(v) && !self.tree.is_alias(v) => cur = v,
                _ => return Ok(()),
            }
        }
        let entries = own_entries(self.tree, cur);
        let idxs: Vec<usize> = entries
            .iter()
            .enumerate()
            .filter(|&(_, &(k, _))| self.tree.str(k).is_some_and(|k| keys.contains(&k)))
            .map(|(i, _)| i)
            .collect();
        if idxs.is_empty() {
            return Ok(());
        }
        let src = self.src();
        for &idx in &idxs {
            let (k, v) = entries[idx];
            if self.tree.subtree_has_anchor(k) || self.tree.subtree_has_anchor(v) {
                return Err(anchored(node(self.tree, k).span.start()));
            }
        }
        if self.tree.is_flow(cur) {
            for (start, end) in flow_removals(self.tree, cur, &entries, &idxs) {
                self.splices.delete(start, end);
            }
            return Ok(());
        }
        for idx in idxs {
            let (k, v) = entries[idx];
            if !self.removable_entry(k, v) {
                return Err(EditError::Layout {
                    pos: node(self.tree, k).span.start(),
                    what: "only single-line entries can be removed",
                });
            }
            let ks = node(self.tree, k).span.start();
            let ls = line_start(src, ks);
            if !src[ls..ks].bytes().all(|b| b == b' ') {
                return Err(EditError::Layout {
                    pos: ks,
                    what: "the entry shares its line with other content",
                });
            }
            let le = line_end(src, node(self.tree, v).span.end());
            self.splices.delete(ls, after_eol(src, le));
        }
        Ok(())
    }

    fn removable_entry(&self, k: NodeId, v: NodeId) -> bool {
        let (kn, vn) = (node(self.tree, k), node(self.tree, v));
        let flow_scalar = |id: NodeId| {
            matches!(
                &node(self.tree, id).kind,
                NodeKind::Scalar { style, .. }
                    if !matches!(style, Style::Literal | Style::Folded)
            )
        };
        let nonempty = !matches!(&vn.kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value.is_empty());
        flow_scalar(k)
            && (flow_scalar(v) || matches!(vn.kind, NodeKind::Alias))
            && nonempty
            && vn.span.end() > kn.span.start()
    }

    /// True for `key: scalar` written on one line (the value not a block scalar).
    fn single_line_entry(&self, k: NodeId, v: NodeId) -> bool {
        let (kn, vn) = (node(self.tree, k), node(self.tree, v));
        let inline = |id: NodeId| {
            matches!(
                &node(self.tree, id).kind,
                NodeKind::Scalar { style, .. }
                    if !matches!(style, Style::Literal | Style::Folded)
            )
        };
        let nonempty = !matches!(&vn.kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value.is_empty());
        inline(k)
            && inline(v)
            && nonempty
            && vn.span.end() > kn.span.start()
            && !self.src()[kn.span.start()..vn.span.end()].contains('\n')
    }

    /// Replaces the scalar value `v` of entry `k` in `map` with `value`.
    fn replace_scalar(
        &mut self,
        map: NodeId,
        k: NodeId,
        v: NodeId,
        value: &NewValue,
    ) -> Result<(), EditError> {
        let src = self.src();
        let vn = node(self.tree, v);
        if matches!(
            vn.kind,
            NodeKind::Scalar {
                style: Style::Literal | Style::Folded,
                ..
            }
        ) {
            // saphyr's span of a block scalar leaves out its `|`/`>` line (all of it
            // when the scalar is empty): writing over the span would keep the indicator
            // before the new value.
            return Err(EditError::Layout {
                pos: node(self.tree, k).span.start(),
                what: "the value is a block scalar (| or >); write it on one line",
            });
        }
        let empty = vn.span.end() <= vn.span.start()
            || matches!(&vn.kind, NodeKind::Scalar { value, style: Style::Plain, .. } if value.is_empty());
        if self.tree.has_anchor(v) {
            // Writing over `key: &a old` would drop the anchor its aliases name (broken
            // YAML) or, keeping it, change every `*a` too; so would filling `key: &a`,
            // and when the anchor is on a line of its own, lines inserted after the key
            // would come before it (broken YAML).
            return Err(EditError::Layout {
                pos: vn.span.start(),
                what: "the value carries an anchor (&name) that aliases may use",
            });
        }
        if self.tree.is_flow(map) {
            if empty {
                let colon = self.tree.lead(v).ok_or(EditError::Layout {
                    pos: vn.span.start(),
                    what: "no ':' after the key",
                })?;
                self.splices.insert(
                    colon + 1,
                    format!(" {}", flow_value(value, self.json_style(map))),
                );
            } else {
                self.splices.replace(
                    vn.span.start(),
                    vn.span.end(),
                    flow_value(value, self.json_style(map)),
                );
            }
            return Ok(());
        }
        match (value, empty) {
            (NewValue::Str(s), false) => {
                self.splices
                    .replace(vn.span.start(), vn.span.end(), double_quoted(s));
                return Ok(());
            }
            (NewValue::Raw(s), false) => {
                self.splices
                    .replace(vn.span.start(), vn.span.end(), s.clone());
                return Ok(());
            }
            (NewValue::Plain(s), false) => {
                self.splices
                    .replace(vn.span.start(), vn.span.end(), &*key_text(s));
                return Ok(());
            }
            _ => {}
        }
        let colon = self.tree.lead(v).ok_or(EditError::Layout {
            pos: vn.span.start(),
            what: "no ':' after the key",
        })?;
        let col = column(src, node(self.tree, k).span.start());
        let end = if empty { colon + 1 } else { vn.span.end() };
        self.layout.eol = eol_at(src, end, self.layout.eol);
        let text = self.block_value(value, col);
        if matches!(value, NewValue::Map(_) | NewValue::Seq(_)) {
            // Nested lines go after any comment that followed the null.
            self.splices.delete(colon + 1, end);
            self.splices.insert(line_end(src, end), text);
        } else {
            self.splices.replace(colon + 1, end, text);
        }
        Ok(())
    }

    /// Adds `key: value` to a mapping that does not have `key`.
    pub fn insert_entry(
        &mut self,
        map: NodeId,
        key: &str,
        value: &NewValue,
    ) -> Result<(), EditError> {
        let src = self.src();
        let entries = own_entries(self.tree, map);
        let this = node(self.tree, map);
        if !matches!(this.kind, NodeKind::Map { .. }) {
            return Err(EditError::WrongType {
                pos: this.span.start(),
                field: key.to_string(),
                expected: "a mapping",
            });
        }
        if self.tree.is_flow(map) {
            let entry = format!(
                "{}: {}",
                flow_key(key, self.json_style(map)),
                flow_value(value, self.json_style(map))
            );
            self.insert_flow(this.span.start(), entries.first().map(|e| e.0), entry);
            return Ok(());
        }
        let Some(&(first, _)) = entries.first() else {
            return Err(EditError::Layout {
                pos: this.span.start(),
                what: "an empty block mapping",
            });
        };
        let first_at = self.tree.entry_start(first);
        let col = column(src, first_at);
        self.layout.eol = eol_at(src, first_at, self.layout.eol);
        let entry = format!("{}:{}", key_text(key), self.block_value(value, col));
        let eol = self.layout.eol;
        // After the last one-line entry reads naturally ("appended"); a block scalar or a
        // nested collection has no reliable end, so otherwise go before the first key.
        let anchor = entries
            .iter()
            .rev()
            .find(|&&(k, v)| self.single_line_entry(k, v));
        if let Some(&(_, v)) = anchor {
            let at = line_end(src, node(self.tree, v).span.end());
            self.splices
                .insert(at, format!("{eol}{}{entry}", spaces(col)));
        } else {
            self.splices
                .insert(first_at, format!("{entry}{eol}{}", spaces(col)));
        }
        Ok(())
    }

    /// Inserts `entry` (already rendered) as the first element of a flow collection
    /// opening at `open`.
    fn insert_flow(&mut self, open: usize, first: Option<NodeId>, entry: String) {
        match first {
            None => self.splices.insert(open + 1, entry),
            Some(first) => {
                // Before the first entry: its `?` when its key is explicit.
                let at = self.tree.entry_start(first);
                let gap = &self.src()[open + 1..at];
                let sep = if gap.contains('\n') && gap.trim().is_empty() {
                    gap
                } else {
                    " "
                };
                self.splices.insert(at, format!("{entry},{sep}"));
            }
        }
    }

    /// Adds `item` as the first item of a sequence.
    pub fn insert_item(&mut self, seq: NodeId, item: &NewValue) -> Result<(), EditError> {
        let src = self.src();
        let this = node(self.tree, seq);
        let NodeKind::Seq { flow } = &this.kind else {
            return Err(EditError::WrongType {
                pos: this.span.start(),
                field: String::new(),
                expected: "a list",
            });
        };
        let items = items(self.tree, seq);
        if *flow {
            self.insert_flow(
                this.span.start(),
                items.first().copied(),
                flow_value(item, self.json_style(seq)),
            );
            return Ok(());
        }
        let Some(&first) = items.first() else {
            return Err(EditError::Layout {
                pos: this.span.start(),
                what: "an empty block sequence",
            });
        };
        let first_start = node(self.tree, first).span.start();
        let dash = self.item_dash(first)?;
        let dash_col = column(src, dash);
        self.layout.eol = eol_at(src, dash, self.layout.eol);
        let content_col = if src[dash..first_start].contains('\n') {
            dash_col + 2
        } else {
            column(src, first_start)
        };
        let text = format!(
            "-{}{}{}",
            spaces(content_col - dash_col - 1),
            self.block_item(item, content_col),
            self.layout.eol
        ) + &spaces(dash_col);
        self.splices.insert(dash, text);
        Ok(())
    }

    /// Writes the entry `k: v` of a mapping anew as `key: "value"`, in one splice over
    /// its text (comments after it stay): the key double-quoted when `k` was (a JSON
    /// document stays JSON), plain where that reads as the same string.
    pub fn rewrite_entry(&mut self, k: NodeId, v: NodeId, key: &str, value: &str) {
        let src = self.src();
        let start = self.tree.span(k).start();
        let mut end = src[..self.tree.span(v).end()].trim_end().len().max(start);
        // Comment lines at the end of a block value stay.
        while let Some(nl) = src[start..end].rfind('\n') {
            let line = src[start + nl + 1..end].trim_start();
            if !line.starts_with('#') {
                break;
            }
            end = src[..start + nl].trim_end().len().max(start);
        }
        let key = if self.tree.style(k) == Some(Style::DoubleQuoted) {
            double_quoted(key)
        } else {
            key_text(key).into_owned()
        };
        self.splices
            .replace(start, end, format!("{key}: {}", double_quoted(value)));
    }

    /// Deletes the whole lines from the one holding `from` to the one holding the end of
    /// `to` (an entry or item the function wrote, with what holds it), when `from` starts
    /// its line after spaces and no comment is among those lines. False, and nothing
    /// deleted, otherwise: the caller then removes less.
    pub fn delete_lines(&mut self, from: NodeId, to: NodeId) -> bool {
        let src = self.src();
        let from = self.tree.span(from).start();
        let to = src[..self.tree.span(to).end()].trim_end().len().max(from);
        let start = src[..from].rfind('\n').map_or(0, |i| i + 1);
        let end = src[to..].find('\n').map_or(src.len(), |i| to + i + 1);
        let indent_only = src[start..from].bytes().all(|b| b == b' ');
        if !indent_only || src[start..end].contains('#') {
            return false;
        }
        self.splices.delete(start, end);
        true
    }

    /// Removes items `idxs` (sorted, distinct) of a sequence; each must be a mapping of
    /// one-line entries, or any item of a flow sequence.
    pub fn remove_items(&mut self, seq: NodeId, idxs: &[usize]) -> Result<(), EditError> {
        let items = items(self.tree, seq);
        for &idx in idxs {
            if self.tree.subtree_has_anchor(items[idx]) {
                return Err(anchored(node(self.tree, items[idx]).span.start()));
            }
        }
        if self.tree.is_flow(seq) {
            let pairs: Vec<(NodeId, NodeId)> = items.iter().map(|&i| (i, i)).collect();
            for (start, end) in flow_removals(self.tree, seq, &pairs, idxs) {
                self.splices.delete(start, end);
            }
            return Ok(());
        }
        for &idx in idxs {
            self.remove_block_item(items[idx])?;
        }
        Ok(())
    }

    /// The `-` of a block sequence's item, when only blanks and line breaks stand
    /// between it and the item (a comment there is a layout the splicer leaves alone).
    fn item_dash(&self, item: NodeId) -> Result<usize, EditError> {
        let start = node(self.tree, item).span.start();
        self.tree
            .lead(item)
            .filter(|&dash| {
                self.src()[dash + 1..start]
                    .bytes()
                    .all(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
            })
            .ok_or(EditError::Layout {
                pos: start,
                what: "a comment between '-' and its item",
            })
    }

    /// Removes an item of a block sequence: a mapping of one-line entries.
    fn remove_block_item(&mut self, item: NodeId) -> Result<(), EditError> {
        let src = self.src();
        let start = node(self.tree, item).span.start();
        let dash = self.item_dash(item)?;
        let ls = line_start(src, dash);
        let layout_err = EditError::Layout {
            pos: start,
            what: "only one-line entries can be removed",
        };
        if !src[ls..dash].bytes().all(|b| b == b' ') {
            return Err(layout_err);
        }
        let last_end = match &node(self.tree, item).kind {
            NodeKind::Map { flow: false } => {
                let entries = own_entries(self.tree, item);
                if !entries.iter().all(|&(k, v)| self.single_line_entry(k, v)) {
                    return Err(layout_err);
                }
                entries
                    .last()
                    .map(|&(_, v)| node(self.tree, v).span.end())
                    .unwrap_or(start)
            }
            _ => return Err(layout_err),
        };
        let end = after_eol(src, line_end(src, last_end));
        self.splices.delete(ls, end);
        Ok(())
    }

    /// The text after `key:` for a value in a block mapping whose keys are at `col`.
    fn block_value(&self, value: &NewValue, col: usize) -> String {
        let eol = self.layout.eol;
        match value {
            NewValue::Str(s) => format!(" {}", double_quoted(s)),
            NewValue::Raw(s) => format!(" {s}"),
            NewValue::Plain(s) => format!(" {}", key_text(s)),
            NewValue::Map(entries) => {
                let mut out = String::new();
                let inner = col + self.layout.indent;
                for (k, v) in entries {
                    out.push_str(eol);
                    out.push_str(&spaces(inner));
                    out.push_str(&key_text(k));
                    out.push(':');
                    out.push_str(&self.block_value(v, inner));
                }
                out
            }
            NewValue::Seq(items) => {
                let dash_col = col + self.layout.seq_indent;
                let mut out = String::new();
                for item in items {
                    out.push_str(eol);
                    out.push_str(&spaces(dash_col));
                    out.push('-');
                    out.push_str(&spaces(self.layout.item_gap.max(2) - 1));
                    out.push_str(&self.block_item(item, dash_col + self.layout.item_gap.max(2)));
                }
                out
            }
        }
    }

    /// An item's text after `- `, its content at `col`.
    fn block_item(&self, item: &NewValue, col: usize) -> String {
        match item {
            NewValue::Str(s) => double_quoted(s),
            NewValue::Raw(s) => s.clone(),
            NewValue::Plain(s) => key_text(s).into_owned(),
            NewValue::Map(entries) => {
                let mut out = String::new();
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        out.push_str(self.layout.eol);
                        out.push_str(&spaces(col));
                    }
                    out.push_str(&key_text(k));
                    out.push(':');
                    out.push_str(&self.block_value(v, col));
                }
                out
            }
            NewValue::Seq(_) => flow_value(item, self.layout.json),
        }
    }
}

/// Where a node's content starts after its properties (`&anchor`, `!tag`); for a block
/// scalar without properties, at its first content line (see [`node`]).
fn edit_content_start(tree: &Tree<'_>, id: NodeId) -> usize {
    match tree.block_text_start(id) {
        Some(text) if tree.content_start(id) == tree.span(id).start() => text,
        _ => tree.content_start(id),
    }
}

/// What the text looks like just before the end of a document.
#[derive(Debug, Clone, Copy)]
pub struct TextEnd {
    /// The last line before the end has no line break yet.
    pub needs_break: bool,
    /// The line ending the text uses there.
    pub eol: &'static str,
}

impl TextEnd {
    /// How the text of the document whose root is `root` ends.
    pub fn of(tree: &Tree<'_>, root: NodeId) -> TextEnd {
        TextEnd::at(tree.src(), content_end(tree, root))
    }

    /// How `whole` looks where the document whose root is `root` ends, when `tree` was
    /// read from what `cut` left of `whole`.
    pub fn of_cut(tree: &Tree<'_>, root: NodeId, whole: &str, cut: &Cut) -> TextEnd {
        let end = content_end(tree, root);
        let end = if end >= cut.at() {
            end + cut.len()
        } else {
            end
        };
        TextEnd::at(whole, end)
    }

    fn at(src: &str, at: usize) -> TextEnd {
        TextEnd {
            needs_break: at > 0 && !src[..at].ends_with('\n'),
            eol: eol_at(src, at, Layout::detect(src).eol),
        }
    }
}

/// How the text filled in after [`Editor::fill_last_entry`]'s edits is to be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FillPlace {
    /// As a flow (JSON) value.
    Flow,
    /// As block lines, each ended by `eol`, the entry's key at `indent`.
    Block {
        /// The line ending of each line.
        eol: String,
        /// The indentation of the entry's key.
        indent: String,
    },
}

/// Where the content of the document whose root is `root` ends (the text's end when
/// `root` is no document's root).
fn content_end(tree: &Tree<'_>, root: NodeId) -> usize {
    tree.documents()
        .iter()
        .find(|d| d.root() == root)
        .map_or(tree.src().len(), |d| d.content_end())
}

impl Editor<'_, '_> {
    /// Makes room for the entry `key` of the mapping `root` (a document's root) to be
    /// filled in as the output is written: over the value of the existing entry
    /// `existing` in flow style, or else as the last entry (a block mapping's existing
    /// entry is removed first). `None` when a flow mapping has no entries to follow.
    /// `end` says how the real text ends ([`TextEnd::of`], or [`TextEnd::of_cut`] when
    /// the tree is of a rearranged copy of it).
    pub fn fill_last_entry(
        &mut self,
        root: NodeId,
        key: &str,
        existing: Option<(NodeId, NodeId)>,
        end: TextEnd,
    ) -> Option<FillPlace> {
        let content_end = content_end(self.tree, root);
        last_entry_to_fill(
            self.tree,
            root,
            key,
            existing,
            content_end,
            end,
            &mut self.splices,
        )
    }
}

/// Edits that make room for the entry `key` of the mapping `map` (a document's root,
/// whose content ends at `content_end`) to be filled in as the output is written:
/// over the value of the existing entry `existing` in flow style, or else as the last
/// entry (a block mapping's existing entry is removed first). `None` when a flow
/// mapping has no entries to follow. `end` says how the real text ends, when `tree` is
/// a rearranged copy of it.
fn last_entry_to_fill(
    tree: &Tree<'_>,
    map: NodeId,
    key: &str,
    existing: Option<(NodeId, NodeId)>,
    content_end: usize,
    end: TextEnd,
    splices: &mut Splices,
) -> Option<FillPlace> {
    let src = tree.src();
    let eol = end.eol;
    // A comment may follow a JSON key's `:` with no blank (`"items":#`: go-yaml reads it
    // so); after the text filled in there it needs one.
    let fill = |splices: &mut Splices, start: usize, end: usize, text: String| {
        splices.replace_then_fill(start, end, text);
        if src[end..].starts_with('#') {
            splices.insert(end, " ");
        }
    };
    let entries = own_entries(tree, map);
    if tree.is_flow(map) {
        if let Some((k, v)) = existing {
            match flow_value_place(tree, k, v) {
                FlowValue::Written(start, end) => fill(splices, start, end, String::new()),
                FlowValue::AfterColon(at) => fill(splices, at, at, " ".into()),
                FlowValue::NoColon(at) => fill(splices, at, at, ": ".into()),
            }
        } else if let Some(&(last_key, last)) = entries.last() {
            let first = entries[0].0;
            let open = node(tree, map).span.start();
            let gap = &src[open + 1..node(tree, first).span.start()];
            let sep = if gap.contains('\n') && gap.trim().is_empty() {
                gap.to_string()
            } else {
                " ".to_string()
            };
            let (at, value) = match flow_value_place(tree, last_key, last) {
                FlowValue::Written(start, end) => (end, src.get(start..end).unwrap_or("")),
                FlowValue::AfterColon(at) | FlowValue::NoColon(at) => (at, ""),
            };
            // A value written as a tag or an anchor alone (`"items": !`, or `"items":!`
            // right after a JSON key's colon) ends at the next blank: a comma right after
            // it would be read as part of its name. Only the value's own text is looked
            // at, as nothing separates it from the key's colon.
            let last_token = value.rsplit([' ', '\t', '\r', '\n']).next();
            let blank = if last_token.is_some_and(|t| t.starts_with(['!', '&'])) {
                " "
            } else {
                ""
            };
            fill(
                splices,
                at,
                at,
                format!("{blank},{sep}{}: ", double_quoted(key)),
            );
        } else {
            return None;
        }
        return Some(FillPlace::Flow);
    }
    // Block: remove any existing entry, then append at the end of the document.
    if let Some((k, _)) = existing {
        let idx = entries.iter().position(|&(ek, _)| ek == k).unwrap_or(0);
        let start = line_start(src, tree.entry_start(k));
        let end = match entries.get(idx + 1) {
            Some(&(next, _)) => line_start(src, tree.entry_start(next)),
            None => content_end,
        };
        splices.delete(start, end);
    }
    // The mapping's key column, read off its `kind` key (a Kubernetes object has one):
    // the first entry's key may be an explicit `?` key whose content starts elsewhere.
    let col = entries
        .iter()
        .find(|&&(k, _)| tree.str(k) == Some("kind"))
        .or(entries.first())
        .map_or(0, |&(k, _)| column(src, tree.entry_start(k)));
    if end.needs_break {
        splices.insert(content_end, eol);
    }
    splices.replace_then_fill(content_end, content_end, "");
    Some(FillPlace::Block {
        eol: eol.to_string(),
        indent: " ".repeat(col),
    })
}

/// Where the value of flow-mapping entry `k: v` is written.
enum FlowValue {
    /// Its own text, from the first to the last byte.
    Written(usize, usize),
    /// Written as nothing (`{a:}`): the place just after the `:`.
    AfterColon(usize),
    /// Written as nothing and with no `:` (`{a}`, `{? a}`): the place after the key.
    NoColon(usize),
}

/// Where the value of flow-mapping entry `k: v` is written: the tree places a value
/// written as nothing right after its `:` (its lead), or after its key when there is
/// no `:`.
fn flow_value_place(tree: &Tree<'_>, k: NodeId, v: NodeId) -> FlowValue {
    let this = node(tree, v);
    let nothing = matches!(
        this.kind,
        NodeKind::Scalar {
            value: "",
            style: Style::Plain,
            tagged: false
        }
    ) && !tree.has_anchor(v);
    if !nothing {
        return FlowValue::Written(this.span.start(), this.span.end());
    }
    match tree.lead(v) {
        Some(colon) => FlowValue::AfterColon(colon + 1),
        None => FlowValue::NoColon(node(tree, k).span.end()),
    }
}

/// A key in a flow mapping: always quoted in JSON, plain where safe in YAML.
fn flow_key(key: &str, json: bool) -> String {
    if json || key.contains([',', '[', ']', '{', '}']) {
        double_quoted(key)
    } else {
        key_text(key).into_owned()
    }
}

/// A value in flow syntax: JSON in JSON documents (`json`), YAML flow style otherwise.
pub fn flow_value(value: &NewValue, json: bool) -> String {
    match value {
        NewValue::Str(s) => double_quoted(s),
        NewValue::Plain(s) => flow_key(s, json),
        NewValue::Raw(s) => s.clone(),
        NewValue::Map(entries) => {
            let inner: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}: {}", flow_key(k, json), flow_value(v, json)))
                .collect();
            format!("{{{}}}", inner.join(", "))
        }
        NewValue::Seq(items) => {
            let inner: Vec<String> = items.iter().map(|i| flow_value(i, json)).collect();
            format!("[{}]", inner.join(", "))
        }
    }
}

/// The byte ranges to delete to remove elements `idxs` (sorted, distinct) of a flow
/// collection, given each element's first and last node (key and value, or the item
/// twice). A run of neighbours goes as one range with the separators around it, so
/// the ranges never overlap.
fn flow_removals(
    tree: &Tree<'_>,
    collection: NodeId,
    elems: &[(NodeId, NodeId)],
    idxs: &[usize],
) -> Vec<(usize, usize)> {
    if idxs.len() == elems.len() {
        // Every element: empty the brackets, leaving no stray whitespace.
        let span = node(tree, collection).span;
        return vec![(
            span.start() + 1,
            span.end().saturating_sub(1).max(span.start() + 1),
        )];
    }
    let mut out = Vec::new();
    let mut i = 0;
    while i < idxs.len() {
        let first = idxs[i];
        let mut last = first;
        while i + 1 < idxs.len() && idxs[i + 1] == last + 1 {
            i += 1;
            last = idxs[i];
        }
        i += 1;
        let start = node(tree, elems[first].0).span.start();
        let end = node(tree, elems[last].1).span.end();
        out.push(if let Some(&(next, _)) = elems.get(last + 1) {
            (start, node(tree, next).span.start())
        } else if first > 0 {
            (node(tree, elems[first - 1].1).span.end(), end)
        } else {
            (start, end)
        });
    }
    out
}

pub fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// Whether `c` ends a line as go-yaml reads YAML: LF (CRLF ends with it), and U+2028,
/// U+2029 and NEL (a lone CR is read through an LF copy before any edit).
fn is_break(c: char) -> bool {
    c == '\n' || UNICODE_BREAKS.contains(&c)
}

/// Start of the line holding `pos`.
pub fn line_start(src: &str, pos: usize) -> usize {
    let before = &src[..pos.min(src.len())];
    before
        .char_indices()
        .rev()
        .find(|&(_, c)| is_break(c))
        .map_or(0, |(i, c)| i + c.len_utf8())
}

/// End of the line holding `pos`: the offset of its line break (of the `\r` of a
/// `\r\n`), or the text's end.
pub fn line_end(src: &str, pos: usize) -> usize {
    let pos = pos.min(src.len());
    match src[pos..].find(is_break) {
        Some(i) => {
            let at = pos + i;
            if at > pos && src.as_bytes()[at] == b'\n' && src.as_bytes()[at - 1] == b'\r' {
                at - 1
            } else {
                at
            }
        }
        None => src.len(),
    }
}

/// The offset after the line break at `pos` (which `line_end` returned).
fn after_eol(src: &str, pos: usize) -> usize {
    let b = src.as_bytes();
    match b.get(pos) {
        Some(b'\r') if b.get(pos + 1) == Some(&b'\n') => pos + 2,
        Some(b'\n') => pos + 1,
        _ => match src.get(pos..).and_then(|rest| rest.chars().next()) {
            Some(c) if is_break(c) => pos + c.len_utf8(),
            _ => pos,
        },
    }
}

/// Column (in characters) of `pos` on its line.
pub fn column(src: &str, pos: usize) -> usize {
    // go-yaml (and the dialect layer) break lines at U+2028, U+2029 and NEL too.
    let line = &src[line_start(src, pos)..pos];
    // A byte-order mark before a document's first key is not indentation.
    line.chars().filter(|&c| c != '\u{feff}').count()
}

/// The `-` that introduces the block sequence item starting at `item_start`.
fn dash_before(src: &str, item_start: usize) -> Option<usize> {
    let before = src[..item_start].trim_end_matches([' ', '\t', '\r', '\n']);
    before.ends_with('-').then(|| before.len() - 1)
}

/// A node as the editor writes over it: a block scalar without properties from its
/// first content line (its header stays), anything else as [`Tree::span`] has it.
#[derive(Debug, Clone, Copy)]
struct Node<'t> {
    span: Range,
    kind: NodeKind<'t>,
}

#[derive(Debug, Clone, Copy)]
struct Range {
    start: usize,
    end: usize,
}

impl Range {
    fn start(self) -> usize {
        self.start
    }

    fn end(self) -> usize {
        self.end
    }
}

#[derive(Debug, Clone, Copy)]
enum NodeKind<'t> {
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
    Alias,
}

fn node<'t>(tree: &'t Tree<'_>, id: NodeId) -> Node<'t> {
    let span = tree.span(id);
    let kind = match tree.kind(id) {
        Kind::Scalar(style) => NodeKind::Scalar {
            value: tree.str(id).unwrap_or(""),
            style,
            tagged: tree.tag(id).is_some(),
        },
        Kind::Map { flow } => NodeKind::Map { flow },
        Kind::Seq { flow } => NodeKind::Seq { flow },
        Kind::Alias => NodeKind::Alias,
    };
    let start = tree.edit_start(id);
    Node {
        span: Range {
            start,
            end: span.end().max(start),
        },
        kind,
    }
}

fn own_entries(tree: &Tree<'_>, map: NodeId) -> Vec<(NodeId, NodeId)> {
    tree.own_entries(map).collect()
}

fn items(tree: &Tree<'_>, seq: NodeId) -> Vec<NodeId> {
    tree.items(seq).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_error_says_where_and_why() {
        let words = [
            EditError::ThroughAlias { pos: 7 },
            EditError::WrongType {
                pos: 12,
                field: "spec.template".into(),
                expected: "a mapping",
            },
            EditError::Layout {
                pos: 30,
                what: "a comment between - and its item",
            },
        ]
        .map(|e| e.to_string());
        assert_eq!(
            words,
            [
                "byte 7: the place to edit is reached through an alias, and editing it would change every use of the anchor",
                "byte 12: spec.template must be a mapping",
                "byte 30: a layout not edited losslessly (a comment between - and its item)",
            ]
        );
    }

    fn edit(src: &str, f: impl FnOnce(&mut Editor<'_, '_>, NodeId)) -> String {
        let tree = Tree::parse(src, crate::context::Context::of(src)).unwrap();
        let root = tree.documents()[0].root();
        let mut ed = Editor::new(&tree, Layout::detect(src));
        f(&mut ed, root);
        let splices = std::mem::take(&mut ed.splices);
        splices.apply(src).unwrap()
    }

    fn set(src: &str, path: &[&str], key: &str, value: &str) -> String {
        edit(src, |ed, root| {
            ed.set_string(root, path, key, value).unwrap();
        })
    }

    #[test]
    fn appends_after_the_last_one_line_entry_keeping_comments() {
        let src = "meta:\n  annotations:\n    a: 'x' # keep\n    b: \"y\"\n  other: 1\n";
        assert_eq!(
            set(src, &["meta", "annotations"], "k", "v"),
            "meta:\n  annotations:\n    a: 'x' # keep\n    b: \"y\"\n    k: \"v\"\n  other: 1\n"
        );
    }

    #[test]
    fn creates_missing_mappings_before_a_nested_first_key() {
        let src = "template:\n  spec:\n    containers: []\n";
        assert_eq!(
            set(src, &["template", "metadata", "annotations"], "k", "v"),
            "template:\n  metadata:\n    annotations:\n      k: \"v\"\n  spec:\n    containers: []\n"
        );
    }

    #[test]
    fn inserts_before_a_first_key_that_starts_before_its_span() {
        // An explicit key's `?` sits before the key's span; the new entry goes before
        // it, not into it.
        let cases = [
            (
                "t:\n  ? l\n  : 1\n  s:\n    c: 1\n",
                "t:\n  m:\n    k: \"v\"\n  ? l\n  : 1\n  s:\n    c: 1\n",
            ),
            (
                "t: &t\n  ? # c\n    l\n  : 1\n  s:\n    c: 1\n",
                "t: &t\n  m:\n    k: \"v\"\n  ? # c\n    l\n  : 1\n  s:\n    c: 1\n",
            ),
            ("t: {? l : 1}\n", "t: {m: {k: \"v\"}, ? l : 1}\n"),
            (
                "t: { # c\n  ? l : 1}\n",
                "t: { # c\n  m: {k: \"v\"}, ? l : 1}\n",
            ),
            ("t: {\n  ? l : 1}\n", "t: {\n  m: {k: \"v\"},\n  ? l : 1}\n"),
        ];
        for (src, want) in cases {
            assert_eq!(set(src, &["t", "m"], "k", "v"), want, "{src:?}");
        }
    }

    #[test]
    fn replaces_an_existing_value_and_keeps_an_equal_one() {
        let src = "a:\n  k: old # c\n";
        assert_eq!(set(src, &["a"], "k", "new"), "a:\n  k: \"new\" # c\n");
        let same = "a:\n  k: 'new'\n";
        assert_eq!(set(same, &["a"], "k", "new"), same);
    }

    #[test]
    fn fills_a_null_mapping() {
        assert_eq!(
            set("a:\n  ann:\nb: 1\n", &["a", "ann"], "k", "v"),
            "a:\n  ann:\n    k: \"v\"\nb: 1\n"
        );
        assert_eq!(
            set("a:\n  ann: ~\n", &["a", "ann"], "k", "v"),
            "a:\n  ann:\n    k: \"v\"\n"
        );
    }

    #[test]
    fn writes_json_into_flow_collections() {
        let src = "{\n  \"a\": {\n    \"b\": 1\n  }\n}";
        assert_eq!(
            set(src, &["a"], "k", "v"),
            "{\n  \"a\": {\n    \"k\": \"v\",\n    \"b\": 1\n  }\n}"
        );
        assert_eq!(
            set("{a: {}}", &["a", "m"], "k", "v"),
            "{a: {\"m\": {\"k\": \"v\"}}}"
        );
        assert_eq!(
            set("a: {x: 1}\n", &["a"], "k", "v"),
            "a: {k: \"v\", x: 1}\n"
        );
    }

    #[test]
    fn keeps_crlf_line_endings() {
        let src = "a:\r\n  x: 1\r\n";
        assert_eq!(set(src, &["a"], "k", "v"), "a:\r\n  x: 1\r\n  k: \"v\"\r\n");
    }

    #[test]
    fn inserts_a_first_item_matching_sequence_indentation() {
        let flush = "env:\n- name: A\n  value: b\n";
        let item = NewValue::Map(vec![
            ("name".into(), NewValue::Str("H".into())),
            ("value".into(), NewValue::Str("1".into())),
        ]);
        let out = edit(flush, |ed, root| {
            let seq = ed.tree.get(root, "env").unwrap();
            ed.insert_item(seq, &item).unwrap();
        });
        assert_eq!(
            out,
            "env:\n- name: \"H\"\n  value: \"1\"\n- name: A\n  value: b\n"
        );
        let indented = "env:\n    -   name: A\n";
        let out = edit(indented, |ed, root| {
            let seq = ed.tree.get(root, "env").unwrap();
            ed.insert_item(seq, &item).unwrap();
        });
        assert_eq!(
            out,
            "env:\n    -   name: \"H\"\n        value: \"1\"\n    -   name: A\n"
        );
    }

    #[test]
    fn removes_entries_and_items() {
        let src = "a:\n  k: \"v\"\n  x: 1\nl:\n- name: H\n  value: \"1\"\n- name: B\n";
        let out = edit(src, |ed, root| {
            ed.remove(root, &["a"], "k").unwrap();
            let seq = ed.tree.get(root, "l").unwrap();
            ed.remove_items(seq, &[0]).unwrap();
        });
        assert_eq!(out, "a:\n  x: 1\nl:\n- name: B\n");
        // An entry whose value is an alias, or a quoted string folded over two lines, goes
        // with its lines (found by the property tests once a changed mode removes the
        // annotation a run wrote earlier).
        let aliased = "x: &h \"0000\"\na:\n  k: *h\n  y: 2\n";
        let out = edit(aliased, |ed, root| {
            ed.remove(root, &["a"], "k").unwrap();
        });
        assert_eq!(out, "x: &h \"0000\"\na:\n  y: 2\n");
        let folded = "a:\n  k: \"st\\\n    ale\"  # note\n  y: 2\n";
        let out = edit(folded, |ed, root| {
            ed.remove(root, &["a"], "k").unwrap();
        });
        assert_eq!(out, "a:\n  y: 2\n");
        let flow = "{\"a\": {\"x\": 1, \"k\": \"v\"}}";
        let out = edit(flow, |ed, root| {
            ed.remove(root, &["a"], "k").unwrap();
        });
        assert_eq!(out, "{\"a\": {\"x\": 1}}");
    }

    #[test]
    fn refuses_to_edit_through_an_alias() {
        let src = "base: &b\n  x: 1\nuse: *b\n";
        let tree = Tree::parse(src, crate::context::Context::of(src)).unwrap();
        let root = tree.documents()[0].root();
        let mut ed = Editor::new(&tree, Layout::detect(src));
        assert!(matches!(
            ed.set_string(root, &["use"], "k", "v"),
            Err(EditError::ThroughAlias { .. })
        ));
    }

    /// A new name keeps the scalar's style where that reads back as the same string,
    /// and is double-quoted where it would not (an alias, a quote, a block's anchor).
    #[test]
    fn a_new_name_is_written_in_a_style_that_reads_back_as_it() {
        let renamed = |src: &str, new: &str| {
            let tree = Tree::parse(src, crate::context::Context::of(src)).unwrap();
            let node = tree.get(tree.documents()[0].root(), "name").unwrap();
            let mut ed = Editor::new(&tree, Layout::detect(src));
            ed.replace_name(node, new);
            ed.into_splices().apply(src).unwrap()
        };
        assert_eq!(renamed("name: a\n", "b-x"), "name: b-x\n");
        assert_eq!(renamed("name: a\n", "*b"), "name: \"*b\"\n");
        assert_eq!(renamed("name: 'a'\n", "b"), "name: 'b'\n");
        assert_eq!(renamed("name: 'a'\n", "b'c"), "name: \"b'c\"\n");
        assert_eq!(renamed("name: \"a\"\n", "b"), "name: \"b\"\n");
        // A block scalar's text is the name as it is; with an anchor, the whole scalar
        // after it is replaced, quoted when plain would not do.
        assert_eq!(
            renamed("name: |-\n  a\nx: 1\n", "*b"),
            "name: |-\n  *b\nx: 1\n"
        );
        assert_eq!(
            renamed("name: &n |-\n  a\nx: 1\n", "*b"),
            "name: &n \"*b\"\nx: 1\n"
        );
        assert_eq!(
            renamed("name: &n |-\n  a\nx: 1\n", "b"),
            "name: &n b\nx: 1\n"
        );
    }

    /// Where a skeleton's document ends, read in the whole text it was cut from: past
    /// what was cut out when the end comes after the cut, as the whole text's own tree
    /// says.
    #[test]
    fn a_skeleton_ends_where_the_whole_text_does() {
        let whole = "a: 1\nitems:\n- xxxxxxxxxx\nz: 2\r\n";
        let items = crate::piece::Piece::new(whole.find("- x").unwrap()..whole.find("z:").unwrap());
        let cut = Cut::new(whole, items);
        let skeleton = Tree::parse(cut.text(), crate::context::Context::of(whole)).unwrap();
        let end = TextEnd::of_cut(&skeleton, skeleton.documents()[0].root(), whole, &cut);
        let own = Tree::parse(whole, crate::context::Context::of(whole)).unwrap();
        let want = TextEnd::of(&own, own.documents()[0].root());
        assert_eq!((end.needs_break, end.eol), (want.needs_break, want.eol));
        assert_eq!((end.needs_break, end.eol), (false, "\r\n"));
        // An end before the cut stays where it is.
        let tail = "a: 1\n---\nitems:\n- x\n";
        let cut = Cut::new(
            tail,
            crate::piece::Piece::new(tail.find("- x").unwrap()..tail.len()),
        );
        let skeleton = Tree::parse(cut.text(), crate::context::Context::of(tail)).unwrap();
        let first = TextEnd::of_cut(&skeleton, skeleton.documents()[0].root(), tail, &cut);
        assert_eq!((first.needs_break, first.eol), (false, "\n"));
    }
}
