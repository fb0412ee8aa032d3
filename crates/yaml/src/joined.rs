//! Texts joined into one YAML stream, and the way back. Several files, or JSON that is
//! not one document (a top-level array of objects, or concatenated objects), are read as
//! one stream: each text, or each JSON object, one document, with `---` lines between
//! them. The stream's edits split back onto each text, and a line of the stream is
//! traced to its text's own line.

use crate::piece::Piece;
use crate::splice::Edits;

/// A part of one text that is one document of the joined stream.
#[derive(Debug, Clone, Copy)]
struct Part {
    source: usize,
    piece: Piece,
    /// Where the part starts in the joined text.
    at: usize,
}

/// Texts joined into one stream ([`Joined::text`]), with the way back to each.
#[derive(Debug)]
pub struct Joined {
    parts: Vec<Part>,
    /// The joined text, when it is not one part of one text read where it is: a large
    /// input on stdin is not copied.
    text: Option<String>,
    sources: usize,
}

/// A text that cannot be joined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JoinError {
    /// A top-level JSON array holds something other than objects (manifests).
    NotAnObject {
        /// Which text.
        source: usize,
        /// Which item of its array.
        item: usize,
    },
}

impl std::fmt::Display for JoinError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JoinError::NotAnObject { item, .. } => write!(
                f,
                "a top-level JSON array must hold only objects (manifests); item {item} is not an object"
            ),
        }
    }
}

/// Edits of the joined text that do not map back onto one text: a bug in whoever made
/// them, never a user error.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SplitError {
    /// An edit before the first part: in no text.
    BeforeTheFirstDocument,
    /// An edit over the `---` line between two parts: in two texts.
    AcrossDocuments,
}

impl std::fmt::Display for SplitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SplitError::BeforeTheFirstDocument => "an edit before the first document",
            SplitError::AcrossDocuments => "an edit across two documents (a bug in config-hash)",
        })
    }
}

/// Where the lines of a joined text come from: see [`Joined::line_index`].
#[derive(Debug)]
pub struct LineIndex {
    /// Where each line of the joined text starts.
    starts: Vec<usize>,
    /// Per part, the lines of its text before it.
    before: Vec<usize>,
}

impl Joined {
    /// Joins `sources` in order: each text one document, or, when it is JSON that is not
    /// one document, each of its objects one. A byte-order mark belongs to its text,
    /// not to the stream.
    pub fn new<S: AsRef<str>>(sources: &[S]) -> Result<Joined, JoinError> {
        let mut pieces_of = Vec::with_capacity(sources.len());
        for (i, source) in sources.iter().enumerate() {
            let text = source.as_ref();
            pieces_of.push(match json_objects(text) {
                Some(Ok(pieces)) => pieces,
                Some(Err(item)) => return Err(JoinError::NotAnObject { source: i, item }),
                None => vec![Piece::after_bom(text)],
            });
        }
        // One text read whole is not copied (see `text()`).
        let copy = !matches!(pieces_of.as_slice(), [pieces] if pieces.len() == 1);
        let mut parts = Vec::new();
        let mut joined = String::new();
        for (i, (source, pieces)) in sources.iter().zip(pieces_of).enumerate() {
            for piece in pieces {
                if !joined.is_empty() {
                    if !joined.ends_with('\n') {
                        joined.push('\n');
                    }
                    joined.push_str("---\n");
                }
                parts.push(Part {
                    source: i,
                    piece,
                    at: joined.len(),
                });
                if copy {
                    joined.push_str(piece.of(source.as_ref()));
                }
            }
        }
        Ok(Joined {
            parts,
            text: copy.then_some(joined),
            sources: sources.len(),
        })
    }

    /// The joined text (`---` lines between the parts); `sources` are the texts it was
    /// joined from.
    pub fn text<'a, S: AsRef<str>>(&'a self, sources: &'a [S]) -> &'a str {
        match (&self.text, self.parts.as_slice()) {
            (Some(text), _) => text,
            (None, [part]) => part.piece.of(sources[part.source].as_ref()),
            (None, _) => "",
        }
    }

    /// True when the joined text is one text read whole (after its byte-order mark):
    /// it can be read in place of the stream.
    pub fn is_one_text<S: AsRef<str>>(&self, sources: &[S]) -> bool {
        self.sources == 1
            && matches!(self.parts.as_slice(), [p] if p.piece == Piece::after_bom(sources[p.source].as_ref()))
    }

