//! Byte-range edits against the original text: collected in any order, checked for
//! overlap, and applied in one forward pass so untouched bytes are copied verbatim.

/// Two edits touched the same bytes: a bug in the caller, never a user error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverlapError {
    pub first: (usize, usize),
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
    text: String,
    order: usize,
    /// After `text`, the caller writes more when the output is written (see
    /// [`Splices::replace_then_fill`]).
    fill: bool,
}

/// A set of pending edits.
#[derive(Debug, Default, Clone)]
pub struct Splices {
    edits: Vec<Edit>,
}

impl Splices {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn is_empty(&self) -> bool {
        self.edits.is_empty()
    }

    /// Replaces `start..end` with `text`.
    pub fn replace(&mut self, start: usize, end: usize, text: impl Into<String>) {
        self.push(start, end, text.into(), false);
    }

    /// Replaces `start..end` with `text` followed by what the writer of the output fills
    /// in: text too large to hold (a result per item of a large input) is rendered only
    /// as it is written. At most one such edit is meant to be made.
    pub fn replace_then_fill(&mut self, start: usize, end: usize, text: impl Into<String>) {
        self.push(start, end, text.into(), true);
    }

    fn push(&mut self, start: usize, end: usize, text: String, fill: bool) {
        let order = self.edits.len();
        self.edits.push(Edit {
            start,
            end: end.max(start),
            text,
            order,
            fill,
        });
    }

    /// Inserts `text` at `at`; several inserts at one point keep the order they were made.
    pub fn insert(&mut self, at: usize, text: impl Into<String>) {
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
        self.edits.dedup_by(|b, a| {
            a.end > a.start
                && (a.start, a.end) == (b.start, b.end)
                && a.text == b.text
                && !a.fill
                && !b.fill
        });
    }

    /// The pending edits as `(start, end, replacement)`, in source order.
    pub fn edits(&self) -> Vec<(usize, usize, String)> {
        let mut copy = self.clone();
        copy.dedup_replacements();
        copy.edits
            .into_iter()
            .map(|e| (e.start, e.end, e.text))
            .collect()
    }

    pub fn delete(&mut self, start: usize, end: usize) {
        self.replace(start, end, String::new());
    }

    /// Moves every edit into `other`, for callers that collect edits per resource and
    /// keep only those of resources that succeeded.
    pub fn append_to(self, other: &mut Splices) {
        for e in self.edits {
            other.push(e.start, e.end, e.text, e.fill);
        }
    }

    /// These edits, made against a text from which the bytes `removed` were cut out,
    /// moved to the text they were cut from.
    pub fn uncut(self, removed: std::ops::Range<usize>) -> Splices {
        let len = removed.len();
        self.map_positions(|p| if p >= removed.start { p + len } else { p })
    }

    /// Moves every edit through `f`, for edits made against a slice or a rearranged copy
    /// of the text they will be applied to.
    pub fn map_positions(mut self, f: impl Fn(usize) -> usize) -> Splices {
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
        Ok(Checked { edits: self.edits })
    }
}

/// Edits in source order, none overlapping: ready to apply or to stream out.
#[derive(Debug, Default, Clone)]
pub struct Checked {
    edits: Vec<Edit>,
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
                return Some(Piece::Text(&e.text));
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
    pub fn fill_at(&self) -> Option<usize> {
        self.edits.iter().find(|e| e.fill).map(|e| e.start)
    }

    /// Rewrites every edit's new text with `f(start, text)`.
    pub fn map_texts(&mut self, f: impl Fn(usize, &str) -> String) {
        for e in &mut self.edits {
            e.text = f(e.start, &e.text);
        }
    }

    /// The edited text; `fill` appends what goes where an edit asked for it.
    pub fn apply(&self, src: &str, fill: &mut dyn FnMut(&mut String)) -> String {
        let extra: usize = self.edits.iter().map(|e| e.text.len()).sum();
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
        assert_eq!(s.edits().len(), 3);
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
}
