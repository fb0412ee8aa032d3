//! The parser: go-yaml's grammar over the scanner's tokens, as a state machine that
//! hands each node to the tree builder as soon as it is known. It accepts what go-yaml's
//! parser accepts and refuses what it refuses (`{: x}`, content after `...` without a
//! `---`, `%YAML 1.2`), quirks included: in a flow sequence, an entry that is an explicit
//! key with nothing after the `?` swallows the token that follows, as go-yaml's does.

use crate::chars::NONE;
use crate::context::Context;
use crate::error::{Error, ErrorKind};
use crate::scan::{RawError, Result, Scanner, Tok, Token};
use crate::tree::{Builder, Props, Tree};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    StreamStart,
    ImplicitDocumentStart,
    DocumentStart,
    DocumentContent,
    DocumentEnd,
    BlockNode,
    BlockSequenceFirstEntry,
    BlockSequenceEntry,
    IndentlessSequenceEntry,
    BlockMappingFirstKey,
    BlockMappingKey,
    BlockMappingValue,
    FlowSequenceFirstEntry,
    FlowSequenceEntry,
    FlowSequenceEntryMappingKey,
    FlowSequenceEntryMappingValue,
    FlowSequenceEntryMappingEnd,
    FlowMappingFirstKey,
    FlowMappingKey,
    FlowMappingValue,
    FlowMappingEmptyValue,
    End,
}

struct Parser<'a> {
    scan: Scanner<'a>,
    build: Builder<'a>,
    state: State,
    states: Vec<State>,
    /// The indicator before the node about to be read (`-`, `:`, `?`), for its lead.
    lead: u32,
    /// Where the last `?` of a flow sequence's single-pair mapping ended.
    key_end: u32,
    /// The `%TAG` handles of the current document.
    doc_tags: Vec<(u32, u32)>,
    /// A node was read since the last `---` line (or the start): kubectl, kustomize and
    /// kpt read each piece of a stream between `---` lines on its own, first document
    /// only, so a directive in a piece with no document before it is refused there.
    piece_content: bool,
    /// Lines of the whole input before this text (the first line of the stream is the
    /// first line of the text only when there are none).
    line_base: usize,
}

fn fail<T>(kind: ErrorKind, at: u32) -> Result<T> {
    Err(RawError {
        kind,
        at: at as usize,
    })
}

pub(crate) fn parse<'a>(
    src: &'a str,
    ctx: Context,
    build: Builder<'a>,
) -> std::result::Result<Tree<'a>, Error> {
    if src.len() > crate::limits::MAX_TEXT_BYTES {
        return Err(Tree::error_at(
            src,
            ctx,
            RawError {
                kind: ErrorKind::Limit(crate::error::Limit::TextSize),
                at: 0,
            },
        ));
    }
    let mut p = Parser {
        scan: Scanner::new(src, ctx.json()),
        build,
        state: State::StreamStart,
        states: Vec::new(),
        lead: NONE,
        key_end: NONE,
        doc_tags: Vec::new(),
        piece_content: false,
        line_base: ctx.line_base(),
    };
    match p
        .run()
        .and_then(|()| p.scan.json_escape_refused().map_or(Ok(()), Err))
    {
        Ok(()) => {
            let decoded = std::mem::take(&mut p.scan.decoded.text);
            Ok(p.build.finish(decoded))
        }
        Err(e) => Err(Tree::error_at(src, ctx, e)),
    }
}

/// Where an empty node goes when no indicator gives its place: right after what came
/// before it.
const AFTER_LAST: u32 = NONE - 1;

impl<'a> Parser<'a> {
    fn pop_state(&mut self) {
        self.state = self.states.pop().unwrap_or(State::End);
    }

    fn empty(&mut self, at: u32, lead: u32) -> Result<()> {
        let at = if at == AFTER_LAST {
            self.build.last_end
        } else {
            at
        };
        self.build
            .scalar(&Props::NONE, at, at, crate::scan::Style::Plain, None, lead)
    }

    fn run(&mut self) -> Result<()> {
        loop {
            match self.state {
                State::End => return Ok(()),
                State::StreamStart => {
                    let t = self.scan.peek()?;
                    debug_assert_eq!(t.kind, Tok::StreamStart);
                    self.scan.skip();
                    self.state = State::ImplicitDocumentStart;
                }
                State::ImplicitDocumentStart => self.document_start(true)?,
                State::DocumentStart => self.document_start(false)?,
                State::DocumentContent => self.document_content()?,
                State::DocumentEnd => self.document_end()?,
                State::BlockNode => {
                    let lead = std::mem::replace(&mut self.lead, NONE);
                    self.node(true, false, lead)?;
                }
                State::BlockSequenceFirstEntry => self.block_sequence_entry(true)?,
                State::BlockSequenceEntry => self.block_sequence_entry(false)?,
                State::IndentlessSequenceEntry => self.indentless_sequence_entry()?,
                State::BlockMappingFirstKey => self.block_mapping_key(true)?,
                State::BlockMappingKey => self.block_mapping_key(false)?,
                State::BlockMappingValue => self.block_mapping_value()?,
                State::FlowSequenceFirstEntry => self.flow_sequence_entry(true)?,
                State::FlowSequenceEntry => self.flow_sequence_entry(false)?,
                State::FlowSequenceEntryMappingKey => self.flow_pair_key()?,
                State::FlowSequenceEntryMappingValue => self.flow_pair_value()?,
                State::FlowSequenceEntryMappingEnd => {
                    self.build.collection_end(None, &self.scan.decoded.text)?;
                    self.state = State::FlowSequenceEntry;
                }
                State::FlowMappingFirstKey => self.flow_mapping_key(true)?,
                State::FlowMappingKey => self.flow_mapping_key(false)?,
                State::FlowMappingValue => self.flow_mapping_value(false)?,
                State::FlowMappingEmptyValue => self.flow_mapping_value(true)?,
            }
        }
    }

