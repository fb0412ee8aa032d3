//! Splits the input into chunks: an item, or the smallest group of items that cannot be
//! read apart (items sharing an anchor, a `List` document). Every chunk is parsed on its
//! own, so memory stays near the size of the input. Input shape only ever makes a chunk
//! bigger; where it does, the reason is typed and `--debug` shows it.

use std::collections::HashMap;

use crate::yaml::Piece;

/// How the chunks' items sit in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Frame {
    /// A multi-document manifest stream: every document is an item, or a `List` of them.
    Stream,
    /// A ResourceList whose `items` were cut out; `list` is where the items are
    /// (inside the brackets for JSON). The rest of the text is the list's skeleton.
    List { list: Piece },
    /// The whole input is one chunk, read as the single tree it is.
    Whole,
}

/// What a chunk's text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// Block sequence entries of a ResourceList's `items` (`- apiVersion: ...`).
    Entries,
    /// Documents of a stream.
    Documents,
    /// One flow (JSON) item.
    Node,
    /// The whole input.
    Whole,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunk {
    start: usize,
    end: usize,
    pub shape: Shape,
    /// Lines of the input before the chunk.
    pub line_base: usize,
}

impl Chunk {
    /// Where the chunk's text is in the input: its text, and the way its edits move
    /// into the input's.
    pub fn piece(&self) -> Piece {
        Piece::new(self.start..self.end)
    }
}

/// Why a chunk is bigger than one item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Coarser {
    /// The caller asked for one chunk (tests comparing granularities).
    Requested,
    /// The input has YAML directives (`%YAML`), which apply to the documents after them,
    /// or content after a document end marker (`... x`).
    Directives,
    /// A top-level JSON array.
    JsonArray,
    /// A byte-order mark after the start of the input.
    InnerBom,
    /// U+2028, U+2029 or NEL in an input where some chunk alone would read as JSON and
    /// the whole as YAML, or the other way round, or on a document marker's line.
    JsonOrYamlBreaks,
    /// JSON's own escapes (`\/`, surrogate pairs) in an input that starts with `{`: they
    /// are read only when the text is JSON throughout, which only the whole can say.
    JsonEscapes,
    /// Flow-style or unusually laid-out ResourceList that the splitter does not cut.
    UnusualList { line: usize, what: &'static str },
    /// A single document that mentions ResourceList but is not one the splitter reads.
    PossibleResourceList,
    /// Items that share anchors are read together.
    SharedAnchor { first_line: usize, last_line: usize },
    /// A `List` document is read as one chunk with all its items.
    ListDocument { line: usize },
    /// A chunk did not read as the items the splitter expected; the whole input is read
    /// as one tree instead (it also words any error the same way).
    ChunkUnreadable { line: usize },
}

impl Coarser {
    /// True when the reason makes the whole input one chunk (not just a group of items).
    pub fn is_whole(&self) -> bool {
        !matches!(
            self,
            Coarser::SharedAnchor { .. } | Coarser::ListDocument { .. }
        )
    }
}

impl std::fmt::Display for Coarser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Coarser::Requested => write!(f, "the whole input is one chunk (requested)"),
            Coarser::Directives => write!(
                f,
                "the input has YAML directives (%...) or content after a document end marker (...), so it is read as one chunk"
            ),
            Coarser::JsonArray => write!(f, "a top-level JSON array is read as one chunk"),
            Coarser::JsonOrYamlBreaks => write!(
                f,
                "line separators (U+2028, U+2029, NEL) on a document marker's line, or where a chunk alone would read as JSON and the input as YAML (or the other way round): read as one chunk"
            ),
            Coarser::JsonEscapes => write!(
                f,
                "JSON escapes (\\/, surrogate pairs) are read only in JSON text, which only the whole input can be: read as one chunk"
            ),
            Coarser::InnerBom => write!(
                f,
                "a byte-order mark after the start of the input: read as one chunk"
            ),
            Coarser::UnusualList { line, what } => write!(
                f,
                "line {line}: the ResourceList's items are {what}, so the whole input is one chunk"
            ),
            Coarser::PossibleResourceList => write!(
                f,
                "one document that mentions ResourceList but is not laid out as block YAML or JSON: read as one chunk"
            ),
            Coarser::SharedAnchor {
                first_line,
                last_line,
            } => write!(
                f,
                "lines {first_line}-{last_line}: items that share an anchor are read as one chunk"
            ),
            Coarser::ListDocument { line } => {
                write!(f, "line {line}: a List document is read as one chunk")
            }
            Coarser::ChunkUnreadable { line } => write!(
                f,
                "line {line}: a chunk did not read as the items expected, so the whole input is one chunk"
            ),
        }
    }
}

