//! Byte-range edits against the original text: collected in any order, checked for
//! overlap, and applied in one forward pass so untouched bytes are copied verbatim. The
//! editor ([`crate::Editor`]) makes them; callers hold, move and apply them as sets
//! ([`Splices`], [`Checked`], [`Edits`]) and never say where an edit goes.

use crate::breaks::restore_breaks;

/// Two edits touched the same bytes: a bug in the caller, never a user error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverlapError {
    /// The first edit's bytes, for the message.
    pub first: (usize, usize),
    /// The bytes of the edit that overlaps it.
    pub second: (usize, usize),
}

impl std::fmt::Display for OverlapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "internal error: overlapping edits at bytes {}..{} and {}..{}",
            self.first.0, self.first.1, self.second.0, self.second.1
        )
    }
}

impl std::error::Error for OverlapError {}

#[derive(Debug, Clone)]
struct Edit {
    start: usize,
    end: usize,
    /// Where the text it writes lies in its set's `texts`.
    text: Span,
    order: usize,
    /// After `text`, the caller writes more when the output is written (see
    /// [`Splices::replace_then_fill`]).
    fill: bool,
}

/// A range of a set's `texts`.
#[derive(Debug, Clone, Copy)]
struct Span {
    at: usize,
    len: usize,
}

impl Span {
    fn of(self, texts: &str) -> &str {
        &texts[self.at..self.at + self.len]
    }
}

/// Appends `text` to `texts`, returning where it lies.
fn keep(texts: &mut String, text: &str) -> Span {
    let at = texts.len();
    texts.push_str(text);
    Span {
        at,
        len: text.len(),
    }
}

/// A set of pending edits.
///
/// The texts the edits write lie end to end in one string rather than one allocation
/// each: a large input holds an edit or two per workload until its output is written,
/// and a string each cost its allocator overhead and spare room on top of its bytes.
#[derive(Debug, Default, Clone)]
pub struct Splices {
    edits: Vec<Edit>,
    texts: String,
}

impl Splices {
    /// No edits yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// True when no edit is pending.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Replaces `start..end` with `text`.
    pub(crate) fn replace(&mut self, start: usize, end: usize, text: impl AsRef<str>) {
        self.push(start, end, text.as_ref(), false);
    }

    /// Replaces `start..end` with `text` followed by what the writer of the output fills
    /// in: text too large to hold (a result per item of a large input) is rendered only
    /// as it is written. At most one such edit is meant to be made.
    pub(crate) fn replace_then_fill(&mut self, start: usize, end: usize, text: impl AsRef<str>) {
        self.push(start, end, text.as_ref(), true);
    }

    fn push(&mut self, start: usize, end: usize, text: &str, fill: bool) {
        let order = self.edits.len();
        let text = keep(&mut self.texts, text);
        self.edits.push(Edit {
            start,
            end: end.max(start),
            text,
            order,
            fill,
        });
    }

    /// Inserts `text` at `at`; several inserts at one point keep the order they were made.
    pub(crate) fn insert(&mut self, at: usize, text: impl AsRef<str>) {
        self.replace(at, at, text);
    }

    /// How many edits are pending.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// Room for `n` more edits, so that collecting many does not keep spare capacity.
    pub fn reserve(&mut self, n: usize) {
        self.edits.reserve_exact(n);
    }

    fn dedup_replacements(&mut self) {
        // `order` is unique, so an unstable sort gives the same order, without the
        // scratch buffer a stable sort of every edit of a large input takes.
        self.edits
            .sort_unstable_by_key(|e| (e.start, e.end, e.order));
        let texts = &self.texts;
        self.edits.dedup_by(|b, a| {
            a.end > a.start
                && (a.start, a.end) == (b.start, b.end)
                && a.text.of(texts) == b.text.of(texts)
                && !a.fill
                && !b.fill
        });
    }

    /// The pending edits as made, in source order (the same replacement made twice is
    /// one): a record to compare, apply, or split back onto the texts a stream was
    /// joined from.
    pub fn record(&self) -> Edits {
        let mut copy = self.clone();
        copy.dedup_replacements();
        Edits {
            edits: copy
                .edits
                .iter()
                .map(|e| (e.start, e.end, e.text.of(&copy.texts).to_string()))
                .collect(),
        }
    }

    pub(crate) fn delete(&mut self, start: usize, end: usize) {
        self.replace(start, end, "");
    }

    /// Gives back the room kept for more edits: for a set held a long time.
    pub fn shrink_to_fit(&mut self) {
        self.edits.shrink_to_fit();
        self.texts.shrink_to_fit();
    }