    /// A document's content: its root node, or an empty one when a directive, a
    /// document marker or the end follows at once.
    #[inline(always)]
    fn document_content(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        if matches!(
            t.kind,
            Tok::VersionDirective
                | Tok::TagDirective
                | Tok::DocumentStart
                | Tok::DocumentEnd
                | Tok::StreamEnd
        ) {
            self.pop_state();
            self.empty(t.start, NONE)
        } else {
            self.node(true, false, NONE)
        }
    }

    /// A document ends: recorded, and the rest of its piece skipped when the tools
    /// would never read it.
    #[inline(always)]
    fn document_end(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        self.build.document_end(t.start as usize)?;
        let directive = matches!(t.kind, Tok::VersionDirective | Tok::TagDirective);
        // (A directive in a piece with nothing read yet is refused where the
        // next document starts, as the tools refuse it.)
        if t.kind == Tok::DocumentEnd || directive && self.piece_content {
            // kubectl, kustomize and kpt cut the stream at its `---` lines
            // and decode the first document of each piece: after `...`, or
            // a directive (scanned, so a malformed one is refused as go-yaml
            // refuses it), the rest of the piece is never read.
            self.scan.skip();
            self.scan.skip_rest_of_piece();
        }
        self.doc_tags.clear();
        self.state = State::DocumentStart;
        Ok(())
    }

    /// The next entry of a block sequence (`-`), or its end.
    #[inline(always)]
    fn block_sequence_entry(&mut self, first: bool) -> Result<()> {
        if first {
            self.scan.skip();
        }
        let t = self.scan.peek()?;
        match t.kind {
            Tok::BlockEntry => {
                self.scan.skip();
                let next = self.scan.peek()?;
                if !matches!(next.kind, Tok::BlockEntry | Tok::BlockEnd) {
                    self.states.push(State::BlockSequenceEntry);
                    self.node(true, false, t.start)?;
                } else {
                    self.state = State::BlockSequenceEntry;
                    self.empty(t.end, t.start)?;
                }
            }
            Tok::BlockEnd => {
                self.build.collection_end(None, &self.scan.decoded.text)?;
                self.scan.skip();
                self.pop_state();
            }
            _ => return fail(ErrorKind::ExpectedBlockEntry, t.start),
        }
        Ok(())
    }

    /// The next entry of a sequence written at its key's indentation (`key:` then
    /// `- a`), or its end at the first token that is no `-`.
    #[inline(always)]
    fn indentless_sequence_entry(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        if t.kind == Tok::BlockEntry {
            self.scan.skip();
            let next = self.scan.peek()?;
            if !matches!(
                next.kind,
                Tok::BlockEntry | Tok::Key | Tok::Value | Tok::BlockEnd
            ) {
                self.states.push(State::IndentlessSequenceEntry);
                self.node(true, false, t.start)?;
            } else {
                self.state = State::IndentlessSequenceEntry;
                self.empty(t.end, t.start)?;
            }
        } else {
            self.build.collection_end(None, &self.scan.decoded.text)?;
            self.pop_state();
        }
        Ok(())
    }

    /// The next key of a block mapping, or its end.
    #[inline(always)]
    fn block_mapping_key(&mut self, first: bool) -> Result<()> {
        if first {
            self.scan.skip();
        }
        let t = self.scan.peek()?;
        match t.kind {
            Tok::Key => {
                let lead = explicit_lead(&t);
                self.scan.skip();
                let next = self.scan.peek()?;
                if !matches!(next.kind, Tok::Key | Tok::Value | Tok::BlockEnd) {
                    self.states.push(State::BlockMappingValue);
                    self.node(true, true, lead)?;
                } else {
                    self.state = State::BlockMappingValue;
                    self.empty(t.end, lead)?;
                }
            }
            Tok::BlockEnd => {
                self.build.collection_end(None, &self.scan.decoded.text)?;
                self.scan.skip();
                self.pop_state();
            }
            _ => return fail(ErrorKind::ExpectedKey, t.start),
        }
        Ok(())
    }