/// The chunks of an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub frame: Frame,
    pub chunks: Vec<Chunk>,
    pub coarser: Vec<Coarser>,
}

impl Split {
    /// The whole input as one chunk.
    pub fn whole(body: &str, why: Coarser) -> Split {
        Split {
            frame: Frame::Whole,
            chunks: vec![Chunk {
                start: 0,
                end: body.len(),
                shape: Shape::Whole,
                line_base: 0,
            }],
            coarser: vec![why],
        }
    }
}

/// The lines of a text, each as its start, its text (without the line break) and the
/// next line's start. The splitter reads every line of the input before anything runs
/// in parallel, so the lines it need not look at are passed over in a tight loop
/// ([`Lines::skip_indented`], [`Lines::skip_unless_first`]): most lines of a manifest.
struct Lines<'a> {
    src: &'a str,
    pos: usize,
    /// How many lines are behind `pos`: the line feeds before it.
    number: usize,
}

impl<'a> Lines<'a> {
    /// The lines from `pos` on, a line's start.
    fn from(src: &'a str, pos: usize) -> Self {
        let number = memchr::memchr_iter(b'\n', &src.as_bytes()[..pos]).count();
        Lines { src, pos, number }
    }

    /// The start of the line after the one that holds `at`.
    fn after(&self, at: usize) -> usize {
        memchr::memchr(b'\n', &self.src.as_bytes()[at..]).map_or(self.src.len(), |i| at + i + 1)
    }

    /// Passes the lines that start with `n` spaces (`n` at least 1).
    fn skip_indented(&mut self, n: usize) {
        let b = self.src.as_bytes();
        while b
            .get(self.pos..self.pos + n)
            .is_some_and(|start| start.iter().all(|&c| c == b' '))
        {
            self.pos = self.after(self.pos + n);
            self.number += 1;
        }
    }

    /// Passes the lines whose first byte is none of `firsts`, empty lines included.
    fn skip_unless_first(&mut self, firsts: &[u8]) {
        let b = self.src.as_bytes();
        while b.get(self.pos).is_some_and(|c| !firsts.contains(c)) {
            self.pos = self.after(self.pos);
            self.number += 1;
        }
    }
}

