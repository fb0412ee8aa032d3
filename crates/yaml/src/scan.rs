//! The scanner: turns the bytes of a YAML text into tokens, as go-yaml v3's scanner does
//! (kubectl, kustomize and kpt read with it): the same tokens for the same text, the
//! same refusals. Written here from the rules, not translated: one pass over the bytes,
//! hot loops over byte classes, scalar values decoded once, while scanning, and only when
//! they differ from their source text.
//!
//! The structure is the classic one of libyaml-family scanners: implicit ("simple") keys
//! are only known to be keys when their `:` arrives, so a token that may start one waits
//! in a short queue, and the KEY (and BLOCK-MAPPING-START) tokens are inserted before it
//! then. Indentation is a stack of columns; dedenting emits BLOCK-END tokens.
//!
//! Where go-yaml departs from YAML 1.2 or from libyaml, this scanner departs with it:
//! flow collections have no indentation rule at all; a simple key is checked lazily, at
//! its `:` or when it reaches the head of the queue; a comment found between tokens runs
//! on over the comment lines that follow it (up to 511 bytes of blanks and line breaks
//! between them), skipping tabs that would otherwise be refused at the start of a line;
//! a comment right after a token on its line does not. Columns are counted in bytes:
//! every column go-yaml compares has only ASCII (indentation, indicators, properties)
//! before it on its line, so bytes and characters agree there.

use crate::chars::{
    self, CLASS, NONE, STOP_BLANK, STOP_COLON, STOP_CONTROL, STOP_FLOW, STOP_QUOTE, STOP_SPECIAL,
    Special, brk, is_alpha, is_blank, is_uri_char,
};
use crate::error::ErrorKind;

/// A refusal, before its line and column are worked out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RawError {
    pub kind: ErrorKind,
    pub at: usize,
}

pub(crate) type Result<T> = std::result::Result<T, RawError>;

fn fail<T>(kind: ErrorKind, at: usize) -> Result<T> {
    Err(RawError { kind, at })
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tok {
    StreamStart,
    StreamEnd,
    /// `data`: major * 256 + minor.
    VersionDirective,
    /// `data`: index into [`Scanner::tag_directives`].
    TagDirective,
    DocumentStart,
    DocumentEnd,
    BlockSequenceStart,
    BlockMappingStart,
    BlockEnd,
    FlowSequenceStart,
    FlowSequenceEnd,
    FlowMappingStart,
    FlowMappingEnd,
    BlockEntry,
    FlowEntry,
    /// Zero-width for an implicit key (inserted at the key's start), one byte for `?`.
    Key,
    Value,
    Alias,
    Anchor,
    /// `data`: the length of the tag's handle when it names one (`!!`, `!e!`, `!`
    /// before a suffix), 0 for a verbatim (`!<...>`) or non-specific (`!`) tag.
    Tag,
    /// `data..data2`: the decoded value in [`Decoded::text`], or `data` [`NONE`] when
    /// the value is the source text between the token's bounds (less the quotes).
    Scalar,
}

/// How a scalar is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Style {
    /// Unquoted.
    Plain,
    /// `'...'`
    SingleQuoted,
    /// `"..."`
    DoubleQuoted,
    /// `|`
    Literal,
    /// `>`
    Folded,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Token {
    pub kind: Tok,
    pub style: Style,
    pub start: u32,
    pub end: u32,
    pub data: u32,
    pub data2: u32,
    /// A block scalar's text: where its first content line starts, after its
    /// indentation (its header's end when it has none).
    pub text: u32,
}

impl Token {
    fn new(kind: Tok, start: usize, end: usize) -> Token {
        Token {
            kind,
            style: Style::Plain,
            start: start as u32,
            end: end as u32,
            data: 0,
            data2: 0,
            text: 0,
        }
    }
}

/// An implicit key that may be waiting for its `:`.
#[derive(Debug, Clone, Copy, Default)]
struct SimpleKey {
    possible: bool,
    required: bool,
    token_number: usize,
    pos: usize,
    line: u32,
    col: usize,
}

/// Values that differ from their source text (escapes, folded lines, block scalars),
/// decoded once while scanning, one after the other.
#[derive(Debug, Default)]
pub(crate) struct Decoded {
    pub text: String,
}

impl Decoded {
    fn push(&mut self, value: &str) -> (u32, u32) {
        let start = self.text.len();
        self.text.push_str(value);
        (start as u32, self.text.len() as u32)
    }
}

/// A `%TAG` directive: the handle's and the prefix's byte ranges.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TagDirective {
    pub handle: (u32, u32),
    #[allow(dead_code)]
    pub prefix: (u32, u32),
}

pub(crate) struct Scanner<'a> {
    src: &'a str,
    b: &'a [u8],
    pos: usize,
    line: u32,
    line_start: usize,
    json: bool,
    started: bool,
    ended: bool,
    flow_level: usize,
    indent: i64,
    indents: Vec<i64>,
    simple_key_allowed: bool,
    simple_keys: Vec<SimpleKey>,
    /// Simple keys saved, oldest first (token number, flow level), so the head of the
    /// queue is checked in constant time whatever the nesting.
    pending_keys: std::collections::VecDeque<(usize, usize)>,
    /// Tokens scanned and not yet taken: `queue[head..]`.
    queue: Vec<Token>,
    head: usize,
    tokens_parsed: usize,
    pub decoded: Decoded,
    pub tag_directives: Vec<TagDirective>,
    /// Reused by scalars that need decoding.
    scratch: String,
    /// In JSON text: the first escape only JSON reads (`\/`, a surrogate pair), and
    /// whether anything was taken that JSON does not have (a comment, a tag, an anchor,
    /// a plain string, a block collection...). kubectl reads a text that starts with `{`
    /// with its JSON decoder, which refuses the text whole unless it is JSON; kustomize
    /// reads it with go-yaml, which refuses the escape. So the escape is read only in
    /// JSON text: see [`Scanner::json_escape_refused`].
    json_escape: Option<(usize, ErrorKind)>,
    not_json: bool,
}

/// How a line break reads in a value: CR, LF, CRLF and NEL as LF; LS and PS as themselves.
#[inline]
fn break_value(b: &[u8], i: usize, len: usize) -> &'static str {
    if len == 3 {
        if b[i + 2] == 0xA8 {
            "\u{2028}"
        } else {
            "\u{2029}"
        }
    } else {
        "\n"
    }
}