    /// A block mapping's value: after its `:`, or empty when there is none.
    #[inline(always)]
    fn block_mapping_value(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        if t.kind == Tok::Value {
            self.scan.skip();
            let next = self.scan.peek()?;
            if !matches!(next.kind, Tok::Key | Tok::Value | Tok::BlockEnd) {
                self.states.push(State::BlockMappingKey);
                self.node(true, true, t.start)
            } else {
                self.state = State::BlockMappingKey;
                self.empty(t.end, t.start)
            }
        } else {
            self.state = State::BlockMappingKey;
            self.empty(AFTER_LAST, NONE)
        }
    }

    /// The next entry of a flow sequence (after its `,`): a node, a single-pair
    /// mapping (`[a: b]`), or the sequence's end.
    #[inline(always)]
    fn flow_sequence_entry(&mut self, first: bool) -> Result<()> {
        if first {
            self.scan.skip();
        }
        let mut t = self.scan.peek()?;
        if t.kind != Tok::FlowSequenceEnd {
            if !first {
                if t.kind == Tok::FlowEntry {
                    self.scan.skip();
                    t = self.scan.peek()?;
                } else {
                    return fail(ErrorKind::ExpectedFlowSequenceSeparator, t.start);
                }
            }
            if t.kind == Tok::Key {
                // A single-pair mapping: `[a: b]`, `[? a : b]`.
                self.build
                    .collection_start(&Props::NONE, t.start, true, true, NONE)?;
                self.lead = explicit_lead(&t);
                self.key_end = t.end;
                self.state = State::FlowSequenceEntryMappingKey;
                self.scan.skip();
                return Ok(());
            }
            if t.kind != Tok::FlowSequenceEnd {
                self.states.push(State::FlowSequenceEntry);
                return self.node(false, false, NONE);
            }
        }
        self.build
            .collection_end(Some(t.end), &self.scan.decoded.text)?;
        self.scan.skip();
        self.pop_state();
        Ok(())
    }

    /// The key of a flow sequence's single-pair mapping.
    #[inline(always)]
    fn flow_pair_key(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        let lead = std::mem::replace(&mut self.lead, NONE);
        if !matches!(t.kind, Tok::Value | Tok::FlowEntry | Tok::FlowSequenceEnd) {
            self.states.push(State::FlowSequenceEntryMappingValue);
            self.node(false, false, lead)
        } else {
            // go-yaml drops this token (its parser's quirk, kept: `[? , a]`
            // is then refused as it refuses it).
            self.scan.skip();
            self.state = State::FlowSequenceEntryMappingValue;
            self.empty(self.key_end, lead)
        }
    }

    /// The value of a flow sequence's single-pair mapping.
    #[inline(always)]
    fn flow_pair_value(&mut self) -> Result<()> {
        let t = self.scan.peek()?;
        self.state = State::FlowSequenceEntryMappingEnd;
        if t.kind == Tok::Value {
            self.scan.skip();
            let next = self.scan.peek()?;
            if !matches!(next.kind, Tok::FlowEntry | Tok::FlowSequenceEnd) {
                self.states.push(State::FlowSequenceEntryMappingEnd);
                self.node(false, false, t.start)
            } else {
                self.empty(t.end, t.start)
            }
        } else {
            self.empty(AFTER_LAST, NONE)
        }
    }

    /// The next key of a flow mapping (after its `,`), or the mapping's end.
    #[inline(always)]
    fn flow_mapping_key(&mut self, first: bool) -> Result<()> {
        if first {
            self.scan.skip();
        }
        let mut t = self.scan.peek()?;
        if t.kind != Tok::FlowMappingEnd {
            if !first {
                if t.kind == Tok::FlowEntry {
                    self.scan.skip();
                    t = self.scan.peek()?;
                } else {
                    return fail(ErrorKind::ExpectedFlowMappingSeparator, t.start);
                }
            }
            if t.kind == Tok::Key {
                let lead = explicit_lead(&t);
                self.scan.skip();
                let next = self.scan.peek()?;
                if !matches!(next.kind, Tok::Value | Tok::FlowEntry | Tok::FlowMappingEnd) {
                    self.states.push(State::FlowMappingValue);
                    self.node(false, false, lead)?;
                } else {
                    self.state = State::FlowMappingValue;
                    self.empty(t.end, lead)?;
                }
                return Ok(());
            }
            if t.kind != Tok::FlowMappingEnd {
                self.states.push(State::FlowMappingEmptyValue);
                return self.node(false, false, NONE);
            }
        }
        self.build
            .collection_end(Some(t.end), &self.scan.decoded.text)?;
        self.scan.skip();
        self.pop_state();
        Ok(())
    }

    /// A flow mapping's value: after its `:`, or empty (`empty`: a key with no `:`
    /// at all, `{a, b}`).
    #[inline(always)]
    fn flow_mapping_value(&mut self, empty: bool) -> Result<()> {
        self.state = State::FlowMappingKey;
        if empty {
            return self.empty(AFTER_LAST, NONE);
        }
        let t = self.scan.peek()?;
        if t.kind == Tok::Value {
            self.scan.skip();
            let next = self.scan.peek()?;
            if !matches!(next.kind, Tok::FlowEntry | Tok::FlowMappingEnd) {
                self.states.push(State::FlowMappingKey);
                self.node(false, false, t.start)
            } else {
                self.empty(t.end, t.start)
            }
        } else {
            self.empty(AFTER_LAST, NONE)
        }
    }

