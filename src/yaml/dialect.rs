//! go-yaml's dialect where it differs from YAML 1.2 as saphyr-parser reads it: what
//! kubectl, kustomize and kpt read is what the function must read (and hash).
//!
//! These differences matter (the first found by `tests/kustomize_dialect.rs`, the last
//! by fuzzing):
//!
//! - go-yaml counts NEL (U+0085), LS (U+2028) and PS (U+2029) as line breaks, everywhere
//!   (YAML 1.1), and kustomize writes them raw, as breaks, into the scalars it emits. A
//!   NEL is read like LF; an LS or PS ends a line but stays in the value as itself, and
//!   the lines around it are never folded into one.
//! - go-yaml reads a `-` followed by `,`, `]` or `}` as an ordinary plain-scalar
//!   character (`{a: x -}`, `[-]`); saphyr refuses it.
//! - go-yaml takes tabs after a colon (`key:<TAB>value`) for the separating space;
//!   saphyr refuses them ("':' must be followed by a valid YAML whitespace").
//! - go-yaml ends a block scalar with an indentation indicator at a document marker
//!   before its first content line (`>1`, `---`), and at a comment indented less than
//!   the indicator says (`a: |4` then `   # c`); saphyr refuses the line.
//!
//! One more is saphyr's own miscount, not a dialect: it counts bytes for characters in
//! a directive line (`%NOTE café`), so its positions after one were off.
//!
//! The parser reads a copy in which each of those breaks is an LF (a space when only
//! breaks and blanks stand between it and a quote), each such `-` an `x`, each such
//! tab a space, each such header one without the indicator and each character outside
//! ASCII in a directive line an `x`: one character for one, so saphyr's character
//! offsets still count characters of the original, and the structure go-yaml sees is
//! the structure saphyr sees. Scalars whose text in the original holds an LS, a PS or a
//! replaced character are then read again from the original, here, as go-yaml reads
//! them. Nothing else changes: spans, and so every edit, stay offsets into the original
//! text.

use std::borrow::Cow;

use super::tree::{Limit, Node, NodeKind, Style, YamlError};

/// The characters go-yaml takes for line breaks besides CR and LF (NEL, LS, PS), in
/// YAML text; in JSON text they are characters like any other.
pub const UNICODE_BREAKS: [char; 3] = ['\u{85}', '\u{2028}', '\u{2029}'];

const NEL: &str = "\u{85}";
const LS: &str = "\u{2028}";
const PS: &str = "\u{2029}";

/// The text saphyr should parse instead of `src`, and the byte offsets (in `src`) of
/// each `-` or tab replaced; `None` when `src` holds nothing go-yaml reads differently.
pub fn parser_copy(src: &str) -> Option<(String, Vec<usize>)> {
    let b = src.as_bytes();
    let dash = |i: usize| {
        b[i] == b'-'
            && matches!(b.get(i + 1), Some(b',' | b']' | b'}'))
            && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b','))
    };
    // kubectl reads a text that starts with `{` or `[` as JSON, where these are
    // characters like any other (kustomize and kpt read JSON with go-yaml; JSON means
    // JSON, and kubectl is the last reader).
    let json = reads_as_json(src);
    let unicode_break = |i: usize| {
        let nel = b[i] == 0xc2 && b.get(i + 1) == Some(&0x85);
        let separator = b[i] == 0xe2
            && b.get(i + 1) == Some(&0x80)
            && matches!(b.get(i + 2), Some(0xa8 | 0xa9));
        !json && (nel || separator)
    };
    // `key:<TAB>value`: go-yaml takes the tab for the space saphyr insists on.
    let tab_after_colon = |i: usize| b[i] == b'\t' && i > 0 && b[i - 1] == b':';
    let ended = ended_by_markers(src, json);
    let directives = non_ascii_directives(src);
    let early = [ended.first().map(|r| r.at), directives.first().map(|d| d.0)]
        .into_iter()
        .flatten()
        .min();
    // Most texts hold none of these: skip to the bytes that could start one.
    let mut from = 0;
    let first = loop {
        let Some(i) = b[from..]
            .iter()
            .position(|&c| matches!(c, b'-' | b'\t' | 0xc2 | 0xe2))
            .map(|i| from + i)
        else {
            break early?;
        };
        if dash(i) || unicode_break(i) || tab_after_colon(i) {
            break early.map_or(i, |e| e.min(i));
        }
        from = i + 1;
    };
    let mut ended = ended.iter().peekable();
    let mut directives = directives.iter().peekable();
    let mut out = String::with_capacity(src.len());
    out.push_str(&src[..first]);
    let mut patched = Vec::new();
    let (mut run_end, mut before_quote) = (0, false);
    for (i, c) in src[first..].char_indices().map(|(i, c)| (i + first, c)) {
        while directives.next_if(|d| d.1 <= i).is_some() {}
        if !c.is_ascii() && directives.peek().is_some_and(|d| d.0 <= i) {
            patched.push(i);
            out.push('x');
            continue;
        }
        if let Some(r) = ended.next_if(|r| r.at == i) {
            if r.header {
                patched.push(i);
            }
            out.push(char::from(r.byte));
            continue;
        }
        match c {
            '\u{85}' if !json => out.push('\n'),
            '\u{2028}' | '\u{2029}' if !json => {
                // Right before a closing quote (kustomize writes `'x\u{2028}'`) the
                // break would leave the quote at column 0, which go-yaml allows and
                // saphyr does not; the scalar is read again here either way.
                // One look ahead per run of breaks and blanks, so a long run stays linear.
                if i >= run_end {
                    let rest = &src[i..];
                    let len = rest
                        .find(|c| !matches!(c, '\u{2028}' | '\u{2029}' | ' ' | '\t'))
                        .unwrap_or(rest.len());
                    run_end = i + len;
                    before_quote = matches!(rest[len..].chars().next(), Some('\'' | '"'));
                }
                out.push(if before_quote { ' ' } else { '\n' });
            }
            '-' if dash(i) => {
                patched.push(i);
                out.push('x');
            }
            // The tabs after it too: saphyr reads `: <TAB>` as go-yaml reads `:<TAB><TAB>`.
            '\t' if tab_after_colon(i)
                || (i > 0 && b[i - 1] == b'\t' && patched.last() == Some(&(i - 1))) =>
            {
                patched.push(i);
                out.push(' ');
            }
            c => out.push(c),
        }
    }
    Some((out, patched))
}