    /// Moves every edit into `other`, for callers that collect edits per resource and
    /// keep only those of resources that succeeded.
    pub fn append_to(self, other: &mut Splices) {
        self.copy_to(other);
    }

    /// Copies every edit into `other`, for a caller that frees this set later.
    pub fn copy_to(&self, other: &mut Splices) {
        other.texts.reserve(self.texts.len());
        for e in &self.edits {
            other.push(e.start, e.end, e.text.of(&self.texts), e.fill);
        }
    }

    /// Drops the edits that lie inside a range `other` replaces whole (not that range
    /// itself): `other` makes them moot, and applying both would overlap (the rename of
    /// a name inside a reference a stamp writes anew). Returns what the dropped edits
    /// wrote. When `other` replaces nothing, or there is nothing to drop from, nothing
    /// changes; otherwise the edits left are in source order.
    pub fn drop_within(&mut self, other: &Splices) -> Vec<String> {
        let mut replaced: Vec<(usize, usize)> = other
            .edits
            .iter()
            .filter(|e| e.end > e.start)
            .map(|e| (e.start, e.end))
            .collect();
        if replaced.is_empty() || self.edits.is_empty() {
            return Vec::new();
        }
        replaced.sort_unstable();
        self.dedup_replacements();
        let mut dropped = Vec::new();
        let mut kept = Vec::with_capacity(self.edits.len());
        for e in std::mem::take(&mut self.edits) {
            if within_a_replaced_range(&replaced, e.start, e.end) {
                dropped.push(e.text.of(&self.texts).to_string());
            } else {
                kept.push(e);
            }
        }
        // Numbered afresh, in source order, as edits made in that order would be.
        for (order, e) in kept.iter_mut().enumerate() {
            e.order = order;
        }
        self.edits = kept;
        dropped
    }

    /// These edits, made against a text from which the bytes `removed` were cut out,
    /// moved to the text they were cut from.
    pub(crate) fn uncut(self, removed: std::ops::Range<usize>) -> Splices {
        let len = removed.len();
        self.map_positions(|p| if p >= removed.start { p + len } else { p })
    }

    /// Moves every edit through `f`, for edits made against a slice or a rearranged copy
    /// of the text they will be applied to.
    pub(crate) fn map_positions(mut self, f: impl Fn(usize) -> usize) -> Splices {
        for e in &mut self.edits {
            e.start = f(e.start);
            e.end = f(e.end);
        }
        self
    }

    /// Applies the edits to `src`. Offsets must lie on character boundaries.
    pub fn apply(self, src: &str) -> Result<String, OverlapError> {
        Ok(self.checked()?.apply(src, &mut |_| {}))
    }

    /// Puts the edits in source order and rejects overlapping ones. The same
    /// replacement made twice (one scalar reached twice, through an alias or a merge
    /// key) is one edit; two inserts at one point stay two.
    pub fn checked(mut self) -> Result<Checked, OverlapError> {
        self.dedup_replacements();
        self.edits
            .sort_unstable_by_key(|e| (e.start, e.end, e.order));
        for pair in self.edits.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            if b.start < a.end || (a.start == b.start && a.end > a.start && b.end > b.start) {
                return Err(OverlapError {
                    first: (a.start, a.end),
                    second: (b.start, b.end),
                });
            }
        }
        Ok(Checked {
            edits: self.edits,
            texts: self.texts,
        })
    }
}

/// Edits in source order, none overlapping: ready to apply or to stream out.
#[derive(Debug, Default, Clone)]
pub struct Checked {
    edits: Vec<Edit>,
    texts: String,
}