    fn document_start(&mut self, implicit: bool) -> Result<()> {
        let mut t = self.scan.peek()?;
        if !implicit {
            while t.kind == Tok::DocumentEnd {
                self.scan.skip();
                t = self.scan.peek()?;
            }
        }
        if implicit
            && !matches!(
                t.kind,
                Tok::VersionDirective | Tok::TagDirective | Tok::DocumentStart | Tok::StreamEnd
            )
        {
            self.build.document_start(t.start as usize);
            self.states.push(State::DocumentEnd);
            self.state = State::BlockNode;
            return Ok(());
        }
        if t.kind == Tok::StreamEnd {
            self.scan.skip();
            self.state = State::End;
            return Ok(());
        }
        let start = t.start;
        self.directives()?;
        let t = self.scan.peek()?;
        if t.kind != Tok::DocumentStart {
            return fail(ErrorKind::ExpectedDocumentStart, t.start);
        }
        self.build.document_start(start as usize);
        self.states.push(State::DocumentEnd);
        self.state = State::DocumentContent;
        self.scan.skip();
        self.piece_content = false;
        // `--- x`: the tools' stream splitter refuses a marker line with more than a
        // comment on it, except as the first line of the stream (kustomize and kpt read
        // that one).
        let next = self.scan.peek()?;
        // `---` then `...`: the tools read the piece after a `---` line on its own, and
        // go-yaml finds no node before the `...` that starts it.
        if next.kind == Tok::DocumentEnd {
            return fail(ErrorKind::ExpectedNode, next.start);
        }
        let text = self.scan.src();
        let first_line = self.line_base == 0 && !text[..t.start as usize].contains('\n');
        if !first_line
            && !matches!(
                next.kind,
                Tok::StreamEnd | Tok::DocumentStart | Tok::DocumentEnd
            )
            && !text[t.end as usize..next.start as usize].contains(['\n', '\r'])
        {
            return fail(ErrorKind::ContentAfterDocumentMarker, next.start);
        }
        Ok(())
    }

    /// The directives before a document: `%YAML 1.1` at most once, `%TAG` at most once
    /// per handle.
    fn directives(&mut self) -> Result<()> {
        let mut version = false;
        loop {
            let t = self.scan.peek()?;
            if matches!(t.kind, Tok::VersionDirective | Tok::TagDirective) && !self.piece_content {
                return fail(ErrorKind::DirectiveWithoutDocument, t.start);
            }
            match t.kind {
                Tok::VersionDirective => {
                    if version {
                        return fail(ErrorKind::DuplicateDirective, t.start);
                    }
                    if t.data != 256 + 1 {
                        return fail(ErrorKind::IncompatibleVersion, t.start);
                    }
                    version = true;
                }
                Tok::TagDirective => {
                    let d = self.scan.tag_directives[t.data as usize];
                    let handle = self.text(d.handle);
                    if self.doc_tags.iter().any(|&h| self.text(h) == handle) {
                        return fail(ErrorKind::DuplicateDirective, t.start);
                    }
                    self.doc_tags.push(d.handle);
                }
                _ => return Ok(()),
            }
            self.scan.skip();
        }
    }

    fn text(&self, (s, e): (u32, u32)) -> &'a str {
        &self.scan.src()[s as usize..e as usize]
    }

    /// A node: an alias, or properties then content (a scalar, a collection's start, or
    /// nothing).
    fn node(&mut self, block: bool, indentless: bool, lead: u32) -> Result<()> {
        self.piece_content = true;
        let mut t = self.scan.peek()?;
        if t.kind == Tok::Alias {
            self.build.alias(t.start, t.end, lead)?;
            self.scan.skip();
            self.pop_state();
            return Ok(());
        }
        let mut props = Props::NONE;
        for _ in 0..2 {
            let slot = match t.kind {
                Tok::Anchor if props.anchor.0 == NONE => &mut props.anchor,
                Tok::Tag if props.tag.0 == NONE => &mut props.tag,
                _ => break,
            };
            *slot = (t.start, t.end);
            if props.start == NONE {
                props.start = t.start;
            }
            props.end = t.end;
            if t.kind == Tok::Tag {
                self.check_tag_handle(&t)?;
            }
            self.scan.skip();
            t = self.scan.peek()?;
        }
        match t.kind {
            Tok::BlockEntry if indentless => {
                self.build
                    .collection_start(&props, t.start, false, false, lead)?;
                self.state = State::IndentlessSequenceEntry;
            }
            Tok::Scalar => {
                let decoded = (t.data != NONE).then_some((t.data, t.data2, t.text));
                self.build
                    .scalar(&props, t.start, t.end, t.style, decoded, lead)?;
                self.scan.skip();
                self.pop_state();
            }
            Tok::FlowSequenceStart => {
                self.build
                    .collection_start(&props, t.start, false, true, lead)?;
                self.state = State::FlowSequenceFirstEntry;
            }
            Tok::FlowMappingStart => {
                self.build
                    .collection_start(&props, t.start, true, true, lead)?;
                self.state = State::FlowMappingFirstKey;
            }
            Tok::BlockSequenceStart if block => {
                self.build
                    .collection_start(&props, t.start, false, false, lead)?;
                self.state = State::BlockSequenceFirstEntry;
            }
            Tok::BlockMappingStart if block => {
                self.build
                    .collection_start(&props, t.start, true, false, lead)?;
                self.state = State::BlockMappingFirstKey;
            }
            _ if props.any() => {
                self.build.scalar(
                    &props,
                    props.end,
                    props.end,
                    crate::scan::Style::Plain,
                    None,
                    lead,
                )?;
                self.pop_state();
            }
            _ => return fail(ErrorKind::ExpectedNode, t.start),
        }
        Ok(())
    }

    /// A tag's handle must be `!`, `!!` or one a `%TAG` directive of the document
    /// defines.
    fn check_tag_handle(&self, t: &Token) -> Result<()> {
        if t.data == 0 {
            return Ok(());
        }
        let handle = self.text((t.start, t.start + t.data));
        if handle == "!" || handle == "!!" || self.doc_tags.iter().any(|&h| self.text(h) == handle)
        {
            return Ok(());
        }
        fail(ErrorKind::UndefinedTagHandle, t.start)
    }
}