/// The lines that start with `%` (directives, where they stand between documents) and
/// hold a character outside ASCII, as byte ranges without their line break. saphyr
/// counts bytes for characters in a directive's name and parameters (its
/// `fetch_while_is_yaml_non_space` returns a byte count for a text input), so every
/// position after such a line was off by the extra bytes and edits landed in the
/// wrong place; in the copy each such character is an `x`. Where the line was text of
/// a scalar after all, the scalar is read again from the original.
fn non_ascii_directives(src: &str) -> Vec<(usize, usize)> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = b[from..].iter().position(|&c| c == b'%') {
        let at = from + p;
        let line_start = at == 0
            || matches!(b[at - 1], b'\n' | b'\r')
            || UNICODE_BREAKS.iter().any(|c| src[..at].ends_with(*c));
        from = at + 1;
        if line_start {
            let len = src[at..]
                .find(|c| matches!(c, '\n' | '\r') || UNICODE_BREAKS.contains(&c))
                .unwrap_or(src.len() - at);
            from = at + len;
            if !src[at..at + len].is_ascii() {
                out.push((at, at + len));
            }
        }
    }
    out
}

/// One ASCII byte of the copy that differs from the original: see [`ended_by_markers`].
struct Rewrite {
    at: usize,
    byte: u8,
    /// In a block scalar's header, where the value changes if the header is not one.
    header: bool,
}

/// Block scalars with an indentation indicator that have no content and end at a
/// document marker (`>1`, an empty line, `---`): go-yaml ends the scalar at any line
/// indented less than the indicator says, saphyr refuses such a line before the first
/// content line ("wrongly indented line in block scalar"), which at the top level is
/// where a marker at column 0 stands. The copy drops the indicator (`>1+` becomes `>+ `,
/// `>1` becomes `>-`) and moves the spaces of the empty lines to the end of the header
/// line, which reads as the same value at any level: the empty lines' breaks, chomped.
/// Sorted by position. Linear: a header's line and the empty lines after it are scanned
/// once.
fn ended_by_markers(src: &str, json: bool) -> Vec<Rewrite> {
    let b = src.as_bytes();
    // go-yaml's line breaks, NEL, LS and PS among them (not in JSON, as in the copy).
    let brk = |i: usize| match line_break(src, i) {
        Some((len, _)) if !json || matches!(b[i], b'\n' | b'\r') => Some(len),
        _ => None,
    };
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = b[from..].iter().position(|&c| c == b'|' || c == b'>') {
        let at = from + p;
        from = at + 1;
        let after_break = UNICODE_BREAKS.iter().any(|c| src[..at].ends_with(*c));
        if at > 0 && !matches!(b[at - 1], b' ' | b'\t' | b'\n' | b'\r') && (json || !after_break) {
            continue;
        }
        let (mut digit, mut chomp, mut end) = (None, None, at + 1);
        while let Some(&c) = b.get(end).filter(|_| end < at + 3) {
            match c {
                b'1'..=b'9' if digit.is_none() => digit = Some(usize::from(c - b'0')),
                b'+' | b'-' if chomp.is_none() => chomp = Some(c),
                _ => break,
            }
            end += 1;
        }
        let Some(indent) = digit else { continue };
        // Blanks, then a comment or the end of the line.
        let blanks = b[end..]
            .iter()
            .take_while(|&&c| matches!(c, b' ' | b'\t'))
            .count();
        from = end + blanks;
        match b.get(end + blanks) {
            None => {}
            Some(b'#') if blanks > 0 => {}
            _ if brk(end + blanks).is_some() => {}
            _ => continue,
        }
        // Nothing after a header on its line can be another one.
        let eol = (from..b.len())
            .find(|&i| brk(i).is_some())
            .unwrap_or(b.len());
        from = eol;
        // Empty lines of at most `indent` spaces, then a marker at column 0.
        let mut line = eol;
        let marker = loop {
            let Some(len) = brk(line) else {
                break false;
            };
            line += len;
            let spaces = b[line..].iter().take_while(|&&c| c == b' ').count();
            if spaces == 0 && is_document_marker(&b[line..], |i| brk(line + i).is_some()) {
                break true;
            }
            if spaces > indent || brk(line + spaces).is_none() {
                break false;
            }
            line += spaces;
        };
        from = from.max(line);
        if !marker {
            continue;
        }
        // Clip and strip read the same without content; a `-` keeps a patched character
        // inside a plain scalar's span when this was no header after all.
        let header = std::iter::once(chomp.unwrap_or(b'-')).chain(std::iter::repeat(b' '));
        out.extend((at + 1..end).zip(header).map(|(at, byte)| Rewrite {
            at,
            byte,
            header: true,
        }));
        // Character by character, as the copy is written: a NEL, LS or PS becomes the
        // LF the copy has for it.
        let region = &src[eol..line];
        let spaces = region.bytes().filter(|&c| c == b' ').count();
        let breaks = region.chars().filter(|&c| c != ' ').map(|c| match c {
            '\r' => b'\r',
            _ => b'\n',
        });
        let moved = std::iter::repeat_n(b' ', spaces).chain(breaks);
        out.extend(
            region
                .char_indices()
                .zip(moved)
                .map(|((i, _), byte)| Rewrite {
                    at: eol + i,
                    byte,
                    header: false,
                }),
        );
    }
    out
}

/// Whether a line starts with a document marker (`---` or `...` then a blank, a line
/// break, which `is_break(i)` says of the offset `i` in the line, or the end).
fn is_document_marker(line: &[u8], is_break: impl Fn(usize) -> bool) -> bool {
    (line.starts_with(b"---") || line.starts_with(b"..."))
        && (matches!(line.get(3), None | Some(b' ' | b'\t')) || is_break(3))
}