    /// The edits of the joined text as edits of each text it was joined from, in order.
    pub fn split(&self, edits: &Edits) -> Result<Vec<Edits>, SplitError> {
        let mut out: Vec<Vec<(usize, usize, String)>> = vec![Vec::new(); self.sources];
        for (start, end, text) in edits.parts() {
            let idx = self
                .parts
                .partition_point(|p| p.at <= *start)
                .checked_sub(1)
                .ok_or(SplitError::BeforeTheFirstDocument)?;
            let part = &self.parts[idx];
            let range = part.piece.range();
            let offset = range.start + (start - part.at);
            let len = end - start;
            if offset + len > range.end {
                return Err(SplitError::AcrossDocuments);
            }
            out[part.source].push((offset, offset + len, text.clone()));
        }
        Ok(out.into_iter().map(Edits::from_parts).collect())
    }

    /// The text and its 1-based line that line `line` (1-based) of the joined text
    /// comes from, found by reading the texts (see [`Joined::line_index`] for many
    /// lines). `None` when there is no text.
    pub fn locate<S: AsRef<str>>(&self, sources: &[S], line: usize) -> Option<(usize, usize)> {
        let line_start = self
            .text(sources)
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum::<usize>();
        let idx = self
            .parts
            .partition_point(|p| p.at <= line_start)
            .saturating_sub(1);
        let part = self.parts.get(idx)?;
        let text = sources[part.source].as_ref();
        let range = part.piece.range();
        let at = (range.start + line_start.saturating_sub(part.at)).min(range.end);
        Some((part.source, text[..at].matches('\n').count() + 1))
    }

    /// Where the lines of the joined text come from, for [`Joined::source_line`]: built
    /// once, so that many lines cost one pass over the text.
    pub fn line_index<S: AsRef<str>>(&self, sources: &[S]) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(self.text(sources).match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        LineIndex {
            starts,
            before: self.lines_before_parts(sources),
        }
    }

    /// Per part, the lines of its text before it, counted once per text.
    fn lines_before_parts<S: AsRef<str>>(&self, sources: &[S]) -> Vec<usize> {
        let mut before = Vec::with_capacity(self.parts.len());
        let mut counted: Option<(usize, usize, usize)> = None; // (source, offset, lines)
        for part in &self.parts {
            let (from, lines) = match counted {
                Some((source, offset, lines)) if source == part.source => (offset, lines),
                _ => (0, 0),
            };
            let text = sources[part.source].as_ref();
            let start = part.piece.range().start;
            let lines = lines
                + text.as_bytes()[from..start]
                    .iter()
                    .filter(|&&b| b == b'\n')
                    .count();
            before.push(lines);
            counted = Some((part.source, start, lines));
        }
        before
    }

    /// The text and its 1-based line that line `line` (1-based) of the joined text
    /// comes from.
    pub fn source_line(&self, index: &LineIndex, line: usize) -> Option<(usize, usize)> {
        let line_start = *index.starts.get(line.checked_sub(1)?)?;
        let idx = self
            .parts
            .partition_point(|p| p.at <= line_start)
            .checked_sub(1)?;
        let part = &self.parts[idx];
        let first_line = index.starts.partition_point(|&s| s <= part.at);
        Some((part.source, index.before[idx] + line - first_line + 1))
    }

    /// Each part: its text's index, its own text, and how many lines of its text come
    /// before it (counted here: no [`LineIndex`] of every line is needed).
    pub fn parts<'a, S: AsRef<str>>(
        &'a self,
        sources: &'a [S],
    ) -> impl Iterator<Item = (usize, &'a str, usize)> + 'a {
        let before = self.lines_before_parts(sources);
        self.parts.iter().zip(before).map(|(part, before)| {
            (
                part.source,
                part.piece.of(sources[part.source].as_ref()),
                before,
            )
        })
    }
}