impl<'a> Iterator for Lines<'a> {
    type Item = (usize, &'a str, usize);

    fn next(&mut self) -> Option<Self::Item> {
        let start = self.pos;
        if start >= self.src.len() {
            return None;
        }
        let next = self.after(start);
        let line = &self.src[start..next];
        let line = line.strip_suffix('\n').unwrap_or(line);
        self.pos = next;
        self.number += 1;
        Some((start, line.strip_suffix('\r').unwrap_or(line), next))
    }
}

fn indent_of(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

fn is_blank_or_comment(line: &str) -> bool {
    let t = line.trim_start_matches([' ', '\t']);
    t.is_empty() || t.starts_with('#')
}

/// `---` or `...` at the start of a line: a document boundary.
fn is_marker(line: &str) -> bool {
    (line.starts_with("---") || line.starts_with("..."))
        && matches!(line.as_bytes().get(3), None | Some(b' ' | b'\t'))
}

/// The root mapping's `items` key alone on its line (plain or quoted).
fn is_items_key(line: &str) -> bool {
    ["items", "\"items\"", "'items'"].iter().any(|key| {
        line.strip_prefix(key)
            .map(|rest| rest.trim_start_matches(' '))
            .and_then(|rest| rest.strip_prefix(':'))
            .is_some_and(is_blank_or_comment)
    })
}

/// A block sequence entry: `-` then a space, a tab or the end of the line.
fn is_entry(rest: &str) -> bool {
    rest.starts_with('-') && matches!(rest.as_bytes().get(1), None | Some(b' ' | b'\t'))
}

/// Splits `body` into chunks of single items where it can.
pub fn split(body: &str) -> Split {
    let json = crate::yaml::breaks::reads_as_json;
    let has_breaks = has_unicode_breaks(body);
    // In YAML text go-yaml ends a line at each of them (a comment too), so the splitter
    // must see lines where the parser does: it reads a copy of the same length with the
    // break at the end of each (blanks before a line break change no line's meaning).
    // kubectl, kustomize and kpt cut the stream at lines ended by LF: a marker line
    // that goes on past a Unicode break (`---` NEL `x`) is one line to them, and the
    // reader decides what it is.
    let marker_runs_on = || {
        body.split('\n').any(|line| {
            (line.starts_with("---") || line.starts_with("..."))
                && line.contains(crate::yaml::breaks::UNICODE_BREAKS)
        })
    };
    if has_breaks && !json(body) && marker_runs_on() {
        return Split::whole(body, Coarser::JsonOrYamlBreaks);
    }
    let split = if has_breaks && !json(body) {
        let copy = body
            .replace('\u{85}', " \n")
            .replace(['\u{2028}', '\u{2029}'], "  \n");
        let mut split = cut(&copy);
        // Line numbers count the input's own line feeds, as the tree does when it reads
        // the whole (and as editors and `sed -n` do), not the copy's added ones.
        number_lines(body, &mut split.chunks);
        split
    } else {
        cut(body)
    };
    // U+2028, U+2029 and NEL are line breaks in YAML text and characters in JSON text
    // (kubectl reads a text that starts with `{` or `[` as JSON): a chunk must not be
    // read as the other of the two.
    if split.frame != Frame::Whole && has_breaks {
        let whole = json(body);
        if split
            .chunks
            .iter()
            .any(|c| json(&body[c.start..c.end]) != whole)
        {
            return Split::whole(body, Coarser::JsonOrYamlBreaks);
        }
    }
    split
}

/// Whether the text holds NEL, LS or PS: one vectorised search for the bytes they start
/// with (0xC2, 0xE2, which start a character wherever they are), where a search per
/// character reads the whole input three times and a search for any of them decodes
/// every character.
fn has_unicode_breaks(text: &str) -> bool {
    memchr::memchr2_iter(0xC2, 0xE2, text.as_bytes()).any(|i| {
        text[i..]
            .chars()
            .next()
            .is_some_and(|c| crate::yaml::breaks::UNICODE_BREAKS.contains(&c))
    })
}

fn cut(body: &str) -> Split {
    // A BOM after the start is legal in some places and not in others (the parser
    // decides per document): read the input whole so chunks cannot decide otherwise.
    if memchr::memmem::find(body.as_bytes(), "\u{feff}".as_bytes()).is_some() {
        return Split::whole(body, Coarser::InnerBom);
    }
    let trimmed = body.trim_start_matches([' ', '\t', '\r', '\n']);
    if trimmed.starts_with('[') {
        return Split::whole(body, Coarser::JsonArray);
    }
    if trimmed.starts_with('{') {
        if let Some(split) = split_json(body) {
            return split;
        }
    }
    let Some(docs) = split_stream(body) else {
        return Split::whole(body, Coarser::Directives);
    };
    // (Directives, or content after a `...` marker: both are read whole.)
    if let [(s, e, _)] = docs.as_slice() {
        // A ResourceList must spell its kind: literally, or with an escape.
        let doc = &body[*s..*e];
        if doc.contains("ResourceList") || doc.contains('\\') {
            if let Some(split) = split_resource_list(body, *s, *e) {
                return with_anchor_groups(body, split);
            }
            return Split::whole(body, Coarser::PossibleResourceList);
        }
    }
    let chunks: Vec<Chunk> = docs
        .into_iter()
        .map(|(start, end, line_base)| Chunk {
            start,
            end,
            shape: Shape::Documents,
            line_base,
        })
        .collect();
    Split {
        frame: Frame::Stream,
        chunks,
        coarser: Vec::new(),
    }
}

/// Sets each chunk's `line_base` in one pass over the text.
fn number_lines(body: &str, chunks: &mut [Chunk]) {
    let bytes = body.as_bytes();
    let (mut pos, mut line) = (0, 0);
    for c in chunks {
        line += memchr::memchr_iter(b'\n', &bytes[pos..c.start]).count();
        pos = c.start;
        c.line_base = line;
    }
}

/// The documents of a stream, between `---`/`...` marker lines; a marker with content
/// after it (`--- {a: 1}`) starts its document. `None` for directives, and where the
/// stream holds text kubectl, kustomize and kpt never read or refuse for being where it
/// is (they cut the stream at its `---` lines and read the first document of each
/// piece): content after a `...` line before the next `---` line, a piece that starts
/// with `...`. The tree reads those inputs whole, as the tools do.
/// Each document as its start, its end and the lines before it.
fn split_stream(src: &str) -> Option<Vec<(usize, usize, usize)>> {
    let mut docs = Vec::new();
    let (mut start, mut start_line) = (0, 0);
    // Since the last `---` line: where its part starts, whether it has content (worked
    // out at its first `...` line only: most lines are never looked at twice), and
    // whether a `...` line ended its document.
    let (mut part, mut content, mut ended) = (0, None, false);
    let mut lines = Lines::from(src, 0);
    loop {
        // Until a `...` line, only a directive or a marker matters.
        if !ended {
            lines.skip_unless_first(b"%-.");
        }
        let Some((line_start, line, next)) = lines.next() else {
            break;
        };
        if line.starts_with('%') {
            return None;
        }
        if is_marker(line) {
            let rest_is_blank = is_blank_or_comment(&line[3..]);
            if line.starts_with("...") {
                let content = *content
                    .get_or_insert_with(|| !src[part..line_start].lines().all(is_blank_or_comment));
                if !rest_is_blank || !content {
                    return None;
                }
                ended = true;
            } else {
                part = if rest_is_blank { next } else { line_start };
                (content, ended) = (None, false);
            }
            docs.push((start, line_start, start_line));
            // (`lines.number` counts the marker line.)
            (start, start_line) = if line.starts_with("---") && !rest_is_blank {
                (line_start, lines.number - 1)
            } else {
                (next, lines.number)
            };
        } else if ended && !is_blank_or_comment(line) {
            return None;
        }
    }
    docs.push((start, src.len(), start_line));
    // A part of blanks and comments holds no document, unless a tab starts one of its
    // lines: go-yaml refuses that ("found character that cannot start any token"), so
    // the reader must see it.
    docs.retain(|&(s, e, _)| {
        let text = &src[s..e];
        // (The first line of content ends the look at lines; most documents have one.)
        !text.lines().all(is_blank_or_comment) || memchr::memchr(b'\t', text.as_bytes()).is_some()
    });
    Some(docs)
}

/// The items of a block ResourceList (the document at `doc_start..doc_end`) whose root
/// mapping's keys are at column 0.
fn split_resource_list(src: &str, doc_start: usize, doc_end: usize) -> Option<Split> {
    let mut lines = Lines::from(&src[..doc_end], doc_start);
    lines.find(|(_, line, _)| is_items_key(line))?;
    // Each item's start, end and line number.
    let mut items: Vec<(usize, usize, usize)> = Vec::new();
    let mut dash_col = None;
    let mut end = doc_end;
    loop {
        // Most lines are deeper than the items' dashes: passed without looking further.
        if let Some(d) = dash_col {
            lines.skip_indented(d + 1);
        }
        let number = lines.number;
        let Some((start, line, _)) = lines.next() else {
            break;
        };
        if is_blank_or_comment(line) {
            continue;
        }
        let col = indent_of(line);
        let rest = &line[col..];
        let entry = is_entry(rest);
        match dash_col {
            None if entry => dash_col = Some(col),
            None => return None,
            Some(d) if col > d => continue,
            Some(_) => {}
        }
        if entry && Some(col) == dash_col && !is_marker(line) {
            if let Some(last) = items.last_mut() {
                last.1 = start;
            }
            items.push((start, doc_end, number));
        } else if col == 0 && !rest.starts_with(['-', '\t']) && !is_marker(line) {
            // The next key of the root mapping ends the list.
            end = start;
            break;
        } else {
            // A line at or left of the dashes that is no entry and no root key: the
            // splitter cannot be sure where items end.
            return None;
        }
    }
    let last = items.last_mut()?;
    last.1 = end;
    let chunks: Vec<Chunk> = items
        .iter()
        .map(|&(start, end, line_base)| Chunk {
            start,
            end,
            shape: Shape::Entries,
            line_base,
        })
        .collect();
    Some(Split {
        frame: Frame::List {
            list: Piece::new(items[0].0..end),
        },
        chunks,
        coarser: Vec::new(),
    })
}

/// Merges chunks of ResourceList entries so that every alias is read with its anchor.
/// The scan is deliberately loose (it also sees `&x` inside strings and comments):
/// a false match only makes a chunk bigger.
fn with_anchor_groups(body: &str, mut split: Split) -> Split {
    // No `&` in the items, no anchor: every chunk stays as it is (the common case, found
    // by one fast byte search instead of a look at every byte).
    let (Some(first), Some(last)) = (split.chunks.first(), split.chunks.last()) else {
        return split;
    };
    if memchr::memchr(b'&', &body.as_bytes()[first.start..last.end]).is_none() {
        return split;
    }
    let n = split.chunks.len();
    // For each chunk, the earliest chunk it must be read with.
    let mut link: Vec<usize> = (0..n).collect();
    let mut defined: HashMap<&str, usize> = HashMap::new();
    for (j, c) in split.chunks.iter().enumerate() {
        let text = &body[c.start..c.end];
        let b = text.as_bytes();
        for (i, &ch) in b.iter().enumerate() {
            if ch != b'&' && ch != b'*' {
                continue;
            }
            let before_ok = i == 0
                || matches!(
                    b[i - 1],
                    b' ' | b'\t' | b'\n' | b'\r' | b'[' | b'{' | b',' | b':' | b'-' | b'?'
                );
            if !before_ok {
                continue;
            }
            let name_len = b[i + 1..]
                .iter()
                .position(|&c| c.is_ascii_whitespace() || b",[]{}".contains(&c))
                .unwrap_or(b.len() - i - 1);
            if name_len == 0 {
                continue;
            }
            let name = &text[i + 1..i + 1 + name_len];
            if ch == b'&' {
                defined.insert(name, j);
            } else if let Some(&d) = defined.get(name) {
                link[j] = link[j].min(d);
            }
        }
    }
    if link.iter().enumerate().all(|(j, &l)| l == j) {
        return split;
    }
    let mut groups: Vec<(usize, usize)> = Vec::new(); // chunk index ranges, backwards
    let mut end = n;
    while end > 0 {
        let mut lo = link[end - 1];
        let mut k = end - 1;
        while k > lo {
            k -= 1;
            lo = lo.min(link[k]);
        }
        groups.push((lo, end));
        end = lo;
    }
    groups.reverse();
    let old = std::mem::take(&mut split.chunks);
    for (lo, hi) in groups {
        let first = old[lo];
        let last = old[hi - 1];
        if hi - lo > 1 {
            let last_line =
                last.line_base + body[last.start..last.end].matches('\n').count().max(1);
            split.coarser.push(Coarser::SharedAnchor {
                first_line: first.line_base + 1,
                last_line,
            });
        }
        split.chunks.push(Chunk {
            end: last.end,
            ..first
        });
    }
    split
}

/// A JSON document: a ResourceList is cut into its items; any other document is one
/// chunk of a stream. `None` when the text is not plain JSON (YAML flow style, comments,
/// trailing text), which leaves it to the YAML splitter.
fn split_json(body: &str) -> Option<Split> {
    let scan = json::scan(body)?;
    // An item that is JSON may sit in a text that is not (a bare word in another item):
    // JSON's own escapes are read only when the whole is JSON, which serde_json decides.
    if ["\\/", "\\ud", "\\uD"].iter().any(|e| body.contains(e))
        && serde_json::from_str::<serde::de::IgnoredAny>(body).is_err()
    {
        return Some(Split::whole(body, Coarser::JsonEscapes));
    }
    if !scan.resource_list {
        if body.contains("ResourceList") || body.contains('\\') {
            return Some(Split::whole(body, Coarser::PossibleResourceList));
        }
        let mut chunks = vec![Chunk {
            start: 0,
            end: body.len(),
            shape: Shape::Documents,
            line_base: 0,
        }];
        number_lines(body, &mut chunks);
        return Some(Split {
            frame: Frame::Stream,
            chunks,
            coarser: Vec::new(),
        });
    }
    let Some(list) = scan.items_inner else {
        return Some(Split::whole(
            body,
            Coarser::UnusualList {
                line: 1,
                what: "not a JSON array",
            },
        ));
    };
    let mut chunks: Vec<Chunk> = scan
        .items
        .iter()
        .map(|&(s, e)| {
            // Start at the line's start when only indentation precedes the item, so that
            // columns read in the chunk are the input's columns.
            // Only blanks are looked at, never the rest of the line: one-line JSON
            // would otherwise be scanned back to its start once per item.
            let b = body.as_bytes();
            let mut ls = s;
            while ls > 0 && matches!(b[ls - 1], b' ' | b'\t') {
                ls -= 1;
            }
            let line_start = ls == 0 || b[ls - 1] == b'\n';
            let start = if line_start && ls >= list.0 { ls } else { s };
            Chunk {
                start,
                end: e,
                shape: Shape::Node,
                line_base: 0,
            }
        })
        .collect();
    number_lines(body, &mut chunks);
    Some(Split {
        frame: Frame::List {
            list: Piece::new(list.0..list.1),
        },
        chunks,
        coarser: Vec::new(),
    })
}

/// A small structural scanner for plain JSON: where the top-level object's `items`
/// elements are, and whether its `kind` is ResourceList.
mod json {
    pub struct Scan {
        pub resource_list: bool,
        /// Byte range inside the brackets of `items`, when it is an array.
        pub items_inner: Option<(usize, usize)>,
        pub items: Vec<(usize, usize)>,
    }

    struct Cursor<'a> {
        b: &'a [u8],
        i: usize,
    }

    impl Cursor<'_> {
        fn ws(&mut self) {
            while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            }
        }

