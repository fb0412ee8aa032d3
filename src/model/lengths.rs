//! A set of string lengths, a bit each: the first, cheap test of whether a string can
//! be one of a set of names, before any key is built or hashed.

/// The lengths of a set of names (every length from 255 up shares the last bit). Most
/// strings a run asks about have a length no name has, and are ruled out here.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Lengths([u64; 4]);

impl Lengths {
    /// Where the bit for a string of `len` bytes is.
    fn bit(len: usize) -> (usize, u64) {
        let len = len.min(255);
        (len / 64, 1 << (len % 64))
    }

    /// Adds the length of `name`.
    pub fn insert(&mut self, name: &[u8]) {
        let (word, bit) = Self::bit(name.len());
        self.0[word] |= bit;
    }

    /// Whether some name added has the length of `s` (or, past 254 bytes, any length
    /// from 255 up).
    pub fn may_hold(&self, s: &[u8]) -> bool {
        let (word, bit) = Self::bit(s.len());
        self.0[word] & bit != 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_length_is_held_only_once_added_and_long_ones_share_a_bit() {
        let mut lengths = Lengths::default();
        let added = [0, 1, 63, 64, 127, 128, 254, 255];
        for len in added {
            lengths.insert("n".repeat(len).as_bytes());
        }
        for len in added.into_iter().chain([256, 1000]) {
            assert!(lengths.may_hold("x".repeat(len).as_bytes()), "{len}");
        }
        for len in [2, 62, 65, 126, 129, 253] {
            assert!(!lengths.may_hold("x".repeat(len).as_bytes()), "{len}");
        }
        assert!(!Lengths::default().may_hold(b""));
        assert!(!Lengths::default().may_hold("x".repeat(300).as_bytes()));
    }
}