/// Joins the lines of a flow scalar (plain or quoted) in `value`: a single LF line
/// break between them reads as a space, more as the breaks after the first; an LS or
/// PS break stays, with the breaks after it.
#[inline]
fn fold_breaks(value: &mut String, leading_break: &str, trailing_breaks: &str) {
    if leading_break == "\n" {
        if trailing_breaks.is_empty() {
            value.push(' ');
        } else {
            value.push_str(trailing_breaks);
        }
    } else {
        value.push_str(leading_break);
        value.push_str(trailing_breaks);
    }
}

impl<'a> Scanner<'a> {
    pub fn new(src: &'a str, json: bool) -> Scanner<'a> {
        // go-yaml's reader drops a byte-order mark at the start of the text.
        let bom = if src.starts_with('\u{feff}') { 3 } else { 0 };
        Scanner {
            src,
            b: src.as_bytes(),
            pos: bom,
            line: 0,
            line_start: bom,
            json,
            started: false,
            ended: false,
            flow_level: 0,
            indent: -1,
            indents: Vec::new(),
            simple_key_allowed: false,
            simple_keys: Vec::new(),
            pending_keys: std::collections::VecDeque::new(),
            queue: Vec::with_capacity(16),
            head: 0,
            tokens_parsed: 0,
            decoded: Decoded::default(),
            tag_directives: Vec::new(),
            scratch: String::new(),
            json_escape: None,
            not_json: false,
        }
    }

    /// An escape only JSON reads, in a text that turned out not to be JSON: refused as
    /// go-yaml refuses it.
    pub fn json_escape_refused(&self) -> Option<RawError> {
        let (at, kind) = self.json_escape?;
        (self.not_json || !Scanner::is_json_text(self.src)).then_some(RawError { kind, at })
    }

    /// False when a token of `src` (read as JSON text) is one JSON does not have: asked
    /// only when an escape only JSON reads was read (rare), by a second scan, so no
    /// token of any other text pays for the question.
    fn is_json_text(src: &str) -> bool {
        let mut scan = Scanner::new(src, true);
        loop {
            let Ok(t) = scan.peek() else {
                return false;
            };
            if scan.not_json || scan.beyond_json(&t) {
                return false;
            }
            if t.kind == Tok::StreamEnd {
                return true;
            }
            scan.skip();
        }
    }

    pub fn src(&self) -> &'a str {
        self.src
    }

    /// The next token, scanning as far as needed to know it.
    #[inline]
    pub fn peek(&mut self) -> Result<Token> {
        if let Some(&t) = self.queue.get(self.head) {
            // Only a token that may start an implicit key needs what follows it.
            if self
                .pending_keys
                .front()
                .is_none_or(|&(n, _)| n > self.tokens_parsed)
            {
                return Ok(t);
            }
        }
        self.fetch_more()?;
        Ok(self
            .queue
            .get(self.head)
            .copied()
            .unwrap_or_else(|| Token::new(Tok::StreamEnd, self.b.len(), self.b.len())))
    }

    /// Drops the token [`Scanner::peek`] returned.
    #[inline]
    pub fn skip(&mut self) {
        self.head += 1;
        self.tokens_parsed += 1;
        if self.head == self.queue.len() {
            self.queue.clear();
            self.head = 0;
        } else if self.head >= 64 && self.head * 2 >= self.queue.len() {
            self.queue.drain(..self.head);
            self.head = 0;
        }
    }

    /// Moves past the rest of a piece of the stream, to the next line that starts with
    /// `---` (or the end): the tools that read a stream cut it at those lines (before
    /// go-yaml sees it) and decode the first document of each piece only, so what
    /// follows that document in its piece is never scanned. Called between documents,
    /// with every token taken.
    pub fn skip_rest_of_piece(&mut self) {
        debug_assert!(self.flow_level == 0 && self.head == self.queue.len());
        let b = self.b;
        let mut next = b.len();
        let mut i = self.pos;
        // A directive is taken with its line break: the next line may be the marker.
        if (i == 0 || b[i - 1] == b'\n') && b[i..].starts_with(b"---") {
            next = i;
        }
        while next == b.len() {
            let Some(n) = b[i..].iter().position(|&c| c == b'\n') else {
                break;
            };
            i += n + 1;
            if b[i..].starts_with(b"---") {
                next = i;
            }
        }
        if next > self.pos {
            self.line += 1;
        }
        self.pos = next;
        self.line_start = next;
        self.queue.clear();
        self.head = 0;
        self.pending_keys.clear();
        for key in &mut self.simple_keys {
            key.possible = false;
        }
        self.simple_key_allowed = true;
        self.unroll_indent(-1);
        self.queue.clear();
    }

    /// A token JSON text does not have.
    fn beyond_json(&self, t: &Token) -> bool {
        match t.kind {
            Tok::Tag
            | Tok::Anchor
            | Tok::Alias
            | Tok::BlockSequenceStart
            | Tok::BlockMappingStart
            | Tok::BlockEntry
            | Tok::DocumentStart
            | Tok::DocumentEnd
            | Tok::VersionDirective
            | Tok::TagDirective => true,
            // `?`: an implicit key's KEY is zero-width.
            Tok::Key => t.end > t.start,
            Tok::Scalar => match t.style {
                Style::DoubleQuoted => false,
                Style::Plain => {
                    let text = &self.src[t.start as usize..t.end as usize];
                    !(matches!(text, "true" | "false" | "null") || json_number(text))
                }
                _ => true,
            },
            _ => false,
        }
    }

    fn fetch_more(&mut self) -> Result<()> {
        loop {
            if self.queue.len() > self.head && !self.head_is_pending_key()? {
                return Ok(());
            }
            if self.ended {
                return Ok(());
            }
            self.fetch_next()?;
        }
    }

    /// True when the token at the head of the queue may still start an implicit key:
    /// then what follows decides, and more tokens are needed.
    fn head_is_pending_key(&mut self) -> Result<bool> {
        while let Some(&(number, level)) = self.pending_keys.front() {
            let live = number >= self.tokens_parsed
                && self
                    .simple_keys
                    .get(level)
                    .is_some_and(|k| k.possible && k.token_number == number);
            if !live {
                self.pending_keys.pop_front();
                continue;
            }
            if number != self.tokens_parsed {
                return Ok(false);
            }
            if self.key_valid(level)? {
                return Ok(true);
            }
            self.pending_keys.pop_front();
            return Ok(false);
        }
        Ok(false)
    }