impl Checked {
    /// The pieces of the edited text, in order: untouched slices of `src`, new text, and
    /// the place to fill in.
    fn pieces<'s>(&'s self, src: &'s str) -> impl Iterator<Item = Piece<'s>> + 's {
        let mut pos = 0;
        let mut edits = self.edits.iter();
        let mut pending: Option<&'s Edit> = None;
        let mut fill = false;
        let mut done = false;
        std::iter::from_fn(move || {
            if let Some(e) = pending.take() {
                fill = e.fill;
                return Some(Piece::Text(e.text.of(&self.texts)));
            }
            if std::mem::take(&mut fill) {
                return Some(Piece::Fill);
            }
            if done {
                return None;
            }
            match edits.next() {
                Some(e) => {
                    let start = e.start.min(src.len()).max(pos);
                    let slice = &src[pos..start];
                    pos = e.end.min(src.len()).max(start);
                    pending = Some(e);
                    Some(Piece::Text(slice))
                }
                None => {
                    done = true;
                    Some(Piece::Text(&src[pos..]))
                }
            }
        })
    }

    /// Where the text to fill in goes, if an edit asked for it.
    fn fill_at(&self) -> Option<usize> {
        self.edits.iter().find(|e| e.fill).map(|e| e.start)
    }

    /// These edits, made against the LF copy of `original`
    /// ([`crate::breaks::lone_cr_as_lf`]), writing the line breaks `original` uses
    /// where each goes.
    pub fn restore_breaks(&mut self, original: &str) {
        let mut texts = String::with_capacity(self.texts.len());
        for e in &mut self.edits {
            let text = restore_breaks(original, e.start, e.text.of(&self.texts));
            e.text = keep(&mut texts, &text);
        }
        self.texts = texts;
    }

    /// `text`, to be filled in where an edit asked for it, with the line breaks
    /// `original` uses there (see [`Checked::restore_breaks`]); as it is when no edit
    /// asked.
    pub fn restore_breaks_at_fill(&self, original: &str, text: &str) -> String {
        match self.fill_at() {
            Some(at) => restore_breaks(original, at, text),
            None => text.to_string(),
        }
    }

    /// The edited text; `fill` appends what goes where an edit asked for it.
    pub fn apply(&self, src: &str, fill: &mut dyn FnMut(&mut String)) -> String {
        let extra: usize = self.edits.iter().map(|e| e.text.len).sum();
        let mut out = String::with_capacity(src.len() + extra);
        for piece in self.pieces(src) {
            match piece {
                Piece::Text(text) => out.push_str(text),
                Piece::Fill => fill(&mut out),
            }
        }
        out
    }

    /// Writes the edited text without building it in memory; `fill` writes what goes
    /// where an edit asked for it.
    pub fn write_to(
        &self,
        src: &str,
        w: &mut dyn std::io::Write,
        fill: &mut dyn FnMut(&mut dyn std::io::Write) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        for piece in self.pieces(src) {
            match piece {
                Piece::Text(text) => w.write_all(text.as_bytes())?,
                Piece::Fill => fill(w)?,
            }
        }
        Ok(())
    }
}

/// A part of the edited text.
enum Piece<'s> {
    Text(&'s str),
    Fill,
}

/// Whether the edit `s..e` lies inside one of `replaced` (sorted ranges) without being
/// that range itself. Only the last range starting at or before `s` can hold it.
fn within_a_replaced_range(replaced: &[(usize, usize)], s: usize, e: usize) -> bool {
    let at = replaced.partition_point(|&(a, _)| a <= s);
    at > 0 && {
        let (a, b) = replaced[at - 1];
        e <= b && (s, e) != (a, b)
    }
}

/// Edits as they were made, in source order: what a run changed (its item edits), to
/// compare, apply, or split back onto the texts a stream was joined from
/// ([`crate::Joined::split`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Edits {
    edits: Vec<(usize, usize, String)>,
}

/// Edits that do not fit the text they are applied to (out of order, overlapping, past
/// its end, or inside a character): a bug in the caller, never a user error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MisfitError {
    /// The edit that does not fit, as bytes of the text: for the message.
    pub at: (usize, usize),
}

impl std::fmt::Display for MisfitError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "internal error: the edit at bytes {}..{} does not fit the text",
            self.at.0, self.at.1
        )
    }
}

impl Edits {
    pub(crate) fn from_parts(edits: Vec<(usize, usize, String)>) -> Edits {
        Edits { edits }
    }

    pub(crate) fn parts(&self) -> &[(usize, usize, String)] {
        &self.edits
    }

    /// How many edits there are.
    pub fn len(&self) -> usize {
        self.edits.len()
    }

    /// True when nothing was changed.
    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// The text `text` with these edits made: they must be in order, apart, and within
    /// it, on character boundaries.
    pub fn apply(&self, text: &str) -> Result<String, MisfitError> {
        let extra: usize = self.edits.iter().map(|e| e.2.len()).sum();
        let mut out = String::with_capacity(text.len() + extra);
        let mut at = 0;
        for (start, end, new) in &self.edits {
            let (start, end) = (*start, *end);
            let fits = at <= start
                && start <= end
                && end <= text.len()
                && text.is_char_boundary(start)
                && text.is_char_boundary(end);
            if !fits {
                return Err(MisfitError { at: (start, end) });
            }
            out.push_str(&text[at..start]);
            out.push_str(new);
            at = end;
        }
        out.push_str(&text[at..]);
        Ok(out)
    }