/// The objects of JSON that is not one document: `[{...}, {...}]` or `{...} {...}`.
/// `None` for anything else (YAML, one JSON document, or text the YAML reader should
/// report on); `Err(i)` when item `i` of a top-level array is not an object.
fn json_objects(text: &str) -> Option<Result<Vec<Piece>, usize>> {
    let bytes = text.as_bytes();
    let skip_ws = |mut i: usize| {
        while i < bytes.len() && bytes[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
    let first = skip_ws(bom);
    match bytes.get(first) {
        Some(b'[') => {
            let end = value_end(bytes, first)?;
            if skip_ws(end) != bytes.len() {
                return None;
            }
            let mut pieces = Vec::new();
            let mut i = skip_ws(first + 1);
            while i < end - 1 {
                if bytes[i] != b'{' {
                    return Some(Err(pieces.len()));
                }
                let item_end = value_end(bytes, i)?;
                pieces.push(Piece::new(i..item_end));
                i = skip_ws(item_end);
                if bytes.get(i) == Some(&b',') {
                    i = skip_ws(i + 1);
                }
            }
            Some(Ok(pieces))
        }
        Some(b'{') => {
            let mut pieces = Vec::new();
            let mut i = first;
            while i < bytes.len() {
                if bytes[i] != b'{' {
                    return None;
                }
                let end = value_end(bytes, i)?;
                pieces.push(Piece::new(i..end));
                i = skip_ws(end);
            }
            (pieces.len() > 1).then_some(Ok(pieces))
        }
        _ => None,
    }
}

/// The end (exclusive) of the JSON array or object that starts at `start`, or `None`
/// when it does not close.
fn value_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' | b'[' => depth += 1,
                b'}' | b']' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::splice::Splices;

    fn objects(text: &str) -> Option<Result<Vec<&str>, usize>> {
        json_objects(text).map(|r| r.map(|pieces| pieces.iter().map(|p| p.of(text)).collect()))
    }

    #[test]
    fn splits_json_arrays_and_concatenations_only() {
        let text = " [ {\"a\": \"]\"}, {\"b\": [1, {\"c\": \"\\\"}\"}]} ]\n";
        assert_eq!(
            objects(text),
            Some(Ok(vec![
                "{\"a\": \"]\"}",
                "{\"b\": [1, {\"c\": \"\\\"}\"}]}"
            ]))
        );
        let text = "{\"a\": 1}\n{\"b\": 2}{\"c\": 3}\n";
        assert_eq!(
            objects(text),
            Some(Ok(vec!["{\"a\": 1}", "{\"b\": 2}", "{\"c\": 3}"]))
        );
        assert_eq!(objects("{\"a\": 1}\n"), None);
        assert_eq!(objects("a: [1]\n"), None);
        assert_eq!(objects("{\"a\": 1}\nb: 2\n"), None);
        assert_eq!(objects("[{\"a\": 1}, 2]"), Some(Err(1)));
        assert_eq!(objects("[{\"a\": 1}"), None);
    }

    #[test]
    fn texts_join_with_document_markers_and_one_text_is_read_in_place() {
        let sources = ["a: 1", "[{\"b\": 2}, {\"c\": 3}]", "\u{feff}d: 4\n"];
        let joined = Joined::new(&sources).unwrap();
        assert_eq!(
            joined.text(&sources),
            "a: 1\n---\n{\"b\": 2}\n---\n{\"c\": 3}\n---\nd: 4\n"
        );
        assert!(!joined.is_one_text(&sources));
        let one = ["\u{feff}a: 1\n"];
        let alone = Joined::new(&one).unwrap();
        assert_eq!(alone.text, None, "one text is not copied");
        assert_eq!(alone.text(&one), "a: 1\n");
        assert!(alone.is_one_text(&one));
        // One JSON object of a concatenation is not the whole text.
        let objects = ["{\"a\": 1} {\"b\": 2}"];
        assert!(!Joined::new(&objects).unwrap().is_one_text(&objects));
        let refused = Joined::new(&["a: 1", "[{}, 2]"]).unwrap_err();
        assert_eq!(refused, JoinError::NotAnObject { source: 1, item: 1 });
        assert!(refused.to_string().contains("item 1 is not an object"));
    }

    #[test]
    fn edits_of_the_stream_split_back_onto_each_text() {
        let sources = ["a: 1", "[{\"b\": 2}, {\"c\": 3}]", "[]", "d: 4\n"];
        let joined = Joined::new(&sources).unwrap();
        let text = joined.text(&sources).to_string();
        let at = |s: &str| text.find(s).unwrap();
        let mut s = Splices::new();
        s.replace(at("1"), at("1") + 1, "9");
        s.replace(at("3"), at("3") + 1, "7");
        s.insert(at("d"), "# d\n");
        let per_source = joined.split(&s.record()).unwrap();
        assert_eq!(per_source.len(), 4);
        let edited: Vec<String> = sources
            .iter()
            .zip(&per_source)
            .map(|(source, e)| e.apply(source).unwrap())
            .collect();
        assert_eq!(
            edited,
            ["a: 9", "[{\"b\": 2}, {\"c\": 7}]", "[]", "# d\nd: 4\n"]
        );
        // Over a document marker: no text holds that edit.
        let mut across = Splices::new();
        across.replace(at("1"), at("{"), "");
        assert_eq!(
            joined.split(&across.record()),
            Err(SplitError::AcrossDocuments)
        );
        // Into the `---` line after the first text, from near its start.
        let mut past_the_end = Splices::new();
        past_the_end.replace(at(":"), at(":") + 4, "");
        let refused = joined.split(&past_the_end.record()).unwrap_err();
        assert_eq!(refused, SplitError::AcrossDocuments);
        assert!(
            refused.to_string().contains("across two documents"),
            "{refused}"
        );
    }

    #[test]
    fn an_edit_before_the_first_part_has_no_text() {
        let sources = ["\u{feff}a: 1\n", "b: 2\n"];
        let joined = Joined::new(&sources).unwrap();
        assert_eq!(joined.text(&sources), "a: 1\n---\nb: 2\n");
        let mut s = Splices::new();
        s.replace(0, 1, "c");
        let back = joined.split(&s.record()).unwrap();
        // The BOM stays its text's own: the edit lands after it.
        assert_eq!(back[0].apply(sources[0]).unwrap(), "\u{feff}c: 1\n");
        let empty = Joined::new(&["[]"]).unwrap();
        assert_eq!(
            empty.split(&s.record()),
            Err(SplitError::BeforeTheFirstDocument)
        );
        assert_eq!(
            SplitError::BeforeTheFirstDocument.to_string(),
            "an edit before the first document"
        );
    }

    #[test]
    fn lines_of_the_stream_are_traced_to_their_text() {
        let sources = [
            "# a\nkind: A\n---\nkind: B\n",
            "[\n{\"kind\": \"C\",\n \"x\": 1},\n{\"kind\": \"D\"}\n]\n",
        ];
        let joined = Joined::new(&sources).unwrap();
        let text = joined.text(&sources);
        let line_of = |needle: &str| text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        let index = joined.line_index(&sources);
        for (needle, source, line) in [
            ("kind: A", 0, 2),
            ("kind: B", 0, 4),
            ("\"x\"", 1, 3),
            ("\"D\"", 1, 4),
        ] {
            let joined_line = line_of(needle);
            assert_eq!(
                joined.source_line(&index, joined_line),
                Some((source, line)),
                "{needle}"
            );
            assert_eq!(
                joined.locate(&sources, joined_line),
                Some((source, line)),
                "{needle}"
            );
        }
        assert_eq!(joined.source_line(&index, 0), None);
        {
            // A text after one whose last part starts after some lines counts its own lines
            // from its own start.
            let after = ["{\"a\": 1}\n{\"b\": 2}\n", "x: 1\ny: 2\n"];
            let joined = Joined::new(&after).unwrap();
            let index = joined.line_index(&after);
            let text = joined.text(&after);
            let y = text[..text.find("y:").unwrap()].matches('\n').count() + 1;
            assert_eq!(joined.source_line(&index, y), Some((1, 2)));
            let parts: Vec<(usize, usize)> = joined.parts(&after).map(|(s, _, b)| (s, b)).collect();
            assert_eq!(parts, [(0, 0), (0, 1), (1, 0)]);
        }
        assert_eq!(joined.source_line(&index, 99), None);
        let parts: Vec<(usize, &str, usize)> = joined.parts(&sources).collect();
        assert_eq!(
            parts,
            [
                (0, sources[0], 0),
                (1, "{\"kind\": \"C\",\n \"x\": 1}", 1),
                (1, "{\"kind\": \"D\"}", 3)
            ]
        );
    }
}