    /// Whether the simple key at `level` can still be a key here: on its line, within
    /// 1024 characters. A key that cannot, and had to be one, is an error.
    fn key_valid(&mut self, level: usize) -> Result<bool> {
        let key = self.simple_keys[level];
        if !key.possible {
            return Ok(false);
        }
        let far = self.pos - key.pos > 1024 && chars::char_count(&self.b[key.pos..self.pos]) > 1024;
        if key.line < self.line || far {
            if key.required {
                return fail(ErrorKind::MissingColon, key.pos);
            }
            self.simple_keys[level].possible = false;
            return Ok(false);
        }
        Ok(true)
    }

    #[inline]
    fn col(&self) -> usize {
        self.pos - self.line_start
    }

    #[inline]
    fn newline(&mut self, len: usize) {
        self.pos += len;
        self.line += 1;
        self.line_start = self.pos;
    }

    #[inline]
    fn brk(&self, i: usize) -> usize {
        brk(self.b, i, self.json)
    }

    /// Blank, line break, or the end of the text.
    #[inline]
    fn blankz(&self, i: usize) -> bool {
        match self.b.get(i) {
            None => true,
            Some(&c) => is_blank(c) || self.brk(i) > 0,
        }
    }

    #[inline]
    fn breakz(&self, i: usize) -> bool {
        i >= self.b.len() || self.brk(i) > 0
    }

    /// `---` or `...` followed by a blank, a break or the end (the caller checks the
    /// column).
    fn doc_marker_at(&self, i: usize) -> bool {
        let b = self.b;
        i + 3 <= b.len() && (b[i..i + 3] == *b"---" || b[i..i + 3] == *b"...") && self.blankz(i + 3)
    }

    fn push(&mut self, t: Token) {
        self.queue.push(t);
    }

    /// Inserts at the absolute token number `number`.
    fn insert_at(&mut self, number: usize, t: Token) {
        self.queue
            .insert(self.head + number - self.tokens_parsed, t);
    }

    fn fetch_next(&mut self) -> Result<()> {
        if !self.started {
            self.started = true;
            self.indent = -1;
            self.simple_keys.push(SimpleKey::default());
            self.simple_key_allowed = true;
            self.push(Token::new(Tok::StreamStart, self.pos, self.pos));
            return Ok(());
        }
        self.scan_to_next_token()?;
        let col = self.col() as i64;
        self.unroll_indent(col);
        let b = self.b;
        let i = self.pos;
        if i >= b.len() {
            return self.fetch_stream_end();
        }
        let c = b[i];
        if col == 0 {
            if c == b'%' {
                return self.fetch_directive();
            }
            if self.doc_marker_at(i) {
                let kind = if c == b'-' {
                    Tok::DocumentStart
                } else {
                    Tok::DocumentEnd
                };
                self.unroll_indent(-1);
                self.remove_simple_key()?;
                self.simple_key_allowed = false;
                self.pos += 3;
                self.push(Token::new(kind, i, i + 3));
                return Ok(());
            }
        }
        let flow = self.flow_level > 0;
        match c {
            b'[' => self.fetch_flow_start(Tok::FlowSequenceStart)?,
            b'{' => self.fetch_flow_start(Tok::FlowMappingStart)?,
            b']' => self.fetch_flow_end(Tok::FlowSequenceEnd)?,
            b'}' => self.fetch_flow_end(Tok::FlowMappingEnd)?,
            b',' => {
                self.remove_simple_key()?;
                self.simple_key_allowed = true;
                self.pos += 1;
                self.push(Token::new(Tok::FlowEntry, i, i + 1));
            }
            b'-' if self.blankz(i + 1) => self.fetch_block_entry()?,
            b'?' if flow || self.blankz(i + 1) => self.fetch_key()?,
            b':' if flow || self.blankz(i + 1) => self.fetch_value()?,
            b'*' => self.fetch_anchor(Tok::Alias)?,
            b'&' => self.fetch_anchor(Tok::Anchor)?,
            b'!' => self.fetch_tag()?,
            b'|' if !flow => self.fetch_block_scalar(true)?,
            b'>' if !flow => self.fetch_block_scalar(false)?,
            b'\'' => self.fetch_quoted(true)?,
            b'"' => self.fetch_quoted(false)?,
            _ => {
                let plain = !(self.blankz(i)
                    || matches!(
                        c,
                        b'-' | b'?'
                            | b':'
                            | b','
                            | b'['
                            | b']'
                            | b'{'
                            | b'}'
                            | b'#'
                            | b'&'
                            | b'*'
                            | b'!'
                            | b'|'
                            | b'>'
                            | b'\''
                            | b'"'
                            | b'%'
                            | b'@'
                            | b'`'
                    ))
                    || (c == b'-' && !b.get(i + 1).is_some_and(|&n| is_blank(n)))
                    || (!flow && (c == b'?' || c == b':') && !self.blankz(i + 1));
                if !plain {
                    if let Some(Special::Control(code)) = (CLASS[c as usize] & STOP_CONTROL != 0)
                        .then(|| chars::special(b, i, self.json))
                    {
                        return fail(ErrorKind::ControlCharacter { code }, i);
                    }
                    return fail(ErrorKind::UnexpectedCharacter, i);
                }
                self.save_simple_key()?;
                self.simple_key_allowed = false;
                let t = self.scan_plain()?;
                self.push(t);
            }
        }
        // A comment after the token on its line is the token's own: it ends at its line.
        // (A token's last character that is not a blank is its end: when the line started
        // after it, a line break was read since.)
        if let Some(last) = self.queue.last() {
            if last.kind != Tok::BlockEntry && self.line_start <= last.end as usize {
                self.line_comment()?;
            }
        }
        Ok(())
    }