/// The lead of a node after a KEY token: the `?` when it is written.
fn explicit_lead(t: &Token) -> u32 {
    if t.end > t.start { t.start } else { NONE }
}

impl<'a> Tree<'a> {
    /// Reads a whole YAML stream (every document) as go-yaml reads it; duplicate keys
    /// are refused, as the API server refuses them.
    pub fn parse(src: &'a str, ctx: Context) -> std::result::Result<Tree<'a>, Error> {
        parse(src, ctx, Builder::new(src, ctx))
    }

    #[cfg(test)]
    pub(crate) fn parse_unlimited(src: &'a str) -> Tree<'a> {
        let ctx = Context::of(src);
        parse(src, ctx, Builder::new(src, ctx).unlimited()).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use crate::context::Context;
    use crate::error::ErrorKind;
    use crate::tree::Tree;

    /// Every document's data on a line of its own, or the error's kind and position.
    fn read(text: &str) -> String {
        match Tree::parse(text, Context::of(text)) {
            Ok(tree) => {
                let mut out = String::new();
                for (i, d) in tree.documents().iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str(&tree.data(d.root()).to_string());
                }
                out
            }
            Err(e) => format!("{:?} at {}:{}", e.kind(), e.line(), e.column()),
        }
    }

    fn kind(text: &str) -> Option<ErrorKind> {
        Tree::parse(text, Context::of(text)).err().map(|e| e.kind())
    }

    #[test]
    fn a_flow_sequence_left_of_its_key_is_read_as_go_yaml_reads_it() {
        // tektoncd/pipeline and istio write lists this way; kubectl reads them.
        let text = "spec:\n  containers:\n  - name: c\n    args: [\n      \"-a\", \"b\",\n    ]\n";
        assert_eq!(
            read(text),
            r#"{"spec": {"containers": [{"name": "c", "args": ["-a", "b"]}]}}"#
        );
        assert_eq!(
            read("a:\n  b: [x,\ny]\n  c: {k:\n v}\n"),
            r#"{"a": {"b": ["x", "y"], "c": {"k": "v"}}}"#
        );
    }

    #[test]
    fn go_yamls_refusals_are_refusals() {
        for (text, want) in [
            ("{: x}\n", ErrorKind::ExpectedNode),
            (": x\n", ErrorKind::ExpectedKey),
            ("a: b: c\n", ErrorKind::ValueNotAllowed),
            ("-\ta\n", ErrorKind::UnexpectedCharacter),
            ("a: 1\n\tb: 2\n", ErrorKind::TabInIndentation),
            ("a:\n\t- b\n", ErrorKind::UnexpectedCharacter),
            ("a: x #c\n\t# d\n", ErrorKind::UnexpectedCharacter),
            ("a: 'x\n---\ny'\n", ErrorKind::DocumentMarkerInQuotedScalar),
            ("a: \"x\n", ErrorKind::UnterminatedQuotedScalar),
            ("a: \"\\/\"\n", ErrorKind::UnknownEscape),
            ("a: \"\\q\"\n", ErrorKind::UnknownEscape),
            ("a: \"\\x4\"\n", ErrorKind::MalformedEscape),
            (
                "a: \"\\ud83d\\ude80\"\n",
                ErrorKind::InvalidEscapedCharacter,
            ),
            ("a: |0\n  x\n", ErrorKind::MalformedBlockScalarHeader),
            ("a: |x\n", ErrorKind::MalformedBlockScalarHeader),
            ("a: |\n  \tx\n", ErrorKind::TabInBlockScalarIndentation),
            // The `%TAG` is in the piece before the `---` line: the document after it
            // is read without it (kubectl and kustomize: "found undefined tag handle").
            (
                "x: 0\n%YAML 1.1\n%TAG !e! tag:e.com,2000:\n---\na: !e!x y\n",
                ErrorKind::UndefinedTagHandle,
            ),
            ("%NOTE x\n---\na: 1\n", ErrorKind::UnknownDirective),
            // A piece that starts with `...` (kubectl, kustomize: "did not find expected
            // node content").
            ("a: 1\n---\n...\nb: 2\n", ErrorKind::ExpectedNode),
            ("---\n# c\n...\n", ErrorKind::ExpectedNode),
            // kubectl refuses it too; kustomize and kpt read it (their splitter cuts at
            // "\n---\n", which misses the second of two `---` lines in a row).
            ("---\n---\n...\n", ErrorKind::ExpectedNode),
            ("...\na: 1\n", ErrorKind::ExpectedNode),
            // How kubectl, kustomize and kpt read a stream: cut at `---` lines first.
            (
                "%YAML 1.1\n---\na: 1\n",
                ErrorKind::DirectiveWithoutDocument,
            ),
            (
                "%YAML 1.2\n---\na: 1\n",
                ErrorKind::DirectiveWithoutDocument,
            ),
            (
                "a: 1\n---\n%YAML 1.1\n---\nb: 2\n",
                ErrorKind::DirectiveWithoutDocument,
            ),
            (
                "a: 1\n--- !!map\nb: 2\n",
                ErrorKind::ContentAfterDocumentMarker,
            ),
            ("a: 1\n--- |\n  x\n", ErrorKind::ContentAfterDocumentMarker),
            // Scanned, though never parsed, after a document (see
            // `the_rest_of_a_piece_after_its_document_is_not_read`).
            ("x: 0\n%NOTE x\n---\na: 1\n", ErrorKind::UnknownDirective),
            ("a: !e!x y\n", ErrorKind::UndefinedTagHandle),
            ("a: &a.b x\n", ErrorKind::MalformedAnchor),
            ("a: *\n", ErrorKind::MalformedAnchor),
            ("a: *b\n", ErrorKind::UndefinedAlias),
            ("a: &a [1, *a]\n", ErrorKind::RecursiveAlias),
            ("--- &a [1, *a]\n", ErrorKind::RecursiveAlias),
            ("a: &v 1\n---\nb: *v\n", ErrorKind::AliasToAnotherDocument),
            (
                "- &v {x: 1}\n---\n- [*v]\n",
                ErrorKind::AliasToAnotherDocument,
            ),
            ("[?, x]\n", ErrorKind::ExpectedFlowSequenceSeparator),
            ("{a: 'x' b}\n", ErrorKind::ExpectedFlowMappingSeparator),
            ("- a\nb: 1\n", ErrorKind::ExpectedBlockEntry),
            ("a\nb: 1\n", ErrorKind::ValueNotAllowed),
            ("a:\n  b\n  c: 1\n", ErrorKind::ValueNotAllowed),
            ("a: @x\n", ErrorKind::UnexpectedCharacter),
            ("a: 1\na: 2\n", ErrorKind::DuplicateKey),
            ("{a: 1, 'a': 2}\n", ErrorKind::DuplicateKey),
            ("a: \"x\u{1}\"\n", ErrorKind::ControlCharacter { code: 1 }),
            ("# \u{7f}\n", ErrorKind::ControlCharacter { code: 0x7f }),
            ("a: \u{9f}\n", ErrorKind::ControlCharacter { code: 0x9f }),
            (
                "a: \u{fffe}\n",
                ErrorKind::ControlCharacter { code: 0xfffe },
            ),
            (
                "a: |\n  x\u{ffff}\n",
                ErrorKind::ControlCharacter { code: 0xffff },
            ),
        ] {
            assert_eq!(kind(text), Some(want), "{text:?}: {}", read(text));
        }
    }

    /// An anchor holds only in its own document: an alias to one of an earlier document
    /// is refused, naming the alias and its line, as kubectl, kustomize and kpt refuse
    /// it ("unknown anchor"); the same anchor name may be defined again in a later one.
    #[test]
    fn an_alias_to_an_anchor_of_another_document_is_refused_naming_it() {
        let text = "data: {A: &v \"1\"}\n---\ndata: {A: *v}\n";
        let e = Tree::parse(text, Context::of(text)).unwrap_err();
        assert_eq!((e.line(), e.column()), (3, 11));
        assert!(
            e.to_string()
                .starts_with("line 3 column 11: *v: alias names an anchor of an earlier document"),
            "{e}"
        );
        assert_eq!(
            read("a: &v 1\n---\nb: &v 2\nc: *v\n"),
            concat!(r#"{"a": "1"}"#, "\n", r#"{"b": "2", "c": "2"}"#)
        );
        let undefined = Tree::parse("a: *nowhere\n", Context::of("a: *nowhere\n")).unwrap_err();
        assert!(undefined.message().starts_with("*nowhere: "), "{undefined}");
    }

    /// kubectl, kustomize and kpt cut a stream at its `---` lines and decode the first
    /// document of each piece: what follows that document's `...` or a directive after
    /// it, up to the next `---` line, is never read (nor refused). Found by the
    /// structural differential test against kubectl kustomize.
    #[test]
    fn the_rest_of_a_piece_after_its_document_is_not_read() {
        for (text, want) in [
            ("a: 1\n...\nb: 2\n", r#"{"a": "1"}"#),
            ("a: 1\n...\n...\n", r#"{"a": "1"}"#),
            (
                "a: 1\n...\nb: 2\n---\nc: 3\n",
                concat!(r#"{"a": "1"}"#, "\n", r#"{"c": "3"}"#),
            ),
            (
                "a: 1\n... # end\n: ] not yaml {\n---\nc: 3\n",
                concat!(r#"{"a": "1"}"#, "\n", r#"{"c": "3"}"#),
            ),
            (
                "x: 0\n%YAML 1.1\n---\na: 1\n",
                concat!(r#"{"x": "0"}"#, "\n", r#"{"a": "1"}"#),
            ),
            ("x: 0\n%YAML 1.1\na: 1\n", r#"{"x": "0"}"#),
            // Only the first directive is scanned: a second one is never seen.
            (
                "x: 0\n%YAML 1.1\n%YAML 1.1\n---\na: 1\n",
                concat!(r#"{"x": "0"}"#, "\n", r#"{"a": "1"}"#),
            ),
            (
                "x: 0\n%YAML 1.2\n---\na: 1\n",
                concat!(r#"{"x": "0"}"#, "\n", r#"{"a": "1"}"#),
            ),
        ] {
            assert_eq!(read(text), want, "{text:?}");
        }
    }

    #[test]
    fn what_go_yaml_reads_is_read() {
        for (text, want) in [
            ("a:\tb\nc:\t\t[d]\n", r#"{"a": "b", "c": ["d"]}"#),
            // A comment between tokens runs on over comment lines indented with tabs.
            ("a: x\n# c\n\t# d\nb: y\n", r#"{"a": "x", "b": "y"}"#),
            ("a: [x]#c\nb: 'y'#d\n", r#"{"a": ["x"], "b": "y"}"#),
            ("?\t# c\n  k\n: v\n", r#"{"k": "v"}"#),
            (
                "{&name: creds, key: token}\n",
                r#"{"": "creds", "key": "token"}"#,
            ),
            ("[? : , x]\n", r#"[{"": ""}, "x"]"#),
            ("[? a]\n", r#"[{"a": ""}]"#),
            ("[a: b, c]\n", r#"[{"a": "b"}, "c"]"#),
            ("{a:b}\n", r#"{"a:b": ""}"#),
            ("{a: x -}\n", r#"{"a": "x -"}"#),
            ("{a: x -}\n[-]\n", "ExpectedDocumentStart at 2:1"),
            ("[-, y -]\n", r#"["-", "y -"]"#),
            ("a: |\n  x", r#"{"a": "x"}"#),
            ("a: |\n  x\n\n", r#"{"a": "x\n"}"#),
            ("a: |+\n  x\n\n", r#"{"a": "x\n\n"}"#),
            ("a: >-\n  x\n  y\n\n  z\n", r#"{"a": "x y\nz"}"#),
            ("a: >\n  x\n   y\n  z\n", r#"{"a": "x\n y\nz\n"}"#),
            ("a: |2\n   x\n", r#"{"a": " x\n"}"#),
            ("a: |3\n  # c\nb: x\n", r#"{"a": "", "b": "x"}"#),
            ("--- |\n x\n", r#""x\n""#),
            ("a: 'x\n\n  y'\n", r#"{"a": "x\ny"}"#),
            ("a: \"x\\\n   y \\t\"\n", r#"{"a": "xy \t"}"#),
            (
                "a: \"\\N\\_\\L\\P\\x41\\u00e9\\U0001F680\\e\\0\"\n",
                "{\"a\": \"\\u{85}\\u{a0}\\u{2028}\\u{2029}Aé🚀\\u{1b}\\0\"}",
            ),
            ("a: x\n  y\n\n  z\nb: 1\n", r#"{"a": "x y\nz", "b": "1"}"#),
            ("a: x\u{2028}  y\n", "{\"a\": \"x\\u{2028}y\"}"),
            (
                "a: 1\u{2028}b: 2\u{85}c: 3\n",
                r#"{"a": "1", "b": "2", "c": "3"}"#,
            ),
            ("a: 'x\u{2028}    y'\n", "{\"a\": \"x\\u{2028}y\"}"),
            ("a: \"x \u{2028}\"\n", "{\"a\": \"x\\u{2028}\"}"),
            ("a: \"x\n\u{2028}\"\n", "{\"a\": \"x\\u{2028}\"}"),
            (
                "a: >\n  b\n  c\u{2029}  d\n",
                "{\"a\": \"b c\\u{2029}d\\n\"}",
            ),
            ("a:\r  b: 1\r  c: 2\r", r#"{"a": {"b": "1", "c": "2"}}"#),
            ("\u{feff}a: 1\n", r#"{"a": "1"}"#),
            ("--- !!map\nb: 2\n", r#"{"b": "2"}"#),
            ("a: 1\n--- # c\nb: 2\n", "{\"a\": \"1\"}\n{\"b\": \"2\"}"),
            (
                "a: !!str 1\nb: !x\nc: ! d\n",
                r#"{"a": !!str "1", "b": !x "", "c": ! "d"}"#,
            ),
            (
                "a: &m {x: 1, y: 1}\nb: {<<: *m, x: 2}\n",
                r#"{"a": {"x": "1", "y": "1"}, "b": {"x": "2", "y": "1"}}"#,
            ),
            ("---\n---\n# c\n---\n", "\"\"\n\"\"\n\"\""),
            ("", ""),
            ("# only\n", ""),
        ] {
            assert_eq!(read(text), want, "{text:?}");
        }
    }

    #[test]
    fn an_implicit_key_is_at_most_1024_characters_on_one_line() {
        let key = |n: usize| format!("{}: v\n", "é".repeat(n));
        assert!(kind(&key(1024)).is_none());
        assert_eq!(kind(&key(1025)), Some(ErrorKind::ValueNotAllowed));
        // In flow context the key is not one, and the ':' then reads as a value alone.
        let flow = format!("{{{}: v}}\n", "k".repeat(1025));
        assert_eq!(kind(&flow), Some(ErrorKind::ExpectedFlowMappingSeparator));
    }

    #[test]
    fn json_text_reads_json_escapes_and_keeps_unicode_breaks_as_characters() {
        assert_eq!(
            read("{\"a\": \"x\\/\\ud83d\\ude80y\", \"b\": \"p\u{2028}  q\u{85}\"}"),
            "{\"a\": \"x/🚀y\", \"b\": \"p\\u{2028}  q\\u{85}\"}"
        );
        // A lone surrogate is no character, in JSON either.
        assert_eq!(
            kind("{\"a\": \"\\ud83d\"}"),
            Some(ErrorKind::InvalidEscapedCharacter)
        );
        // JSON numbers and literals, nested, are JSON.
        assert_eq!(
            read("{\"a\": [\"\\/\", -1.5e3, true, null, {}]}"),
            "{\"a\": [\"/\", \"-1.5e3\", \"true\", \"null\", {}]}"
        );
    }

    /// A text that starts with `{` but is YAML (a tag, a comment, a plain string, an
    /// anchor...): kubectl's JSON decoder refuses it whole, kustomize reads it with
    /// go-yaml, which refuses `\/` and surrogate escapes; so does the reader. Found by the
    /// structural differential test (its SlashEscape construct).
    #[test]
    fn json_escapes_are_read_only_in_json_text() {
        for (text, want) in [
            ("{a: \"x\\/y\"}\n", ErrorKind::UnknownEscape),
            ("{\"a\": \"x\\/y\"} # c\n", ErrorKind::UnknownEscape),
            ("{\"a\": !!str \"x\\/y\"}\n", ErrorKind::UnknownEscape),
            ("{\"b\": \"x\\/\", \"a\": &x 1}\n", ErrorKind::UnknownEscape),
            ("{\"a\": 'q', \"b\": \"\\/\"}\n", ErrorKind::UnknownEscape),
            (
                "{\"a\": \"\\ud83d\\ude80\", ? \"b\" : 1}\n",
                ErrorKind::InvalidEscapedCharacter,
            ),
        ] {
            assert_eq!(kind(text), Some(want), "{text:?}");
        }
        assert_eq!(
            kind("{\"a\": \"x\\/y\", \"b\": {\"c\": [1, false]}}\n"),
            None
        );
    }

    #[test]
    fn errors_say_where_in_lines_and_characters() {
        let e = Tree::parse("a: 1\nb: 'é' c: 2\n", Context::of("").at_line(10)).unwrap_err();
        assert_eq!((e.line(), e.column()), (12, 8), "{e}");
        assert_eq!(e.offset(), 13);
    }

    #[test]
    fn random_texts_never_panic() {
        const ATOMS: &[&str] = &[
            "a",
            " ",
            "  ",
            "\t",
            "\n",
            "\r\n",
            "\r",
            ":",
            ": ",
            "-",
            "- ",
            ",",
            "[",
            "]",
            "{",
            "}",
            "'",
            "\"",
            "\\",
            "|",
            ">",
            "|2-",
            ">+",
            "#",
            "!t ",
            "!!",
            "&a ",
            "*a",
            "?",
            "? ",
            "\u{2028}",
            "\u{85}",
            "é",
            "---",
            "...",
            "%YAML 1.1",
            "\n  ",
            "\n    ",
            "k: ",
            "<<: ",
            "\\u",
            "\\x4",
            "\u{feff}",
        ];
        let mut state = 0x1234_5678_9abc_def0_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut read_ok = 0;
        for _ in 0..200_000 {
            let len = 1 + next(24);
            let text: String = (0..len).map(|_| ATOMS[next(ATOMS.len())]).collect();
            if let Ok(tree) = Tree::parse(&text, Context::of(&text)) {
                read_ok += 1;
                for d in tree.documents() {
                    let _ = tree.data(d.root());
                }
            }
        }
        assert!(read_ok > 1000, "{read_ok}");
    }
}