/// Byte offsets in `copy` (sorted) as offsets of the same characters in `src`.
pub fn same_chars_in(copy: &str, src: &str, offsets: &[usize]) -> Vec<usize> {
    // Only same-length replacements: every offset is the same.
    if copy.len() == src.len() {
        return offsets.to_vec();
    }
    let mut out = Vec::with_capacity(offsets.len());
    let mut chars = copy.char_indices().zip(src.char_indices());
    for &offset in offsets {
        if let Some((_, (at, _))) = chars.find(|((c, _), _)| *c >= offset) {
            out.push(at);
        }
    }
    out
}

/// How many repairs ([`Repair`]) one text may need: each costs one more parse of it. A
/// small text may take more, as long as the text parsed again stays within
/// [`MAX_UNFOLDED_BYTES`]: the whole input read as one text (when it cannot be cut into
/// items) then repairs what its items, read one by one, would.
pub const MAX_UNFOLDED: usize = 64;

/// See [`MAX_UNFOLDED`]: 4 MiB of text parsed again, a fraction of a second.
pub const MAX_UNFOLDED_BYTES: usize = 4 << 20;

/// Whether a text of `len` bytes that has had `repairs` repairs may have one more.
pub fn may_unfold(repairs: usize, len: usize) -> bool {
    repairs < MAX_UNFOLDED || (repairs + 1).saturating_mul(len) <= MAX_UNFOLDED_BYTES
}

/// A refusal of saphyr's that the parser's copy can repair, since go-yaml reads the
/// text: each repair costs one more parse, within [`MAX_UNFOLDED`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    /// A quoted scalar's continuation line, whose indentation go-yaml does not look at:
    /// indented less than the block around it (`a:\n  b: 'x\ny'`), or with a tab
    /// (`a:\n  b: 'x\n  \ty'`). See [`repair_quoted`].
    Quoted,
    /// The first non-empty line after a block scalar's header, indented less than its
    /// indentation indicator says (`a: |2` then `   # c`). go-yaml ends the scalar
    /// there, and a comment line may follow it (YAML 1.2 has such comments too). See
    /// [`lift_comment`].
    Comment,
}

impl Repair {
    /// The repair for saphyr's error `message`, if it is one the copy can make.
    pub fn for_error(message: &str) -> Option<Repair> {
        match message {
            "invalid indentation in quoted scalar" | "tab cannot be used as indentation" => {
                Some(Repair::Quoted)
            }
            "wrongly indented line in block scalar" => Some(Repair::Comment),
            _ => None,
        }
    }

    /// Makes the repair in `copy` (recording in `patched` what must be read again from
    /// `src`); false when the error `e` points at nothing it can change.
    pub fn apply(
        self,
        copy: &mut String,
        src: &str,
        patched: &mut Vec<usize>,
        e: &YamlError,
    ) -> bool {
        match self {
            Repair::Quoted => repair_quoted(copy, src, patched, e),
            Repair::Comment => lift_comment(copy, e),
        }
    }

    /// The error `e` when a text needs one repair more than [`may_unfold`] allows.
    pub fn past_limit(self, e: YamlError) -> YamlError {
        let (one, many, what, fix) = match self {
            Repair::Quoted => (
                "quoted scalar",
                "quoted scalars",
                "continue their lines less indented than the block around them, or with tabs",
                "indent their continuation lines",
            ),
            Repair::Comment => (
                "comment",
                "comments",
                "stand indented less than a block scalar's indentation indicator before its content",
                "indent the comment, or drop the indentation indicator",
            ),
        };
        YamlError {
            message: format!(
                "{}: this is the {one} past the repair limit ({MAX_UNFOLDED} {many} per text may {what}, as go-yaml allows: each costs one more parse, up to {} MiB of text parsed again); {fix}",
                e.message,
                MAX_UNFOLDED_BYTES >> 20
            ),
            limit: Some(Limit::QuotedRepairs),
            ..e
        }
    }
}

/// Moves the comment the parser refused (see [`Repair::Comment`]; its error
/// points at the `#`) to the start of its line in `copy`, where it ends the scalar for
/// saphyr as its indentation ends it for go-yaml: `   # c` becomes `#    c`. A comment
/// holds no value, so nothing is read again. False when the line is no such comment or
/// the comment already starts its line: at the top level saphyr refuses that too, and
/// the error stands (go-yaml reads it; such a document is a scalar, never an object).
fn lift_comment(copy: &mut String, e: &YamlError) -> bool {
    let Some(at) = offset_of(copy, e.line, e.column) else {
        return false;
    };
    let b = copy.as_bytes();
    let indent = b[..at].iter().rev().take_while(|&&c| c == b' ').count();
    let line_start = at - indent;
    if b[at] != b'#'
        || indent == 0
        || (line_start > 0 && !matches!(b[line_start - 1], b'\n' | b'\r'))
    {
        return false;
    }
    let mut bytes = std::mem::take(copy).into_bytes();
    bytes[line_start] = b'#';
    bytes[at] = b' ';
    // Only ASCII bytes were swapped.
    *copy = String::from_utf8(bytes).expect("still UTF-8");
    true
}

/// Makes the quoted scalar the parser refused (see [`Repair::Quoted`])
/// readable in `copy`: a continuation line's tabs become spaces, or its line breaks do
/// ([`unfold_quoted`]). The scalar is read again from the original. False when there
/// is nothing to change.
fn repair_quoted(copy: &mut String, src: &str, patched: &mut Vec<usize>, e: &YamlError) -> bool {
    if e.message != "tab cannot be used as indentation" {
        return unfold_quoted(copy, src, patched, e);
    }
    // The error points at the tab, inside the scalar being read.
    let Some(at) = offset_of(copy, e.line, e.column) else {
        return false;
    };
    let tabs: Vec<usize> = copy.as_bytes()[at..]
        .iter()
        .take_while(|&&c| c == b' ' || c == b'\t')
        .enumerate()
        .filter(|&(_, &c)| c == b'\t')
        .map(|(i, _)| at + i)
        .collect();
    blank_out(copy, src, patched, &tabs)
}