        fn peek(&self) -> Option<u8> {
            self.b.get(self.i).copied()
        }

        /// A string starting at the cursor; returns its raw content range.
        fn string(&mut self) -> Option<(usize, usize)> {
            if self.peek() != Some(b'"') {
                return None;
            }
            let start = self.i + 1;
            let mut i = start;
            while i < self.b.len() {
                match self.b[i] {
                    b'\\' => i += 2,
                    b'"' => {
                        self.i = i + 1;
                        return Some((start, i));
                    }
                    b'\n' | b'\r' => return None,
                    _ => i += 1,
                }
            }
            None
        }

        /// Skips one value: a string, an object or array, or a bare literal.
        fn value(&mut self) -> Option<()> {
            match self.peek()? {
                b'"' => self.string().map(|_| ()),
                b'{' | b'[' => {
                    let mut depth = 0usize;
                    while let Some(c) = self.peek() {
                        match c {
                            b'"' => {
                                self.string()?;
                                continue;
                            }
                            b'{' | b'[' => depth += 1,
                            b'}' | b']' => {
                                depth -= 1;
                                if depth == 0 {
                                    self.i += 1;
                                    return Some(());
                                }
                            }
                            b'\'' | b'#' | b'/' | b'&' | b'*' | b'!' | b'|' | b'>' => {
                                return None;
                            }
                            _ => {}
                        }
                        self.i += 1;
                    }
                    None
                }
                _ => {
                    let start = self.i;
                    while let Some(c) = self.peek() {
                        if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r') {
                            break;
                        }
                        if !(c.is_ascii_alphanumeric() || matches!(c, b'-' | b'+' | b'.')) {
                            return None;
                        }
                        self.i += 1;
                    }
                    (self.i > start).then_some(())
                }
            }
        }
    }

    pub fn scan(src: &str) -> Option<Scan> {
        let mut c = Cursor {
            b: src.as_bytes(),
            i: 0,
        };
        let mut out = Scan {
            resource_list: false,
            items_inner: None,
            items: Vec::new(),
        };
        c.ws();
        if c.peek()? != b'{' {
            return None;
        }
        c.i += 1;
        // Separators as a YAML flow collection has them: one comma between entries, one
        // optional trailing comma, none leading. A looser reading here would cut an input
        // into chunks that parse while the whole does not.
        let mut first = true;
        loop {
            c.ws();
            if c.peek()? == b'}' {
                c.i += 1;
                break;
            }
            if !first {
                if c.peek()? != b',' {
                    return None;
                }
                c.i += 1;
                c.ws();
                if c.peek()? == b'}' {
                    c.i += 1;
                    break;
                }
            }
            first = false;
            let (ks, ke) = c.string()?;
            let key = &src[ks..ke];
            c.ws();
            if c.peek()? != b':' {
                return None;
            }
            c.i += 1;
            c.ws();
            match key {
                "kind" if c.peek() == Some(b'"') => {
                    let (vs, ve) = c.string()?;
                    out.resource_list = &src[vs..ve] == "ResourceList";
                }
                "items" if c.peek() == Some(b'[') => {
                    c.i += 1;
                    let inner_start = c.i;
                    let mut first = true;
                    loop {
                        c.ws();
                        if c.peek()? != b']' && !first {
                            if c.peek()? != b',' {
                                return None;
                            }
                            c.i += 1;
                            c.ws();
                        }
                        match c.peek()? {
                            b']' => {
                                out.items_inner = Some((inner_start, c.i));
                                c.i += 1;
                                break;
                            }
                            b'{' => {
                                let s = c.i;
                                c.value()?;
                                out.items.push((s, c.i));
                            }
                            _ => return None,
                        }
                        first = false;
                    }
                }
                _ => c.value()?,
            }
        }
        c.ws();
        (c.i == c.b.len()).then_some(out)
    }
}

