//! Parts of a text read on their own, and the way back to the whole: a chunk of items
//! ([`Piece`]) whose edits move into the whole text, and a text with one part cut out
//! of it ([`Cut`]) whose edits move back to the text it was cut from.

use std::ops::Range;

use crate::splice::Splices;
use crate::tree::{NodeId, Tree};

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

    pub(crate) fn range(self) -> Range<usize> {
        self.start..self.end
    }
}

/// A text with one part cut out of it (a ResourceList without its items: its
/// skeleton, read on its own), and the way back: edits made against the skeleton move
/// to the text it was cut from with [`Cut::put_back`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cut {
    text: String,
    removed: Piece,
}

impl Cut {
    /// `whole` without the part `removed`.
    pub fn new(whole: &str, removed: Piece) -> Cut {
        let (start, end) = (removed.start.min(whole.len()), removed.end.min(whole.len()));
        let removed = Piece::new(start..end);
        Cut {
            text: format!("{}{}", &whole[..start], &whole[end..]),
            removed,
        }
    }

    /// What is left of the text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Edits made against what is left ([`Cut::text`]), moved to the text it was cut
    /// from.
    pub fn put_back(&self, splices: Splices) -> Splices {
        splices.uncut(self.removed.range())
    }

    /// Whether the cut was made right after the entry `key` of the mapping `map` (in a
    /// tree of [`Cut::text`]): only separators (`:`, `[`, blanks, comments) stand
    /// between the key and the cut, so what was cut out was the entry's value.
    pub fn follows_key(&self, tree: &Tree<'_>, map: NodeId, key: &str) -> bool {
        tree.only_separators_after_key(map, key, self.removed.start)
    }

    /// Where the cut was made in what is left, for the editor.
    pub(crate) fn at(&self) -> usize {
        self.removed.start
    }

    /// How many bytes were cut out.
    pub(crate) fn len(&self) -> usize {
        self.removed.end - self.removed.start
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::context::Context;

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

    #[test]
    fn edits_of_what_is_left_go_back_where_they_were() {
        let whole = "kind: List\nitems:\n- x\n- y\nresults: []\n";
        let items = Piece::new(whole.find("- x").unwrap()..whole.find("results").unwrap());
        let cut = Cut::new(whole, items);
        assert_eq!(cut.text(), "kind: List\nitems:\nresults: []\n");
        assert_eq!(cut.len(), 8);
        // An edit before the cut stays, one at or after it moves past what was cut.
        let before = cut.text().find("List").unwrap();
        let after = cut.text().find("[]").unwrap();
        let back = cut.put_back(splices(&[
            (before, before + 4, "Thing"),
            (after, after + 2, "[1]"),
        ]));
        assert_eq!(
            back.apply(whole).unwrap(),
            "kind: Thing\nitems:\n- x\n- y\nresults: [1]\n"
        );
        // At the cut itself: after what was cut out.
        let at = cut.put_back(splices(&[(cut.at(), cut.at(), "# end\n")]));
        assert_eq!(
            at.apply(whole).unwrap(),
            "kind: List\nitems:\n- x\n- y\n# end\nresults: []\n"
        );
    }

    #[test]
    fn a_cut_follows_a_key_only_when_separators_alone_stand_between() {
        let whole = "kind: List\nitems: # the items\n- x\nresults: []\n";
        let items = Piece::new(whole.find("- x").unwrap()..whole.find("results").unwrap());
        let cut = Cut::new(whole, items);
        let tree = Tree::parse(cut.text(), Context::of(whole)).unwrap();
        let root = tree.documents()[0].root();
        assert!(cut.follows_key(&tree, root, "items"));
        assert!(!cut.follows_key(&tree, root, "kind"));
        assert!(!cut.follows_key(&tree, root, "missing"));
    }
}