/// Turns the ASCII bytes at `at` (tabs or line breaks) of `copy` into spaces and records
/// where they are in `src`; false when there are none.
fn blank_out(copy: &mut String, src: &str, patched: &mut Vec<usize>, at: &[usize]) -> bool {
    if at.is_empty() {
        return false;
    }
    let mut bytes = std::mem::take(copy).into_bytes();
    for &i in at {
        bytes[i] = b' ';
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    *copy = String::from_utf8(bytes).expect("still UTF-8");
    patched.extend(same_chars_in(copy, src, at));
    patched.sort_unstable();
    true
}

/// Turns the line breaks of the quoted scalar the parser refused (its error `e` points
/// at the opening quote) into spaces in `copy`, so that the parser reads it as one line;
/// the scalar is read again from the original ([`reread_scalars`]), as go-yaml reads it.
/// Records the positions in `patched`; false when there is nothing to unfold.
pub fn unfold_quoted(
    copy: &mut String,
    src: &str,
    patched: &mut Vec<usize>,
    e: &YamlError,
) -> bool {
    let Some(open) = offset_of(copy, e.line, e.column) else {
        return false;
    };
    let b = copy.as_bytes();
    let quote = b[open];
    if !matches!(quote, b'\'' | b'"') {
        return false;
    }
    let mut breaks = Vec::new();
    let mut i = open + 1;
    while i < b.len() {
        match b[i] {
            b'\\' if quote == b'"' => {
                if matches!(b.get(i + 1), Some(b'\n' | b'\r')) {
                    breaks.push(i + 1);
                }
                i += 1;
            }
            b'\'' if quote == b'\'' && b.get(i + 1) == Some(&b'\'') => i += 1,
            c if c == quote => break,
            b'\n' | b'\r' => breaks.push(i),
            _ => {}
        }
        i += 1;
    }
    blank_out(copy, src, patched, &breaks)
}

/// The byte offset of a 1-based line and column (in characters) in `text`, counting
/// LF, CRLF and lone CR as line breaks, as the parser does.
fn offset_of(text: &str, line: usize, column: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut start = 0;
    for _ in 1..line {
        let next = b[start..].iter().position(|&c| c == b'\n' || c == b'\r')? + start;
        start = next
            + if b[next] == b'\r' && b.get(next + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
    }
    text[start..]
        .char_indices()
        .nth(column.checked_sub(1)?)
        .map(|(i, _)| start + i)
}

/// Whether kubectl reads `src` as JSON: it starts with `{` or `[`.
pub fn reads_as_json(src: &str) -> bool {
    matches!(src.trim_start().as_bytes().first(), Some(b'{' | b'['))
}

/// Reads again, as go-yaml does, every scalar whose text holds an LS, a PS or one of
/// the characters replaced in the copy (`patched`, sorted byte offsets into `src`).
pub fn reread_scalars(src: &str, nodes: &mut [Node<'_>], patched: &[usize]) {
    let json = reads_as_json(src);
    // Where the text of the node being read may begin at the earliest: the end of the
    // node before it (a block scalar's span starts at its content, after its header).
    let mut after = 0;
    for node in nodes.iter_mut() {
        let (start, end) = (node.span.start(), node.span.end());
        if let NodeKind::Scalar { value, style, .. } = &mut node.kind {
            let from = match style {
                Style::Literal | Style::Folded => after.min(start),
                _ => start,
            };
            if reread(src, from, end, patched, json) {
                let content = match style {
                    Style::Literal | Style::Folded => start,
                    _ => end,
                };
                if let Some(v) = read_scalar(src, from, content, end, *style, value) {
                    *value = Cow::Owned(v);
                }
            }
        }
        if matches!(node.kind, NodeKind::Scalar { .. } | NodeKind::Alias(_)) {
            after = after.max(end.min(src.len()));
        } else {
            after = after.max(start);
        }
    }
}

/// Whether `src[start..end]` holds an LS or PS, or one of the replaced characters.
fn reread(src: &str, start: usize, end: usize, patched: &[usize], json: bool) -> bool {
    let text = src.get(start..end.min(src.len())).unwrap_or("");
    let i = patched.partition_point(|&d| d < start);
    patched.get(i).is_some_and(|&d| d < end) || (!json && (text.contains(LS) || text.contains(PS)))
}

/// The value go-yaml reads from the scalar at `from..end` of `src`. For a block scalar,
/// `from` may lie before its header, which comes before `content` (where its first
/// content line starts); otherwise `content` is `end`. `parsed` is what the parser read
/// from the copy (for a block scalar, it tells the indentation the parser settled on).
/// `None` when the text is not a scalar of `style` after all; the parser's value then
/// stands.
pub fn read_scalar(
    src: &str,
    from: usize,
    content: usize,
    end: usize,
    style: Style,
    parsed: &str,
) -> Option<String> {
    let b = src.as_bytes();
    match style {
        Style::SingleQuoted | Style::DoubleQuoted => {
            quoted(src, skip_properties(b, from), style == Style::SingleQuoted)
        }
        Style::Plain => src
            .get(skip_properties(b, from)..end.min(src.len()))
            .map(plain),
        Style::Literal | Style::Folded => block(
            src,
            header(src, from, content)?,
            style == Style::Literal,
            parsed,
        ),
    }
}

/// The block scalar indicator (`|` or `>`) between `from` and `content`: the first one
/// after a blank or `:`, followed by indentation and chomping indicators, then a blank,
/// a line break or the end.
fn header(src: &str, from: usize, content: usize) -> Option<usize> {
    let b = src.as_bytes();
    (from..content.min(b.len())).find(|&i| {
        matches!(b[i], b'|' | b'>')
            && (i == 0 || matches!(b[i - 1], b' ' | b'\t' | b':' | b'\n' | b'\r'))
            && {
                let rest = b[i + 1..]
                    .iter()
                    .skip_while(|c| matches!(c, b'+' | b'-' | b'1'..=b'9'));
                matches!(
                    rest.clone().next(),
                    None | Some(b' ' | b'\t' | b'\n' | b'\r' | 0xc2 | 0xe2)
                )
            }
    })
}

/// Past a node's tag and anchor (`!!str &a "x"`).
fn skip_properties(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b'!' | b'&')) {
        while i < b.len() && !matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
            i += 1;
        }
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
    }
    i
}

