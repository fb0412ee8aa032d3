//! Parts of a text read on their own, and the way back to the whole: a chunk of items
//! ([`Piece`]) whose edits move into the whole text.

use std::ops::Range;

use crate::splice::Splices;

/// A part of a whole text (a chunk of items, read and edited on its own): its text is
/// [`Piece::of`] the whole, and [`Piece::shift`] moves the edits made against it into
/// the whole text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    start: usize,
    end: usize,
}

impl Piece {
    /// The part `range` of a text, for the splitter that finds where parts begin and
    /// end (an empty range where `range` is reversed).
    pub fn new(range: Range<usize>) -> Piece {
        Piece {
            start: range.start,
            end: range.end.max(range.start),
        }
    }

    /// All of `text`.
    pub fn whole(text: &str) -> Piece {
        Piece::new(0..text.len())
    }

    /// All of `text` after its byte-order mark, if it has one.
    pub fn after_bom(text: &str) -> Piece {
        let bom = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Piece::new(bom..text.len())
    }

    /// The part's text in `whole` (empty where the part is not within it).
    pub fn of(self, whole: &str) -> &str {
        whole.get(self.start..self.end).unwrap_or("")
    }

    /// Edits made against the part's text, moved to where it sits in the whole text.
    pub fn shift(self, splices: Splices) -> Splices {
        if self.start == 0 {
            return splices;
        }
        splices.map_positions(|p| p + self.start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn splices(edits: &[(usize, usize, &str)]) -> Splices {
        let mut s = Splices::new();
        for &(start, end, text) in edits {
            s.replace(start, end, text);
        }
        s
    }

    #[test]
    fn a_piece_is_its_part_of_the_text_and_its_edits_move_into_the_whole() {
        let whole = "a: 1\n---\nb: 2\n";
        let piece = Piece::new(9..14);
        assert_eq!(piece.of(whole), "b: 2\n");
        let edited = piece.shift(splices(&[(3, 4, "3")])).apply(whole).unwrap();
        assert_eq!(edited, "a: 1\n---\nb: 3\n");
        // At the start, the edits are the whole's already.
        let first = Piece::new(0..5);
        assert_eq!(
            first.shift(splices(&[(3, 4, "0")])).apply(whole).unwrap(),
            "a: 0\n---\nb: 2\n"
        );
        assert_eq!(Piece::new(20..30).of(whole), "");
        let (from, to) = (5, 2);
        assert_eq!(Piece::new(from..to).of(whole), "");
    }

    #[test]
    fn whole_and_after_bom_cover_the_text() {
        assert_eq!(Piece::whole("\u{feff}a").of("\u{feff}a"), "\u{feff}a");
        assert_eq!(Piece::after_bom("\u{feff}a").of("\u{feff}a"), "a");
        assert_eq!(Piece::after_bom("a"), Piece::whole("a"));
    }
}