    /// Skips blanks (tabs only where go-yaml allows them), comments and line breaks.
    fn scan_to_next_token(&mut self) -> Result<()> {
        let b = self.b;
        loop {
            while let Some(&c) = b.get(self.pos) {
                if c == b' ' || (c == b'\t' && (self.flow_level > 0 || !self.simple_key_allowed)) {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            if b.get(self.pos) == Some(&b'#') {
                self.comment_run()?;
            }
            let n = self.brk(self.pos);
            if n == 0 {
                return Ok(());
            }
            self.newline(n);
            if self.flow_level == 0 {
                self.simple_key_allowed = true;
            }
        }
    }

    /// Skips a comment's text, up to (not over) its line break.
    fn skip_comment_text(&mut self) -> Result<()> {
        self.not_json |= self.json;
        let b = self.b;
        let mut i = self.pos;
        loop {
            while i < b.len() && CLASS[b[i] as usize] & (STOP_SPECIAL | STOP_CONTROL) == 0 {
                i += 1;
            }
            if i >= b.len() {
                break;
            }
            match chars::special(b, i, self.json) {
                Special::Break(_) => break,
                Special::Char(n) => i += n,
                Special::Control(code) => return fail(ErrorKind::ControlCharacter { code }, i),
            }
        }
        self.pos = i;
        Ok(())
    }

    /// A comment reached between tokens, and the comment lines after it: go-yaml reads
    /// them together, looking up to 511 bytes of blanks and single-byte line breaks past
    /// each one for the next, so a tab before a `#` there is no indentation.
    fn comment_run(&mut self) -> Result<()> {
        self.skip_comment_text()?;
        let b = self.b;
        loop {
            let from = self.pos;
            let mut p = from + 1;
            let mut found = None;
            while p < from + 512 && p < b.len() {
                match b[p] {
                    b' ' | b'\t' | b'\n' | b'\r' => p += 1,
                    b'#' => {
                        found = Some(p);
                        break;
                    }
                    _ => break,
                }
            }
            let Some(hash) = found else {
                return Ok(());
            };
            if self.brk(from) == 0 {
                // The comment ended the text, or at a multi-byte break go-yaml does not
                // look past.
                return Ok(());
            }
            while self.pos < hash {
                let n = self.brk(self.pos);
                if n > 0 {
                    self.newline(n);
                } else {
                    self.pos += 1;
                }
            }
            self.skip_comment_text()?;
        }
    }

    /// A comment on the line of the token just read: up to 511 blanks, then `#`.
    fn line_comment(&mut self) -> Result<()> {
        let b = self.b;
        let mut p = self.pos;
        while p < self.pos + 512 && p < b.len() && is_blank(b[p]) {
            p += 1;
        }
        if p < self.pos + 512 && b.get(p) == Some(&b'#') {
            self.pos = p;
            self.skip_comment_text()?;
        }
        Ok(())
    }

    fn unroll_indent(&mut self, col: i64) {
        if self.flow_level > 0 {
            return;
        }
        while self.indent > col {
            self.push(Token::new(Tok::BlockEnd, self.pos, self.pos));
            self.indent = self.indents.pop().unwrap_or(-1);
        }
    }

    /// Opens a block collection at `col` if it is deeper than the current one; its
    /// start token goes at token `number` (or last) and sits at `at`.
    fn roll_indent(&mut self, col: usize, number: Option<usize>, kind: Tok, at: usize) {
        if self.flow_level > 0 {
            return;
        }
        let col = col as i64;
        if self.indent < col {
            self.indents.push(self.indent);
            self.indent = col;
            let t = Token::new(kind, at, at);
            match number {
                Some(n) => self.insert_at(n, t),
                None => self.push(t),
            }
        }
    }

    fn save_simple_key(&mut self) -> Result<()> {
        if !self.simple_key_allowed {
            return Ok(());
        }
        let col = self.col();
        let key = SimpleKey {
            possible: true,
            required: self.flow_level == 0 && self.indent == col as i64,
            token_number: self.tokens_parsed + self.queue.len() - self.head,
            pos: self.pos,
            line: self.line,
            col,
        };
        self.remove_simple_key()?;
        let level = self.simple_keys.len() - 1;
        self.simple_keys[level] = key;
        self.pending_keys.push_back((key.token_number, level));
        Ok(())
    }

    fn remove_simple_key(&mut self) -> Result<()> {
        let key = self.simple_keys.last_mut().expect("a level is always open");
        if key.possible {
            if key.required {
                return fail(ErrorKind::MissingColon, key.pos);
            }
            key.possible = false;
        }
        Ok(())
    }

    fn fetch_stream_end(&mut self) -> Result<()> {
        // go-yaml forces a new line here: no key waiting on the last line is valid now.
        if self.col() != 0 {
            self.line += 1;
        }
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        self.ended = true;
        self.push(Token::new(Tok::StreamEnd, self.pos, self.pos));
        Ok(())
    }

    fn fetch_flow_start(&mut self, kind: Tok) -> Result<()> {
        self.save_simple_key()?;
        self.simple_keys.push(SimpleKey::default());
        self.flow_level += 1;
        self.simple_key_allowed = true;
        let at = self.pos;
        self.pos += 1;
        self.push(Token::new(kind, at, at + 1));
        Ok(())
    }

    fn fetch_flow_end(&mut self, kind: Tok) -> Result<()> {
        self.remove_simple_key()?;
        if self.flow_level > 0 {
            self.flow_level -= 1;
            self.simple_keys.pop();
        }
        self.simple_key_allowed = false;
        let at = self.pos;
        self.pos += 1;
        self.push(Token::new(kind, at, at + 1));
        Ok(())
    }

    fn fetch_block_entry(&mut self) -> Result<()> {
        let at = self.pos;
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return fail(ErrorKind::BlockEntryNotAllowed, at);
            }
            self.roll_indent(self.col(), None, Tok::BlockSequenceStart, at);
        }
        // In flow context the parser refuses the entry, where it knows the context.
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        self.pos += 1;
        self.push(Token::new(Tok::BlockEntry, at, at + 1));
        Ok(())
    }

    fn fetch_key(&mut self) -> Result<()> {
        let at = self.pos;
        if self.flow_level == 0 {
            if !self.simple_key_allowed {
                return fail(ErrorKind::KeyNotAllowed, at);
            }
            self.roll_indent(self.col(), None, Tok::BlockMappingStart, at);
        }
        self.remove_simple_key()?;
        self.simple_key_allowed = self.flow_level == 0;
        self.pos += 1;
        self.push(Token::new(Tok::Key, at, at + 1));
        Ok(())
    }

    fn fetch_value(&mut self) -> Result<()> {
        let at = self.pos;
        let level = self.simple_keys.len() - 1;
        if self.key_valid(level)? {
            let key = self.simple_keys[level];
            self.insert_at(key.token_number, Token::new(Tok::Key, key.pos, key.pos));
            self.roll_indent(
                key.col,
                Some(key.token_number),
                Tok::BlockMappingStart,
                key.pos,
            );
            self.simple_keys[level].possible = false;
            self.simple_key_allowed = false;
        } else {
            if self.flow_level == 0 {
                if !self.simple_key_allowed {
                    return fail(ErrorKind::ValueNotAllowed, at);
                }
                self.roll_indent(self.col(), None, Tok::BlockMappingStart, at);
            }
            self.simple_key_allowed = self.flow_level == 0;
        }
        self.pos += 1;
        self.push(Token::new(Tok::Value, at, at + 1));
        Ok(())
    }