/// A go-yaml line break at `i`: its length in bytes and what it adds to a value (LF for
/// CR, LF, CRLF and NEL; LS and PS stay themselves).
fn line_break(s: &str, i: usize) -> Option<(usize, &'static str)> {
    let rest = s.as_bytes().get(i..)?;
    match rest {
        [b'\r', b'\n', ..] => Some((2, "\n")),
        [b'\r' | b'\n', ..] => Some((1, "\n")),
        _ if rest.starts_with(NEL.as_bytes()) => Some((2, "\n")),
        _ if rest.starts_with(LS.as_bytes()) => Some((3, LS)),
        _ if rest.starts_with(PS.as_bytes()) => Some((3, PS)),
        _ => None,
    }
}

fn is_blank(s: &str, i: usize) -> bool {
    matches!(s.as_bytes().get(i), Some(b' ' | b'\t'))
}

/// The character at `i` (a character boundary; '\0' past the end), never panicking.
fn next_char(s: &str, i: usize) -> char {
    s.get(i..).and_then(|r| r.chars().next()).unwrap_or('\0')
}

/// Folds the line breaks met between two pieces of a flow or plain scalar, as go-yaml
/// does: a first break that is LF-like becomes a space (or, with empty lines after it,
/// those lines' breaks); an LS or PS is kept, with every break after it.
fn join_breaks(out: &mut String, leading: &mut String, trailing: &mut String) {
    if leading.starts_with('\n') {
        if trailing.is_empty() {
            out.push(' ');
        } else {
            out.push_str(trailing);
        }
    } else {
        out.push_str(leading);
        out.push_str(trailing);
    }
    leading.clear();
    trailing.clear();
}