    /// Each edit as the text of `original` it replaces (empty for an insert, and for an
    /// edit that does not fit `original`) and the text it writes.
    pub fn replacements<'a>(
        &'a self,
        original: &'a str,
    ) -> impl Iterator<Item = (&'a str, &'a str)> {
        self.edits
            .iter()
            .map(move |(s, e, new)| (original.get(*s..*e).unwrap_or(""), new.as_str()))
    }

    /// The same edits, each writing `f(text)` for its `text`.
    pub fn map_texts(mut self, mut f: impl FnMut(&str) -> String) -> Edits {
        for e in &mut self.edits {
            e.2 = f(&e.2);
        }
        self
    }

    /// These edits, made against the LF copy of `original`
    /// ([`crate::breaks::lone_cr_as_lf`]), writing the line breaks `original` uses
    /// where each goes.
    pub fn restore_breaks(mut self, original: &str) -> Edits {
        for e in &mut self.edits {
            e.2 = restore_breaks(original, e.0, &e.2);
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_replacement_twice_is_one_edit_but_two_inserts_stay_two() {
        let mut s = Splices::new();
        s.replace(0, 1, "X");
        s.insert(2, "+");
        s.replace(0, 1, "X");
        s.insert(2, "+");
        assert_eq!(s.record().len(), 3);
        assert_eq!(s.apply("abc").unwrap(), "Xb++c");
        let mut clash = Splices::new();
        clash.replace(0, 1, "X");
        clash.replace(0, 1, "Y");
        let e = clash.apply("abc").unwrap_err();
        assert_eq!(
            e.to_string(),
            "internal error: overlapping edits at bytes 0..1 and 0..1"
        );
    }

    #[test]
    fn applies_in_source_order_whatever_the_call_order() {
        let mut s = Splices::new();
        s.replace(6, 11, "there");
        s.insert(0, ">> ");
        s.insert(11, "!");
        assert_eq!(s.apply("hello world").unwrap(), ">> hello there!");
    }

    #[test]
    fn inserts_at_one_point_keep_their_order() {
        let mut s = Splices::new();
        s.insert(1, "b");
        s.insert(1, "c");
        assert_eq!(s.apply("ad").unwrap(), "abcd");
    }

    #[test]
    fn rejects_overlap() {
        let mut s = Splices::new();
        s.replace(0, 4, "x");
        s.replace(2, 6, "y");
        assert!(s.apply("abcdefgh").is_err());
    }

    #[test]
    fn adjacent_edits_are_fine() {
        let mut s = Splices::new();
        s.replace(0, 2, "X");
        s.replace(2, 4, "Y");
        assert_eq!(s.apply("abcdef").unwrap(), "XYef");
    }

    #[test]
    fn streaming_writes_what_apply_returns() {
        let mut s = Splices::new();
        s.replace(6, 11, "there");
        s.insert(0, ">> ");
        s.insert(11, "!");
        let checked = s.checked().unwrap();
        let mut out = Vec::new();
        checked
            .write_to("hello world", &mut out, &mut |_| unreachable!())
            .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            checked.apply("hello world", &mut |_| unreachable!())
        );
    }

    #[test]
    fn the_fill_goes_after_its_edit_and_before_later_inserts_at_the_same_place() {
        let mut s = Splices::new();
        s.insert(5, " [");
        s.replace_then_fill(5, 5, "<");
        s.insert(5, "]");
        s.insert(0, "> ");
        let checked = s.checked().unwrap();
        assert_eq!(checked.fill_at(), Some(5));
        let built = checked.apply("hello world", &mut |out| out.push_str("filled"));
        assert_eq!(built, "> hello [<filled] world");
        let mut streamed = Vec::new();
        checked
            .write_to("hello world", &mut streamed, &mut |w| {
                w.write_all(b"filled")
            })
            .unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), built);
    }

    #[test]
    fn no_edits_copies_the_text() {
        let src = "a: 1 # c\r\n";
        assert_eq!(Splices::new().apply(src).unwrap(), src);
    }

    #[test]
    fn only_an_edit_strictly_inside_a_replaced_range_is_moot() {
        let replaced = [(10, 20), (30, 40)];
        for (s, e, moot) in [
            (12, 15, true),  // inside the first
            (10, 14, true),  // from its start
            (15, 20, true),  // to its end
            (10, 20, false), // the range itself: the stamp's own edit
            (15, 25, false), // running out of it
            (5, 12, false),  // starting before it
            (25, 28, false), // between the ranges
            (31, 39, true),  // inside the second
            (0, 0, false),   // before every range
        ] {
            assert_eq!(within_a_replaced_range(&replaced, s, e), moot, "{s}..{e}");
        }
    }

    #[test]
    fn edits_inside_what_others_replace_are_dropped_and_returned() {
        let src = "ref: {name: old}, other: old\n";
        let mut renames = Splices::new();
        renames.replace(12, 15, "new"); // inside the reference
        renames.replace(25, 28, "new"); // outside it
        renames.insert(0, "# "); // before it
        let mut stamp = Splices::new();
        stamp.replace(5, 16, "{value: 1}"); // the whole reference
        stamp.insert(16, ""); // an insert replaces nothing
        let dropped = renames.drop_within(&stamp);
        assert_eq!(dropped, ["new"]);
        assert_eq!(renames.len(), 2);
        stamp.append_to(&mut renames);
        assert_eq!(
            renames.apply(src).unwrap(),
            "# ref: {value: 1}, other: new\n"
        );
    }

    #[test]
    fn nothing_is_dropped_when_nothing_is_replaced() {
        let mut renames = Splices::new();
        renames.replace(12, 15, "new");
        renames.replace(12, 15, "new");
        let mut inserts = Splices::new();
        inserts.insert(10, "x");
        assert!(renames.drop_within(&inserts).is_empty());
        // Untouched: the same replacement twice is still two edits until applied.
        assert_eq!(renames.len(), 2);
        assert!(Splices::new().drop_within(&renames).is_empty());
    }

    #[test]
    fn what_is_left_keeps_the_order_edits_were_made_in() {
        let mut s = Splices::new();
        s.replace(12, 13, "x");
        s.replace(13, 14, "y");
        s.insert(3, "a");
        s.insert(20, "c");
        let mut stamp = Splices::new();
        stamp.replace(10, 16, "R");
        assert_eq!(s.drop_within(&stamp), ["x", "y"]);
        // An insert made after the drop, at the place of one kept, comes after it.
        let mut later = Splices::new();
        later.insert(20, "d");
        later.append_to(&mut s);
        stamp.append_to(&mut s);
        let src = "0123456789abcdefghijklmnop";
        assert_eq!(s.apply(src).unwrap(), "012a3456789Rghijcdklmnop");
    }

    #[test]
    fn a_record_applies_as_the_splices_do_and_says_what_it_replaced() {
        let src = "a: 1\nb: 2\n";
        let mut s = Splices::new();
        s.replace(8, 9, "3");
        s.insert(0, "# c\n");
        s.replace(8, 9, "3");
        let record = s.record();
        assert_eq!(record.len(), 2);
        assert!(!record.is_empty());
        assert!(Edits::default().is_empty());
        assert_eq!(record.apply(src).unwrap(), s.apply(src).unwrap());
        let pairs: Vec<(&str, &str)> = record.replacements(src).collect();
        assert_eq!(pairs, [("", "# c\n"), ("2", "3")]);
        let louder = record.clone().map_texts(|t| t.to_uppercase());
        assert_eq!(louder.apply(src).unwrap(), "# C\na: 1\nb: 3\n");
        assert_ne!(louder, record);
    }

    #[test]
    fn a_record_that_does_not_fit_its_text_is_refused() {
        let mut s = Splices::new();
        s.replace(2, 9, "x");
        let record = s.record();
        let misfit = record.apply("short").unwrap_err();
        assert_eq!(misfit.at, (2, 9));
        assert_eq!(
            misfit.to_string(),
            "internal error: the edit at bytes 2..9 does not fit the text"
        );
        let mut mid = Splices::new();
        mid.replace(1, 2, "x");
        assert!(mid.record().apply("é").is_err());
        let mut overlapping = Splices::new();
        overlapping.replace(0, 4, "x");
        overlapping.replace(2, 6, "y");
        assert!(overlapping.record().apply("abcdefgh").is_err());
        assert_eq!(Edits::default().apply("same").unwrap(), "same");
    }

    #[test]
    fn edits_of_an_lf_copy_get_the_original_breaks_back() {
        let original = "a: 1\rb: 2\r";
        let copy = crate::breaks::lone_cr_as_lf(original).unwrap();
        let mut s = Splices::new();
        s.insert(5, "x: 0\n");
        s.replace_then_fill(10, 10, "");
        let record = s.record().restore_breaks(original);
        assert_eq!(record.apply(original).unwrap(), "a: 1\rx: 0\rb: 2\r");
        let mut checked = s.checked().unwrap();
        assert_eq!(
            checked.restore_breaks_at_fill(original, "\n- y\n"),
            "\r- y\r"
        );
        checked.restore_breaks(original);
        assert_eq!(
            checked.apply(original, &mut |out| out.push('z')),
            "a: 1\rx: 0\rb: 2\rz"
        );
        // The copy's own edits, and text where no edit asked to fill, stay as they are.
        assert_eq!(Checked::default().restore_breaks_at_fill(&copy, "\n"), "\n");
    }
}