    fn fetch_anchor(&mut self, kind: Tok) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let b = self.b;
        let start = self.pos;
        let mut i = start + 1;
        while i < b.len() && is_alpha(b[i]) {
            i += 1;
        }
        let ends =
            self.blankz(i) || matches!(b[i], b'?' | b':' | b',' | b']' | b'}' | b'%' | b'@' | b'`');
        if i == start + 1 || !ends {
            return fail(ErrorKind::MalformedAnchor, start);
        }
        self.pos = i;
        self.push(Token::new(kind, start, i));
        Ok(())
    }

    fn fetch_tag(&mut self) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let b = self.b;
        let start = self.pos;
        let handle_len;
        if b.get(start + 1) == Some(&b'<') {
            self.pos = start + 2;
            if !self.scan_uri(false)? {
                return fail(ErrorKind::MalformedTag, start);
            }
            if b.get(self.pos) != Some(&b'>') {
                return fail(ErrorKind::MalformedTag, start);
            }
            self.pos += 1;
            handle_len = 0;
        } else {
            let mut i = start + 1;
            while i < b.len() && is_alpha(b[i]) {
                i += 1;
            }
            if b.get(i) == Some(&b'!') {
                // `!!suffix` or `!name!suffix`: the suffix may not be empty.
                i += 1;
                self.pos = i;
                if !self.scan_uri(false)? {
                    return fail(ErrorKind::MalformedTag, start);
                }
                handle_len = i - start;
            } else {
                // `!suffix`, or `!` alone (the non-specific tag).
                self.pos = i;
                let more = self.scan_uri(false)?;
                handle_len = if i > start + 1 || more { 1 } else { 0 };
            }
        }
        if !self.blankz(self.pos) {
            return fail(ErrorKind::MalformedTag, start);
        }
        let mut t = Token::new(Tok::Tag, start, self.pos);
        t.data = handle_len as u32;
        self.push(t);
        Ok(())
    }

    /// Reads URI characters and `%` escapes of one UTF-8 character each; true when it
    /// read any.
    fn scan_uri(&mut self, directive: bool) -> Result<bool> {
        let b = self.b;
        let start = self.pos;
        let mut i = start;
        let err = if directive {
            ErrorKind::MalformedDirective
        } else {
            ErrorKind::MalformedTag
        };
        while i < b.len() && (is_uri_char(b[i]) || b[i] == b'%') {
            if b[i] == b'%' {
                // One character: its first octet says how many follow.
                let mut width = 0;
                let mut k = 0;
                loop {
                    let hex = |j: usize| b.get(j).is_some_and(u8::is_ascii_hexdigit);
                    if !(b.get(i) == Some(&b'%') && hex(i + 1) && hex(i + 2)) {
                        return fail(err, i);
                    }
                    let octet = u8::from_str_radix(&self.src[i + 1..i + 3], 16).unwrap_or(0);
                    if k == 0 {
                        width = match octet {
                            0x00..=0x7F => 1,
                            0xC0..=0xDF => 2,
                            0xE0..=0xEF => 3,
                            0xF0..=0xF7 => 4,
                            _ => return fail(err, i),
                        };
                    } else if octet & 0xC0 != 0x80 {
                        return fail(err, i);
                    }
                    i += 3;
                    k += 1;
                    if k == width {
                        break;
                    }
                }
            } else {
                i += 1;
            }
        }
        self.pos = i;
        Ok(i > start)
    }

    fn fetch_directive(&mut self) -> Result<()> {
        self.unroll_indent(-1);
        self.remove_simple_key()?;
        self.simple_key_allowed = false;
        let b = self.b;
        let start = self.pos;
        let mut i = start + 1;
        while i < b.len() && is_alpha(b[i]) {
            i += 1;
        }
        if i == start + 1 || !self.blankz(i) {
            return fail(ErrorKind::MalformedDirective, start);
        }
        let name = &b[start + 1..i];
        self.pos = i;
        let mut token;
        if name == b"YAML" {
            self.skip_blanks();
            let major = self.version_number(start)?;
            if b.get(self.pos) != Some(&b'.') {
                return fail(ErrorKind::MalformedDirective, start);
            }
            self.pos += 1;
            let minor = self.version_number(start)?;
            token = Token::new(Tok::VersionDirective, start, self.pos);
            token.data = major * 256 + minor;
        } else if name == b"TAG" {
            self.skip_blanks();
            let h = self.pos;
            if b.get(h) != Some(&b'!') {
                return fail(ErrorKind::MalformedDirective, start);
            }
            let mut j = h + 1;
            while j < b.len() && is_alpha(b[j]) {
                j += 1;
            }
            if b.get(j) == Some(&b'!') {
                j += 1;
            } else if j != h + 1 {
                return fail(ErrorKind::MalformedDirective, start);
            }
            if !b.get(j).is_some_and(|&c| is_blank(c)) {
                return fail(ErrorKind::MalformedDirective, start);
            }
            self.pos = j;
            self.skip_blanks();
            let p = self.pos;
            if !self.scan_uri(true)? || !self.blankz(self.pos) {
                return fail(ErrorKind::MalformedDirective, start);
            }
            self.tag_directives.push(TagDirective {
                handle: (h as u32, j as u32),
                prefix: (p as u32, self.pos as u32),
            });
            token = Token::new(Tok::TagDirective, start, self.pos);
            token.data = (self.tag_directives.len() - 1) as u32;
        } else {
            return fail(ErrorKind::UnknownDirective, start);
        }
        self.skip_blanks();
        if b.get(self.pos) == Some(&b'#') {
            self.skip_comment_text()?;
        }
        if !self.breakz(self.pos) {
            return fail(ErrorKind::MalformedDirective, start);
        }
        let n = self.brk(self.pos);
        if n > 0 {
            self.newline(n);
        }
        self.push(token);
        Ok(())
    }

    fn skip_blanks(&mut self) {
        while self.b.get(self.pos).is_some_and(|&c| is_blank(c)) {
            self.pos += 1;
        }
    }

    /// One or two digits of a `%YAML` version.
    fn version_number(&mut self, start: usize) -> Result<u32> {
        let b = self.b;
        let mut value = 0;
        let mut len = 0;
        while let Some(&c) = b.get(self.pos).filter(|c| c.is_ascii_digit()) {
            len += 1;
            if len > 2 {
                return fail(ErrorKind::MalformedDirective, start);
            }
            value = value * 10 + u32::from(c - b'0');
            self.pos += 1;
        }
        if len == 0 {
            return fail(ErrorKind::MalformedDirective, start);
        }
        Ok(value)
    }

    fn fetch_block_scalar(&mut self, literal: bool) -> Result<()> {
        self.remove_simple_key()?;
        self.simple_key_allowed = true;
        let t = self.scan_block_scalar(literal)?;
        self.push(t);
        Ok(())
    }

    fn fetch_quoted(&mut self, single: bool) -> Result<()> {
        self.save_simple_key()?;
        self.simple_key_allowed = false;
        let t = self.scan_quoted(single)?;
        self.push(t);
        Ok(())
    }

    /// A plain scalar: words separated by blanks, continued over line breaks (folded)
    /// while the next line is indented deeper than the block (or in flow context).
    /// Trailing blanks and line breaks are read too, but are not part of it.
    fn scan_plain(&mut self) -> Result<Token> {
        let b = self.b;
        let src = self.src;
        let flow = self.flow_level > 0;
        let indent = self.indent + 1;
        let start = self.pos;
        let mut end = start;
        let stop = STOP_BLANK
            | STOP_SPECIAL
            | STOP_COLON
            | STOP_CONTROL
            | if flow { STOP_FLOW } else { 0 };
        // The value once it differs from `src[start..end]` (after a line break).
        let mut decoding = false;
        let mut value = std::mem::take(&mut self.scratch);
        value.clear();
        let mut leading_blanks = false;
        let mut leading_break: &'static str = "";
        let mut trailing_breaks = String::new();
        // Blanks after the last word, on its line.
        let mut ws = (0, 0);
        loop {
            let i = self.pos;
            if i == self.line_start && self.doc_marker_at(i) {
                break;
            }
            if b.get(i) == Some(&b'#') {
                break;
            }
            let word = i;
            let p = self.plain_word_end(i, stop)?;
            if p > word {
                if leading_blanks {
                    if !decoding {
                        decoding = true;
                        value.push_str(&src[start..end]);
                    }
                    fold_breaks(&mut value, leading_break, &trailing_breaks);
                    trailing_breaks.clear();
                    leading_blanks = false;
                } else if decoding {
                    value.push_str(&src[ws.0..ws.1]);
                }
                if decoding {
                    value.push_str(&src[word..p]);
                }
                end = p;
            }
            self.pos = p;
            if !(b.get(p).is_some_and(|&c| is_blank(c)) || self.brk(p) > 0) {
                break;
            }
            ws = (p, p);
            self.plain_blanks(
                indent,
                &mut ws,
                &mut leading_blanks,
                &mut leading_break,
                &mut trailing_breaks,
            )?;
            if !flow && (self.col() as i64) < indent {
                break;
            }
        }
        if leading_blanks {
            self.simple_key_allowed = true;
        }
        let mut t = Token::new(Tok::Scalar, start, end);
        t.style = Style::Plain;
        (t.data, t.data2) = if decoding {
            self.decoded.push(&value)
        } else {
            (NONE, NONE)
        };
        self.scratch = value;
        Ok(t)
    }

    /// Where the word of a plain scalar that starts at `p` ends: at a blank, a line
    /// break, a `:` that a blank follows, or (`stop` holding [`STOP_FLOW`]) a flow
    /// indicator.
    #[inline]
    fn plain_word_end(&self, mut p: usize, stop: u8) -> Result<usize> {
        let b = self.b;
        loop {
            while p < b.len() && CLASS[b[p] as usize] & stop == 0 {
                p += 1;
            }
            let Some(&c) = b.get(p) else { break };
            let class = CLASS[c as usize];
            if class & STOP_COLON != 0 {
                if self.blankz(p + 1) {
                    break;
                }
                p += 1;
            } else if class & (STOP_FLOW | STOP_BLANK) != 0 {
                break;
            } else {
                match chars::special(b, p, self.json) {
                    Special::Break(_) => break,
                    Special::Char(n) => p += n,
                    Special::Control(code) => {
                        return fail(ErrorKind::ControlCharacter { code }, p);
                    }
                }
            }
        }
        Ok(p)
    }

    /// The blanks and line breaks after a plain scalar's word, up to the next word:
    /// the blanks after the word on its line (`ws`), the first line break
    /// (`leading_break`, setting `leading_blanks`) and those after it
    /// (`trailing_breaks`). A tab in the indentation of a continuation line (left of
    /// `indent`) is refused.
    #[inline]
    fn plain_blanks(
        &mut self,
        indent: i64,
        ws: &mut (usize, usize),
        leading_blanks: &mut bool,
        leading_break: &mut &'static str,
        trailing_breaks: &mut String,
    ) -> Result<()> {
        let b = self.b;
        loop {
            let i = self.pos;
            match b.get(i) {
                Some(&c) if is_blank(c) => {
                    if *leading_blanks && c == b'\t' && ((i - self.line_start) as i64) < indent {
                        return fail(ErrorKind::TabInIndentation, i);
                    }
                    if !*leading_blanks {
                        ws.1 = i + 1;
                    }
                    self.pos += 1;
                }
                _ => {
                    let n = self.brk(i);
                    if n == 0 {
                        break;
                    }
                    if !*leading_blanks {
                        *ws = (i, i);
                        *leading_break = break_value(b, i, n);
                        *leading_blanks = true;
                    } else {
                        trailing_breaks.push_str(break_value(b, i, n));
                    }
                    self.newline(n);
                }
            }
        }
        Ok(())
    }

    /// A single- or double-quoted scalar. go-yaml has no indentation rule inside quotes;
    /// line breaks fold as in plain scalars.
    fn scan_quoted(&mut self, single: bool) -> Result<Token> {
        let b = self.b;
        let start = self.pos;
        self.pos += 1;
        let content = self.pos;
        let quote = if single { b'\'' } else { b'"' };
        let mut decoding = false;
        let mut value = std::mem::take(&mut self.scratch);
        value.clear();
        let mut trailing_breaks = String::new();
        loop {
            let i = self.pos;
            if i == self.line_start && self.doc_marker_at(i) {
                return fail(ErrorKind::DocumentMarkerInQuotedScalar, i);
            }
            if i >= b.len() {
                return fail(ErrorKind::UnterminatedQuotedScalar, start);
            }
            let leading_blanks =
                self.quoted_chars(single, content, start, &mut decoding, &mut value)?;
            if b.get(self.pos) == Some(&quote) {
                break;
            }
            self.quoted_blanks(
                content,
                leading_blanks,
                &mut decoding,
                &mut value,
                &mut trailing_breaks,
            );
        }
        let end = self.pos + 1;
        self.pos = end;
        let mut t = Token::new(Tok::Scalar, start, end);
        t.style = if single {
            Style::SingleQuoted
        } else {
            Style::DoubleQuoted
        };
        (t.data, t.data2) = if decoding {
            self.decoded.push(&value)
        } else {
            (NONE, NONE)
        };
        self.scratch = value;
        Ok(t)
    }

    /// The characters of a quoted scalar from the cursor up to a blank, a line break or
    /// its closing quote, with escapes (`\n`, `''`) decoded into `value` (`decoding`
    /// from the first one on; `content` is where the scalar's text starts). True when an
    /// escaped line break ended them: the lines join with nothing between.
    #[inline]
    fn quoted_chars(
        &mut self,
        single: bool,
        content: usize,
        start: usize,
        decoding: &mut bool,
        value: &mut String,
    ) -> Result<bool> {
        let b = self.b;
        let src = self.src;
        let stop = STOP_BLANK | STOP_SPECIAL | STOP_QUOTE | STOP_CONTROL;
        let mut leading_blanks = false;
        let mut p = self.pos;
        let mut seg = p;
        loop {
            while p < b.len() && CLASS[b[p] as usize] & stop == 0 {
                p += 1;
            }
            let Some(&c) = b.get(p) else { break };
            if c == b'\'' && single {
                if b.get(p + 1) == Some(&b'\'') {
                    if !*decoding {
                        *decoding = true;
                        value.push_str(&src[content..seg]);
                    }
                    value.push_str(&src[seg..p]);
                    value.push('\'');
                    p += 2;
                    seg = p;
                    continue;
                }
                break;
            }
            if c == b'"' && !single {
                break;
            }
            if c == b'\\' && !single {
                if !*decoding {
                    *decoding = true;
                    value.push_str(&src[content..seg]);
                }
                value.push_str(&src[seg..p]);
                let n = self.brk(p + 1);
                if n > 0 {
                    // An escaped line break: the lines join with nothing between.
                    self.newline_at(p + 1, n);
                    p = self.pos;
                    seg = p;
                    leading_blanks = true;
                    break;
                }
                p = self.escape(p, value, start)?;
                seg = p;
                continue;
            }
            if CLASS[c as usize] & (STOP_QUOTE | STOP_BLANK) != 0 && c != b'\t' {
                if c == b' ' {
                    break;
                }
                p += 1;
                continue;
            }
            if c == b'\t' {
                break;
            }
            match chars::special(b, p, self.json) {
                Special::Break(_) => break,
                Special::Char(n) => p += n,
                Special::Control(code) => {
                    return fail(ErrorKind::ControlCharacter { code }, p);
                }
            }
        }
        if !leading_blanks {
            if *decoding {
                value.push_str(&src[seg..p]);
            }
            self.pos = p;
        }
        Ok(leading_blanks)
    }

    /// The blanks and line breaks of a quoted scalar from the cursor to its next
    /// character, folded into `value` (decoding from the first line break on);
    /// `leading_blanks`: an escaped line break came just before. `trailing_breaks` is
    /// scratch space, kept between calls.
    #[inline]
    fn quoted_blanks(
        &mut self,
        content: usize,
        mut leading_blanks: bool,
        decoding: &mut bool,
        value: &mut String,
        trailing_breaks: &mut String,
    ) {
        let b = self.b;
        let mut leading_break: &'static str = "";
        let mut ws = (self.pos, self.pos);
        loop {
            let i = self.pos;
            match b.get(i) {
                Some(&c) if is_blank(c) => {
                    if !leading_blanks {
                        ws.1 = i + 1;
                    }
                    self.pos += 1;
                }
                _ => {
                    let n = self.brk(i);
                    if n == 0 {
                        break;
                    }
                    if !*decoding {
                        *decoding = true;
                        value.push_str(&self.src[content..ws.0]);
                    }
                    if !leading_blanks {
                        ws = (i, i);
                        leading_break = break_value(b, i, n);
                        leading_blanks = true;
                    } else {
                        trailing_breaks.push_str(break_value(b, i, n));
                    }
                    self.newline(n);
                }
            }
        }
        if leading_blanks {
            fold_breaks(value, leading_break, trailing_breaks);
            trailing_breaks.clear();
        } else if *decoding {
            value.push_str(&self.src[ws.0..ws.1]);
        }
    }

    fn newline_at(&mut self, at: usize, len: usize) {
        self.pos = at;
        self.newline(len);
    }

    /// Decodes the escape at `p` (a `\`) into `value`; returns the offset after it.
    fn escape(&mut self, p: usize, value: &mut String, start: usize) -> Result<usize> {
        let b = self.b;
        let Some(&c) = b.get(p + 1) else {
            return fail(ErrorKind::UnknownEscape, p);
        };
        let simple = match c {
            b'0' => Some('\0'),
            b'a' => Some('\u{7}'),
            b'b' => Some('\u{8}'),
            b't' | b'\t' => Some('\t'),
            b'n' => Some('\n'),
            b'v' => Some('\u{b}'),
            b'f' => Some('\u{c}'),
            b'r' => Some('\r'),
            b'e' => Some('\u{1b}'),
            b' ' => Some(' '),
            b'"' => Some('"'),
            b'\'' => Some('\''),
            b'\\' => Some('\\'),
            b'N' => Some('\u{85}'),
            b'_' => Some('\u{a0}'),
            b'L' => Some('\u{2028}'),
            b'P' => Some('\u{2029}'),
            // JSON's escape of `/`: go-yaml refuses it, kubectl's JSON decoder reads it.
            b'/' if self.json => {
                self.json_escape
                    .get_or_insert((p, ErrorKind::UnknownEscape));
                Some('/')
            }
            _ => None,
        };
        if let Some(ch) = simple {
            value.push(ch);
            return Ok(p + 2);
        }
        let digits = match c {
            b'x' => 2,
            b'u' => 4,
            b'U' => 8,
            _ => return fail(ErrorKind::UnknownEscape, p),
        };
        let hex = |at: usize, n: usize| -> Result<u32> {
            let Some(h) = self.src.get(at..at + n) else {
                return fail(ErrorKind::MalformedEscape, p);
            };
            if !h.bytes().all(|d| d.is_ascii_hexdigit()) {
                return fail(ErrorKind::MalformedEscape, p);
            }
            Ok(u32::from_str_radix(h, 16).unwrap_or(u32::MAX))
        };
        let code = hex(p + 2, digits)?;
        let mut next = p + 2 + digits;
        let code = if self.json && digits == 4 && (0xD800..0xDC00).contains(&code) {
            // JSON writes characters past the Basic Multilingual Plane as surrogate
            // pairs (`\ud83d\ude80`); kubectl's JSON decoder reads them.
            if b.get(next) == Some(&b'\\') && b.get(next + 1) == Some(&b'u') {
                let low = hex(next + 2, 4)?;
                if (0xDC00..0xE000).contains(&low) {
                    self.json_escape
                        .get_or_insert((p, ErrorKind::InvalidEscapedCharacter));
                    next += 6;
                    0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                } else {
                    code
                }
            } else {
                code
            }
        } else {
            code
        };
        let _ = start;
        match char::from_u32(code) {
            Some(ch) => {
                value.push(ch);
                Ok(next)
            }
            None => fail(ErrorKind::InvalidEscapedCharacter, p),
        }
    }

    /// A literal (`|`) or folded (`>`) block scalar: its header, then the lines indented
    /// at least as deep as its indentation (given by the header's digit, or the first
    /// line with content).
    fn scan_block_scalar(&mut self, literal: bool) -> Result<Token> {
        let b = self.b;
        let src = self.src;
        let start = self.pos;
        let (header_end, chomp, increment) = self.block_scalar_header(start)?;
        self.pos = header_end;
        self.skip_blanks();
        if b.get(self.pos) == Some(&b'#') {
            self.skip_comment_text()?;
        }
        if !self.breakz(self.pos) {
            return fail(ErrorKind::MalformedBlockScalarHeader, self.pos);
        }
        let n = self.brk(self.pos);
        if n > 0 {
            self.newline(n);
        }
        let mut indent = if increment > 0 {
            if self.indent >= 0 {
                self.indent as usize + increment
            } else {
                increment
            }
        } else {
            0
        };
        let mut value = String::new();
        let mut trailing_breaks = String::new();
        let mut leading_break: &'static str = "";
        let mut content_end = header_end;
        self.block_breaks(&mut indent, &mut trailing_breaks)?;
        let mut leading_blank = false;
        let mut text = None;
        while self.col() == indent && self.pos < b.len() {
            let c = b[self.pos];
            let trailing_blank = is_blank(c);
            if !literal && !leading_blank && !trailing_blank && leading_break == "\n" {
                if trailing_breaks.is_empty() {
                    value.push(' ');
                }
            } else {
                value.push_str(leading_break);
            }
            leading_break = "";
            value.push_str(&trailing_breaks);
            trailing_breaks.clear();
            leading_blank = is_blank(c);
            let line = self.pos;
            text.get_or_insert(line);
            let p = self.block_line_end(line)?;
            value.push_str(&src[line..p]);
            content_end = p;
            self.pos = p;
            let n = self.brk(p);
            if n > 0 {
                leading_break = break_value(b, p, n);
                self.newline(n);
            }
            self.block_breaks(&mut indent, &mut trailing_breaks)?;
        }
        if chomp != -1 {
            value.push_str(leading_break);
        }
        if chomp == 1 {
            value.push_str(&trailing_breaks);
        }
        let mut t = Token::new(Tok::Scalar, start, content_end);
        t.style = if literal {
            Style::Literal
        } else {
            Style::Folded
        };
        (t.data, t.data2) = self.decoded.push(&value);
        t.text = text.unwrap_or(header_end) as u32;
        Ok(t)
    }

    /// A block scalar's header after its `|` or `>` at `start`: where it ends, its
    /// chomping indicator (`-`: -1, `+`: 1, none: 0) and its indentation indicator
    /// (none: 0), written in either order.
    #[inline]
    fn block_scalar_header(&self, start: usize) -> Result<(usize, i8, usize)> {
        let b = self.b;
        let mut i = start + 1;
        let mut chomp = 0i8;
        let mut increment = 0usize;
        let chomp_of = |c: u8| if c == b'+' { 1 } else { -1 };
        match b.get(i) {
            Some(&c @ (b'+' | b'-')) => {
                chomp = chomp_of(c);
                i += 1;
                if let Some(&d) = b.get(i).filter(|d| d.is_ascii_digit()) {
                    if d == b'0' {
                        return fail(ErrorKind::MalformedBlockScalarHeader, start);
                    }
                    increment = usize::from(d - b'0');
                    i += 1;
                }
            }
            Some(&d) if d.is_ascii_digit() => {
                if d == b'0' {
                    return fail(ErrorKind::MalformedBlockScalarHeader, start);
                }
                increment = usize::from(d - b'0');
                i += 1;
                if let Some(&c @ (b'+' | b'-')) = b.get(i) {
                    chomp = chomp_of(c);
                    i += 1;
                }
            }
            _ => {}
        }
        Ok((i, chomp, increment))
    }

    /// Where the text of a block scalar's content line starting at `line` ends: at its
    /// line break, or the end of the text. A control character in it is refused.
    #[inline]
    fn block_line_end(&self, line: usize) -> Result<usize> {
        let b = self.b;
        let mut p = line;
        loop {
            while p < b.len() && CLASS[b[p] as usize] & (STOP_SPECIAL | STOP_CONTROL) == 0 {
                p += 1;
            }
            if p >= b.len() {
                break;
            }
            match chars::special(b, p, self.json) {
                Special::Break(_) => break,
                Special::Char(n) => p += n,
                Special::Control(code) => {
                    return fail(ErrorKind::ControlCharacter { code }, p);
                }
            }
        }
        Ok(p)
    }

    /// The indentation and empty lines before a block scalar's next content line; the
    /// first sets the indentation when the header did not.
    fn block_breaks(&mut self, indent: &mut usize, breaks: &mut String) -> Result<()> {
        let b = self.b;
        let mut max_indent = 0;
        loop {
            while (*indent == 0 || self.col() < *indent) && b.get(self.pos) == Some(&b' ') {
                self.pos += 1;
            }
            max_indent = max_indent.max(self.col());
            if (*indent == 0 || self.col() < *indent) && b.get(self.pos) == Some(&b'\t') {
                return fail(ErrorKind::TabInBlockScalarIndentation, self.pos);
            }
            let n = self.brk(self.pos);
            if n == 0 {
                break;
            }
            breaks.push_str(break_value(b, self.pos, n));
            self.newline(n);
        }
        if *indent == 0 {
            *indent = max_indent.max((self.indent + 1).max(1) as usize);
        }
        Ok(())
    }
}

/// A JSON number (`-0.5e3`), as JSON writes one.
fn json_number(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let from = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    if !digits(&mut i) {
        return false;
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return false;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return false;
        }
    }
    i == b.len()
}