/// A plain scalar's text, from its first character to its last non-blank one.
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let (mut leading, mut trailing, mut spaces) = (String::new(), String::new(), String::new());
    let mut after_break = false;
    let mut i = 0;
    while i < text.len() {
        if let Some((len, brk)) = line_break(text, i) {
            if after_break {
                trailing.push_str(brk);
            } else {
                spaces.clear();
                leading.push_str(brk);
                after_break = true;
            }
            i += len;
        } else if is_blank(text, i) {
            if !after_break {
                spaces.push(char::from(text.as_bytes()[i]));
            }
            i += 1;
        } else {
            if after_break {
                join_breaks(&mut out, &mut leading, &mut trailing);
                after_break = false;
            } else {
                out.push_str(&spaces);
                spaces.clear();
            }
            let c = next_char(text, i);
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// A single- or double-quoted scalar whose opening quote is at `open`.
fn quoted(src: &str, open: usize, single: bool) -> Option<String> {
    let quote = if single { b'\'' } else { b'"' };
    let b = src.as_bytes();
    if b.get(open) != Some(&quote) {
        return None;
    }
    let mut i = open + 1;
    let mut out = String::new();
    let (mut leading, mut trailing, mut spaces) = (String::new(), String::new(), String::new());
    loop {
        let mut after_break = false;
        // A run of non-blank characters.
        while i < b.len() && !is_blank(src, i) && line_break(src, i).is_none() {
            match b[i] {
                b'\'' if single && b.get(i + 1) == Some(&b'\'') => {
                    out.push('\'');
                    i += 2;
                }
                c if c == quote => break,
                b'\\' if !single => {
                    if let Some((len, _)) = line_break(src, i + 1) {
                        // An escaped line break joins the lines with nothing between.
                        i += 1 + len;
                        after_break = true;
                        break;
                    }
                    i = escape(src, i, &mut out)?;
                }
                _ => {
                    let c = next_char(src, i);
                    out.push(c);
                    i += c.len_utf8();
                }
            }
        }
        if i >= b.len() {
            return None;
        }
        if b[i] == quote && !after_break {
            return Some(out);
        }
        // Blanks and line breaks up to the next non-blank character.
        loop {
            if is_blank(src, i) {
                if !after_break {
                    spaces.push(char::from(b[i]));
                }
                i += 1;
            } else if let Some((len, brk)) = line_break(src, i) {
                if after_break {
                    trailing.push_str(brk);
                } else {
                    spaces.clear();
                    leading.push_str(brk);
                    after_break = true;
                }
                i += len;
            } else {
                break;
            }
        }
        if after_break {
            join_breaks(&mut out, &mut leading, &mut trailing);
        } else {
            out.push_str(&spaces);
            spaces.clear();
        }
    }
}

/// One escape sequence of a double-quoted scalar at `i` (the backslash): appends what it
/// means and returns the offset after it. Beyond go-yaml, `\/` (JSON) and UTF-16
/// surrogate pairs (`\ud83d\ude80`, what JSON writers emit) are read, as the parser reads
/// them.
fn escape(src: &str, i: usize, out: &mut String) -> Option<usize> {
    let b = src.as_bytes();
    let simple = match *b.get(i + 1)? {
        b'0' => '\0',
        b'a' => '\u{7}',
        b'b' => '\u{8}',
        b't' | b'\t' => '\t',
        b'n' => '\n',
        b'v' => '\u{b}',
        b'f' => '\u{c}',
        b'r' => '\r',
        b'e' => '\u{1b}',
        b' ' => ' ',
        b'"' => '"',
        b'\'' => '\'',
        b'\\' => '\\',
        b'/' => '/',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        b'x' | b'u' | b'U' => {
            let digits = match b[i + 1] {
                b'x' => 2,
                b'u' => 4,
                _ => 8,
            };
            let hex = |at: usize, n: usize| {
                src.get(at..at + n)
                    .filter(|h| h.bytes().all(|c| c.is_ascii_hexdigit()))
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            };
            let code = hex(i + 2, digits)?;
            let mut next = i + 2 + digits;
            let code = if (0xd800..0xdc00).contains(&code) && src[next..].starts_with("\\u") {
                let low = hex(next + 2, 4).filter(|l| (0xdc00..0xe000).contains(l))?;
                next += 6;
                0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00)
            } else {
                code
            };
            out.push(char::from_u32(code)?);
            return Some(next);
        }
        _ => return None,
    };
    out.push(simple);
    Some(i + 2)
}

/// A literal (`|`) or folded (`>`) block scalar whose indicator is at `open`.
///
/// The content's indentation is the one the parser settled on (the copy has the same
/// lines): the first content line's indentation in the source less the spaces the
/// parser kept at the start of that line in its value.
fn block(src: &str, open: usize, literal: bool, parsed: &str) -> Option<String> {
    let b = src.as_bytes();
    if !matches!(b.get(open), Some(b'|' | b'>')) {
        return None;
    }
    let mut i = open + 1;
    let mut chomp = 0i8;
    while let Some(&c) = b.get(i) {
        match c {
            b'+' => chomp = 1,
            b'-' => chomp = -1,
            b'1'..=b'9' => {}
            _ => break,
        }
        i += 1;
    }
    // The rest of the header line: blanks and a comment.
    while i < b.len() && line_break(src, i).is_none() {
        i += next_char(src, i).len_utf8();
    }
    if let Some((len, _)) = line_break(src, i) {
        i += len;
    }
    let indent = content_indent(src, i, parsed);

    let (mut out, mut leading, mut trailing) = (String::new(), String::new(), String::new());
    let mut column = empty_lines(src, &mut i, indent, &mut trailing);
    let mut leading_blank = false;
    while column == indent
        && i < b.len()
        && !(indent == 0 && is_document_marker(&b[i..], |k| line_break(src, i + k).is_some()))
    {
        let trailing_blank = is_blank(src, i);
        if !literal && !leading_blank && !trailing_blank && leading.starts_with('\n') {
            if trailing.is_empty() {
                out.push(' ');
            }
        } else {
            out.push_str(&leading);
        }
        leading.clear();
        out.push_str(&trailing);
        trailing.clear();
        leading_blank = is_blank(src, i);
        while i < b.len() && line_break(src, i).is_none() {
            let c = next_char(src, i);
            out.push(c);
            i += c.len_utf8();
        }
        if let Some((len, brk)) = line_break(src, i) {
            leading.push_str(brk);
            i += len;
        }
        column = empty_lines(src, &mut i, indent, &mut trailing);
    }
    if chomp != -1 {
        out.push_str(&leading);
    }
    if chomp == 1 {
        out.push_str(&trailing);
    }
    Some(out)
}

/// Skips indentation (up to `indent` spaces) and empty lines from the start of a line
/// at `i`, collecting their breaks; returns the column reached.
fn empty_lines(src: &str, i: &mut usize, indent: usize, breaks: &mut String) -> usize {
    loop {
        let mut column = 0;
        while column < indent && src.as_bytes().get(*i) == Some(&b' ') {
            *i += 1;
            column += 1;
        }
        match line_break(src, *i) {
            Some((len, brk)) => {
                breaks.push_str(brk);
                *i += len;
            }
            None => return column,
        }
    }
}

/// The indentation of a block scalar's content starting at `i`: see [`block`]. A
/// scalar without content lines gets one no line reaches.
fn content_indent(src: &str, mut i: usize, parsed: &str) -> usize {
    let empty = parsed.bytes().take_while(|&c| c == b'\n').count();
    let rest = &parsed[empty..];
    if rest.is_empty() {
        return usize::MAX;
    }
    let kept = rest.bytes().take_while(|&c| c == b' ').count();
    // Past the empty lines before the first content line.
    for _ in 0..empty {
        while i < src.len() && line_break(src, i).is_none() {
            i += next_char(src, i).len_utf8();
        }
        match line_break(src, i) {
            Some((len, _)) => i += len,
            None => return usize::MAX,
        }
    }
    let spaces = src.as_bytes()[i.min(src.len())..]
        .iter()
        .take_while(|&&c| c == b' ')
        .count();
    // Zero for a top-level scalar whose content starts at column 0, which saphyr reads
    // (go-yaml does not: see docs/yaml-dialect.md).
    spaces.saturating_sub(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str, style: Style, parsed: &str) -> String {
        read_scalar(src, 0, src.len(), src.len(), style, parsed).unwrap()
    }

    #[test]
    fn a_small_text_may_take_more_repairs_than_a_large_one() {
        assert!(may_unfold(MAX_UNFOLDED - 1, usize::MAX));
        assert!(!may_unfold(MAX_UNFOLDED, 8 << 20));
        // 13 KB: hundreds of repairs stay within the bytes parsed again.
        assert!(may_unfold(300, 13_000));
        assert!(!may_unfold(MAX_UNFOLDED_BYTES / 13_000, 13_000));
    }

    #[test]
    fn the_copy_has_the_same_characters_with_breaks_and_dashes_replaced() {
        assert_eq!(parser_copy("a: b\n"), None);
        let (copy, dashes) = parser_copy("a: 'x\u{2028} y'\u{85}b: {c: d -}\n").unwrap();
        assert_eq!(copy, "a: 'x\n y'\nb: {c: d x}\n");
        assert_eq!(dashes, ["a: 'x\u{2028} y'\u{85}b: {c: d ".len()]);
        assert_eq!(
            copy.chars().count(),
            "a: 'x\u{2028} y'\u{85}b: {c: d -}\n".chars().count()
        );
        // A dash inside a word, or before a space, is left alone.
        assert_eq!(parser_copy("a: [x-, - y]\n"), None);
    }

    #[test]
    fn ls_and_ps_end_lines_and_stay_in_quoted_values_unfolded() {
        // What kustomize writes for "x\u2028y": the indentation after the LS is not
        // part of the value.
        assert_eq!(
            read("'x\u{2028}    y'", Style::SingleQuoted, ""),
            "x\u{2028}y"
        );
        assert_eq!(
            read("\"a\u{2029}\n\n  b\"", Style::DoubleQuoted, ""),
            "a\u{2029}\n\nb"
        );
        // LF folds to a space, NEL like LF.
        assert_eq!(read("'a\n  b'", Style::SingleQuoted, ""), "a b");
        assert_eq!(read("'a\u{85}b'", Style::SingleQuoted, ""), "a b");
        assert_eq!(
            read("\"a\\\n  b\\u2028\\n\"", Style::DoubleQuoted, ""),
            "ab\u{2028}\n"
        );
        assert_eq!(
            read("'it''s \u{2028}'", Style::SingleQuoted, ""),
            "it's\u{2028}"
        );
    }

    #[test]
    fn plain_scalars_fold_as_go_yaml_does() {
        assert_eq!(read("x -", Style::Plain, ""), "x -");
        assert_eq!(read("a\u{2028}  b c", Style::Plain, ""), "a\u{2028}b c");
        assert_eq!(read("a  \n\n  b", Style::Plain, ""), "a\nb");
    }

    #[test]
    fn block_scalars_keep_ls_as_the_line_break() {
        let src = "|\n  line1\n  line2\u{2028}  z\n";
        assert_eq!(
            read(src, Style::Literal, "line1\nline2\nz\n"),
            "line1\nline2\u{2028}z\n"
        );
        // Clip keeps the last break as it is written; folding never joins across LS.
        let src = ">\n  a\n  b\u{2028}  c\u{2029}";
        assert_eq!(read(src, Style::Folded, "a b\nc\n"), "a b\u{2028}c\u{2029}");
        // An explicit indentation: the parser's value says how much of it is content.
        let src = "|2-\n     lead\u{2028}  x\n";
        assert_eq!(read(src, Style::Literal, "   lead\nx"), "   lead\u{2028}x");
        // Keep: trailing empty lines, with their own breaks.
        let src = "|+\n  a\u{2028}\u{2029}\n";
        assert_eq!(read(src, Style::Literal, "a\n\n\n"), "a\u{2028}\u{2029}\n");
    }

    fn values(src: &str) -> Vec<String> {
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        tree.entries(root)
            .iter()
            .map(|&(_, v)| tree.str(v).unwrap().to_owned())
            .collect()
    }

    /// The value of each document's root scalar.
    fn documents(src: &str) -> Vec<String> {
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let docs = tree
            .docs
            .iter()
            .map(|d| tree.str(d.root).unwrap().to_owned());
        docs.collect()
    }

    #[test]
    fn an_empty_block_scalar_with_an_indentation_indicator_ends_at_a_document_marker() {
        // Found by fuzzing: the splitter cut the stream at `---`, the whole reading
        // refused it. go-yaml ends the scalar at the marker, as it ends it at any line
        // indented less than the indicator says.
        assert_eq!(documents(">1\n---\n.\n  ef"), ["", ". ef"]);
        // Empty lines of up to the indicator's spaces; their breaks kept with `+`.
        assert_eq!(documents(">1+ # c\n \r\n\n...\n---\nx\n"), ["\n\n", "x"]);
        assert_eq!(documents("--- |-2\n  \n---\nx\n"), ["", "x"]);
        // NEL, LS and PS end lines too (found by fuzzing: the whole reading refused).
        assert_eq!(documents(">1\u{2029}\n---\nx\n"), ["", "x"]);
        assert_eq!(documents("|-2\u{85}  \u{2028}---\nx\n"), ["", "x"]);
        assert_eq!(documents("---\u{2028}>1\n---\nx\n"), ["", "x"]);
        // Not a header after all: the plain scalar is read from the original.
        assert_eq!(values("a: x |1\n---\n"), ["x |1"]);
        // Nested, the marker ends the scalar in both readings; more spaces are content.
        assert_eq!(values("a: >1+\n \n---\n"), ["\n"]);
        assert_eq!(values("a: |1\n   \n---\n"), ["  \n"]);
        // A line with content indented less still has the parser's error.
        assert!(crate::yaml::Tree::parse(">2\n x\n---\n").is_err());
    }

    #[test]
    fn positions_after_a_directive_with_characters_outside_ascii_stay_right() {
        // Found by fuzzing: saphyr counted the directive's bytes as characters, so the
        // spans after it were off by one per extra byte and edits landed mid-key.
        for directive in [
            "%FOO é ✓",
            "%é",
            "%TAG !e! tag:é.example,2000:",
            "%YAML 1.2 # é",
        ] {
            let src = format!("{directive}\n---\nkey: value\n");
            let tree = crate::yaml::Tree::parse(&src).unwrap();
            let root = tree.docs[0].root;
            let (k, v) = tree.entries(root)[0];
            let span = |n: usize| &src[tree.nodes[n].span.start()..tree.nodes[n].span.end()];
            assert_eq!((span(k), span(v)), ("key", "value"), "{directive}");
        }
        // A `%` line that is text of a scalar is read from the original.
        assert_eq!(documents("--- |\n%é ✓\n"), ["%é ✓\n"]);
        assert_eq!(documents("--- \"a\n%é\"\n"), ["a %é"]);
        // Read again, a top-level scalar's content at column 0 is content, up to a marker.
        assert_eq!(
            documents("--- |\nx\u{2028}y\n---\nz\n"),
            ["x\u{2028}y\n", "z"]
        );
    }

    #[test]
    fn a_comment_indented_less_than_an_indentation_indicator_ends_the_scalar() {
        // kubectl kustomize reads this ConfigMap's `a` as "" (checked); saphyr refused
        // the comment line.
        assert_eq!(values("a: |3\n  # c\nb: x\n"), ["", "x"]);
        assert_eq!(values("a: |2\n   # c\nb: x\n"), [" # c\n", "x"]);
        assert_eq!(values("a: >3+\n\n  # c\n   #d\nb: x\n"), ["\n", "x"]);
        // Content indented less is still an error, as is a comment at the top level.
        assert!(crate::yaml::Tree::parse("a: |3\n  x\nb: x\n").is_err());
        assert!(crate::yaml::Tree::parse("|2\n # c\n").is_err());
    }

    #[test]
    fn a_tree_reads_what_kustomize_writes() {
        // A block scalar with an LS in an empty line before its first content line, a
        // single-quoted LS folded by kustomize's writer, an LS just before the quote.
        let src = "a: |2-\n\u{2028}    *\n    x\nb: 'x\u{2028}    y'\nc: '\u{2028}'\nd: e\n";
        // At the top level, `|2` means two spaces: the other two are content.
        assert_eq!(
            values(src),
            ["\u{2028}  *\n  x", "x\u{2028}y", "\u{2028}", "e"]
        );
        // Spans stay offsets into the original.
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let d = tree.get(tree.docs[0].root, "d").unwrap();
        assert_eq!(
            &src[tree.node(d).span.start()..tree.node(d).span.end()],
            "e"
        );
    }

    #[test]
    fn a_dash_before_a_flow_indicator_is_plain_text() {
        assert!(crate::yaml::Tree::parse("a: {b: x -}\nc: [-]\nd: [y -, z]\n").is_ok());
        let tree = crate::yaml::Tree::parse("a: {b: x -}\nc: [-]\n").unwrap();
        let root = tree.docs[0].root;
        let b = tree.get(tree.get(root, "a").unwrap(), "b").unwrap();
        assert_eq!(tree.str(b), Some("x -"));
        let c = tree.items(tree.get(root, "c").unwrap())[0];
        assert_eq!(tree.str(c), Some("-"));
    }

    #[test]
    fn nel_is_a_line_break_read_as_lf() {
        assert_eq!(
            values("a: 'x\u{85}  y'\u{85}b: |\u{85}  p\u{85}  q\u{85}"),
            ["x y", "p\nq\n"]
        );
    }

    #[test]
    fn quoted_lines_indented_less_than_their_block_are_read_as_go_yaml_reads_them() {
        // go-yaml has no indentation rule inside quoted scalars; saphyr has one.
        let src = "a:\n  b: 'x\ny'\n  c: \"p \u{2028} q\"\n  d: \"x\\\n y\\n\nz\"\n  e: f\n";
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let a = tree.get(tree.docs[0].root, "a").unwrap();
        let got: Vec<&str> = ["b", "c", "d", "e"]
            .iter()
            .map(|k| tree.str(tree.get(a, k).unwrap()).unwrap())
            .collect();
        assert_eq!(got, ["x y", "p\u{2028}q", "xy\n z", "f"]);
        // A tab in a continuation line's indentation, also below the block's.
        let src = "a:\n  b: 'x\n  \ty'\n  c: \"p\n\t q\"\n";
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let a = tree.get(tree.docs[0].root, "a").unwrap();
        assert_eq!(tree.str(tree.get(a, "b").unwrap()), Some("x y"));
        assert_eq!(tree.str(tree.get(a, "c").unwrap()), Some("p q"));
        assert_eq!(offset_of("ab\r\ncd\ref", 3, 2), Some(8));
    }

    #[test]
    fn a_tab_after_a_colon_is_a_separator_outside_scalars_and_text_inside() {
        let src = "a:\tb\nc: |\n  x:\ty\n   z:\t\tw\nd: 'p:\tq'\ne:\t\t[f:\tg]\n";
        let tree = crate::yaml::Tree::parse(src).unwrap();
        let root = tree.docs[0].root;
        let get = |k: &str| tree.str(tree.get(root, k).unwrap()).unwrap();
        assert_eq!(get("a"), "b");
        assert_eq!(get("c"), "x:\ty\n z:\t\tw\n");
        assert_eq!(get("d"), "p:\tq");
        assert!(tree.is_seq(tree.get(root, "e").unwrap()));
    }

    #[test]
    fn json_keeps_raw_separators_as_characters() {
        assert_eq!(parser_copy("{\"a\": \"x\u{2028}  y\"}"), None);
        let tree = crate::yaml::Tree::parse("{\"a\": \"x\u{2028}  y\u{85}\"}").unwrap();
        assert_eq!(
            tree.str(tree.get(tree.docs[0].root, "a").unwrap()),
            Some("x\u{2028}  y\u{85}")
        );
    }

    /// Texts built from the characters the dialect handles, in any order: the parser
    /// may refuse them, but reading them never panics.
    #[test]
    fn random_texts_never_panic() {
        const ATOMS: &[&str] = &[
            "a", " ", "  ", "\t", "\n", "\r\n", ":", ": ", "-", " -", ",", "[", "]", "{", "}", "'",
            "\"", "\\", "|", ">", "|2-", ">+", "#", "!t ", "&a ", "*a", "\u{2028}", "\u{2029}",
            "\u{85}", "é", "日", "\n  ", "\n    ", "k: ", "- ",
        ];
        let mut state = 0x1234_5678_9abc_def0_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..100_000 {
            let len = 1 + next(24);
            let text: String = (0..len).map(|_| ATOMS[next(ATOMS.len())]).collect();
            let _ = crate::yaml::Tree::parse(&text);
        }
    }

    /// Where go-yaml and YAML 1.2 agree (LF breaks only), reading a scalar again here
    /// gives what the parser gave: the re-reading is checked on every kind of scalar.
    #[test]
    fn reading_again_agrees_with_the_parser_on_plain_yaml() {
        const ATOMS: &[&str] = &[
            "a", "b c", " ", "  ", "\n", "\n\n", "\n  ", "\n    ", "\n      ", "'", "''", "\"",
            "\\n", "\\", "é", "x:", "#", " #c", "\t",
        ];
        let heads = [
            "k: ",
            "k: '",
            "k: \"",
            "k: |\n  ",
            "k: >\n  ",
            "k: |-\n  ",
            "k: >+\n  ",
            "- ",
            "k:\n  - |2\n    ",
        ];
        let mut state = 0x0bad_5eed_u64;
        let mut next = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        let mut compared = 0;
        for _ in 0..50_000 {
            let mut text = heads[next(heads.len())].to_owned();
            for _ in 0..1 + next(8) {
                text.push_str(ATOMS[next(ATOMS.len())]);
            }
            if text.contains("k: '") && !text.ends_with('\'') {
                text.push('\'');
            }
            if text.contains("k: \"") && !text.ends_with('"') {
                text.push('"');
            }
            text.push('\n');
            let Ok(tree) = crate::yaml::Tree::parse(&text) else {
                continue;
            };
            let mut after = 0;
            for node in &tree.nodes {
                let (start, end) = (node.span.start(), node.span.end());
                if let NodeKind::Scalar { value, style, .. } = &node.kind {
                    let (from, content) = match style {
                        Style::Literal | Style::Folded => (after.min(start), start),
                        _ => (start, end),
                    };
                    if let Some(again) = read_scalar(&text, from, content, end, *style, value) {
                        assert_eq!(&again, value, "{text:?} {style:?}");
                        compared += 1;
                    }
                    after = after.max(end);
                } else {
                    after = after.max(start);
                }
            }
        }
        assert!(compared > 10_000, "{compared}");
    }
}