/// Whether an item's text may be a ConfigMap or Secret, a producer of one, or carry a
/// renaming opt-in: the kind and annotation names must appear in it (an alias can only
/// repeat text of the same chunk), unless an escape sequence could spell them otherwise.
/// Producer kinds that hold `Secret` pass as every Secret does; `kinds` are the others
/// (from the catalog, usually none).
pub fn may_matter_before_stamping(text: &str, kinds: &[&str]) -> bool {
    // One vectorised pass over the bytes: this runs on every item of a large input.
    let b = text.as_bytes();
    // A kind starting with C or S (cert-manager's Certificate) is looked for in the same
    // pass; only others cost a scan of their own.
    let by_first = |first: char| kinds.iter().filter(move |k| k.starts_with(first));
    memchr::memchr3_iter(b'C', b'S', b'\\', b).any(|i| {
        let at = |needle: &str| b[i..].starts_with(needle.as_bytes());
        match b[i] {
            // A ConfigHash among plain manifests gets a warning.
            b'C' => at("ConfigMap") || at("ConfigHash") || by_first('C').any(|k| at(k)),
            b'S' => at("Secret") || by_first('S').any(|k| at(k)),
            _ => true,
        }
    }) || kinds
        .iter()
        .filter(|k| !k.starts_with(['C', 'S']))
        .any(|k| text.contains(k))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(src: &'a str, split: &Split) -> Vec<&'a str> {
        split.chunks.iter().map(|c| &src[c.start..c.end]).collect()
    }

    /// A chunk's line number is the line feeds before it, however the splitter got past
    /// them (lines passed unread, markers with content, `...` lines, CRLF, blank lines,
    /// a ResourceList after other lines).
    #[test]
    fn each_chunk_is_numbered_by_the_line_feeds_before_it() {
        let texts = [
            "a: 1\n---\nb: 2\n\n---\n# c\nc: 3\n",
            "--- {a: 1}\n--- |\n  x\n...\n---\nb: 2\r\n\r\n---\r\nc: 3",
            "\n\n# head\n---\napiVersion: v1\nkind: ResourceList\nitems:\n- a: 1\n  b:\n    c: 2\n\n\n- d: 3\n  # x\n-\n  e: 4\nfunctionConfig: {}\n",
            "kind: ResourceList\nitems:\n  - a: 1\n    b: 2\n  -   c: 3\n\n  - d\n",
            "kind: ResourceList\r\nitems:\r\n- a: 1\r\n  b: 2\r\n- c: 3\r\n",
            "a: 1\n\u{85}b: 2\n---\nc: 3\n",
        ];
        for text in texts {
            let split = split(text);
            assert!(split.chunks.len() > 1, "{text:?} is cut");
            for c in &split.chunks {
                let feeds = text[..c.start].matches('\n').count();
                assert_eq!(
                    c.line_base,
                    feeds,
                    "{:?} in {text:?}",
                    &text[c.start..c.end]
                );
            }
        }
    }

    /// JSON's own escapes are read only when the whole input is JSON: an input that is
    /// not (a bare word in a value or an item, a number run into a string) is read
    /// whole, JSON is still cut.
    #[test]
    fn json_escapes_in_a_text_that_is_not_json_are_read_whole() {
        let item = r#"{"kind": "ConfigMap", "data": {"u": "\/"}}"#;
        let list = |extra: &str, second: &str| {
            format!("{{\"kind\": \"ResourceList\",{extra} \"items\": [\n{item},\n{second}\n]}}\n")
        };
        for src in [
            list(" \"x\": yes,", r#"{"kind": "Secret"}"#),
            list("", r#"{"kind": Secret}"#),
            list("", r#"{"kind": "Secret", "n": 1 "m": 2}"#),
        ] {
            assert_eq!(split(&src).coarser, [Coarser::JsonEscapes], "{src}");
        }
        let strict = list(" \"x\": true,", r#"{"kind": "Secret", "n": -1.5e3}"#);
        let got = split(&strict);
        assert!(got.coarser.is_empty(), "{strict}: {:?}", got.coarser);
        assert_eq!(got.chunks.len(), 2);
    }

    #[test]
    fn splits_a_resource_list_into_item_texts() {
        let src = "apiVersion: v1\nkind: ResourceList\nitems:\n- a: 1\n  b: |\n    - not an item\n\n- c: 2\n# trailing\nfunctionConfig: {}\n";
        let got = split(src);
        assert_eq!(
            texts(src, &got),
            [
                "- a: 1\n  b: |\n    - not an item\n\n",
                "- c: 2\n# trailing\n"
            ]
        );
        let Frame::List { list } = got.frame else {
            panic!("{got:?}")
        };
        assert_eq!(
            list.of(src),
            "- a: 1\n  b: |\n    - not an item\n\n- c: 2\n# trailing\n"
        );
        assert_eq!(got.chunks[1].line_base, 7);
    }

    #[test]
    fn tab_after_dash_and_indented_items_are_entries() {
        let src = "kind: ResourceList\nitems:\n  -\ta: 1\n  - b: 2\nresults: []\n";
        let got = split(src);
        assert_eq!(texts(src, &got), ["  -\ta: 1\n", "  - b: 2\n"]);
    }

    #[test]
    fn an_unexpected_line_makes_one_chunk_instead_of_losing_items() {
        let src = "kind: ResourceList\nitems:\n  - a: 1\n x: 2\n  - b: 2\n";
        let got = split(src);
        assert_eq!(got.frame, Frame::Whole);
        assert_eq!(got.coarser, [Coarser::PossibleResourceList]);
    }

    #[test]
    fn items_sharing_an_anchor_are_one_chunk() {
        let src = "kind: ResourceList\nitems:\n- a: &x 1\n- b: 2\n- c: *x\n- d: 4\n";
        let got = split(src);
        assert_eq!(
            texts(src, &got),
            ["- a: &x 1\n- b: 2\n- c: *x\n", "- d: 4\n"]
        );
        assert_eq!(
            got.coarser,
            [Coarser::SharedAnchor {
                first_line: 3,
                last_line: 5
            }]
        );
    }

    #[test]
    fn splits_a_stream_on_markers() {
        let src = "a: 1\n---\n# only a comment\n--- # c\nb: 2\n...\n--- {c: 3}\n";
        let got = split(src);
        assert_eq!(texts(src, &got), ["a: 1\n", "b: 2\n", "--- {c: 3}\n"]);
        assert_eq!(got.frame, Frame::Stream);
        assert_eq!(split("%YAML 1.2\n---\na: 1\n").frame, Frame::Whole);
        assert_eq!(split("a: 1\n... b: 2\n").frame, Frame::Whole);
    }

    #[test]
    fn splits_a_json_resource_list_into_its_items() {
        let src = "{\"kind\": \"ResourceList\", \"items\": [\n  {\"a\": \"x]\\\"\"},\n  {\"b\": [1, {\"c\": null}]}\n], \"functionConfig\": {}}\n";
        let got = split(src);
        assert_eq!(
            texts(src, &got),
            ["  {\"a\": \"x]\\\"\"}", "  {\"b\": [1, {\"c\": null}]}"]
        );
        let Frame::List { list } = got.frame else {
            panic!("{got:?}")
        };
        assert_eq!(
            list.of(src),
            "\n  {\"a\": \"x]\\\"\"},\n  {\"b\": [1, {\"c\": null}]}\n"
        );
        // Not plain JSON (a YAML flow key), or a JSON array: one chunk.
        assert_eq!(split("{kind: ResourceList, items: []}").frame, Frame::Whole);
        assert_eq!(split("[{\"a\": 1}]").frame, Frame::Whole);
        // Separators as YAML reads a flow collection: a missing or doubled comma is not
        // cut (the whole input then reports it); a trailing one is fine.
        for bad in [
            "{\"kind\": \"ResourceList\", \"items\": [{\"a\": 1} {\"b\": 2}]}",
            "{\"kind\": \"ResourceList\", \"items\": [{\"a\": 1},, {\"b\": 2}]}",
            "{\"kind\": \"ResourceList\", \"items\": [, {\"a\": 1}]}",
            "{\"kind\": \"ResourceList\" \"items\": [{\"a\": 1}]}",
            "{, \"kind\": \"ResourceList\", \"items\": [{\"a\": 1}]}",
        ] {
            assert_eq!(split(bad).frame, Frame::Whole, "{bad}");
        }
        let trailing = "{\"kind\": \"ResourceList\", \"items\": [{\"a\": 1}, {\"b\": 2},],}";
        assert_eq!(texts(trailing, &split(trailing)).len(), 2);
    }

    #[test]
    fn the_prefilter_sees_every_source() {
        // Producers too: each catalog producer's kind must pass, or pass 1 would not
        // index what it makes; a declared one whose kind has no `Secret` in it is
        // looked for by name.
        let mut catalog = crate::model::catalog::Catalog::builtin();
        let tree = crate::yaml::parse("producers: [{group: cert-manager.io, kind: Certificate, makes: Secret, name: spec/secretName}]\n").unwrap();
        catalog.extend(
            &crate::model::extension::read(&tree, tree.documents()[0].root(), "spec").unwrap(),
        );
        let kinds = catalog.prefilter_kinds();
        assert_eq!(kinds, ["Certificate"]);
        for p in &catalog.producers {
            let text = format!("apiVersion: {}/v1\nkind: {}\n", p.group, p.kind);
            assert!(may_matter_before_stamping(&text, &kinds), "{}", p.kind);
        }
        for text in ["kind: ConfigMap", "kind: \"Secret\"", "a: \"\\x41\""] {
            assert!(may_matter_before_stamping(text, &[]), "{text}");
        }
        assert!(!may_matter_before_stamping(
            "kind: Deployment\nsecretKeyRef: {name: s}",
            &kinds
        ));
        assert!(!may_matter_before_stamping("kind: Certificate\n", &[]));
        // Kinds of any first letter: looked for in the one pass (C, S) or on their own.
        assert!(may_matter_before_stamping("kind: Widget\n", &["Widget"]));
        assert!(may_matter_before_stamping(
            "kind: Sprocket\n",
            &["Sprocket"]
        ));
        assert!(!may_matter_before_stamping(
            "kind: Gadget\n",
            &["Widget", "Cog"]
        ));
    }
}
