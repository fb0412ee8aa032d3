//! Byte classes of go-yaml's reading: blanks, line breaks (LF, CR, CRLF, and in YAML
//! text NEL, LS and PS), and the characters no YAML text may hold.

/// Offsets are `u32`: no text is larger.
pub(crate) const NONE: u32 = u32::MAX;

/// The length of the line break at `i` (0 if there is none): CRLF, CR, LF and, unless
/// the text is JSON (where they are characters like any other), NEL, LS and PS.
#[inline(always)]
pub(crate) fn brk(b: &[u8], i: usize, json: bool) -> usize {
    match b.get(i) {
        Some(b'\n') => 1,
        Some(b'\r') => {
            if b.get(i + 1) == Some(&b'\n') {
                2
            } else {
                1
            }
        }
        Some(0xC2) if !json && b.get(i + 1) == Some(&0x85) => 2,
        Some(0xE2)
            if !json
                && b.get(i + 1) == Some(&0x80)
                && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) =>
        {
            3
        }
        _ => 0,
    }
}

#[inline(always)]
pub(crate) fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

/// Classes of bytes for the scanning loops: a byte with any bit set needs a closer look.
pub(crate) const STOP_BLANK: u8 = 1;
/// `\n`, `\r`, and the lead bytes of NEL (and C1 controls), LS/PS, and U+FFFE/U+FFFF.
pub(crate) const STOP_SPECIAL: u8 = 2;
/// `:` (ends a plain scalar before a blank).
pub(crate) const STOP_COLON: u8 = 4;
/// `, ? [ ] { }` (end a plain scalar in flow context).
pub(crate) const STOP_FLOW: u8 = 8;
/// `'`, `"`, `\` (end or escape inside quoted scalars).
pub(crate) const STOP_QUOTE: u8 = 16;
/// Control characters no YAML text may hold.
pub(crate) const STOP_CONTROL: u8 = 32;

pub(crate) static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut i = 0;
    while i < 32 {
        t[i] = STOP_CONTROL;
        i += 1;
    }
    t[0x7F] = STOP_CONTROL;
    t[b'\t' as usize] = STOP_BLANK;
    t[b' ' as usize] = STOP_BLANK;
    t[b'\n' as usize] = STOP_SPECIAL;
    t[b'\r' as usize] = STOP_SPECIAL;
    t[0xC2] = STOP_SPECIAL;
    t[0xE2] = STOP_SPECIAL;
    t[0xEF] = STOP_SPECIAL;
    t[b':' as usize] = STOP_COLON;
    t[b',' as usize] = STOP_FLOW;
    t[b'?' as usize] = STOP_FLOW;
    t[b'[' as usize] = STOP_FLOW;
    t[b']' as usize] = STOP_FLOW;
    t[b'{' as usize] = STOP_FLOW;
    t[b'}' as usize] = STOP_FLOW;
    t[b'\'' as usize] = STOP_QUOTE;
    t[b'"' as usize] = STOP_QUOTE;
    t[b'\\' as usize] = STOP_QUOTE;
    t
};

/// What the byte at `i` (a [`STOP_SPECIAL`] or [`STOP_CONTROL`] byte) is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Special {
    /// A line break of `len` bytes.
    Break(usize),
    /// A character that is allowed: skip `len` bytes.
    Char(usize),
    /// A character no YAML text may hold (its code point).
    Control(u32),
}

/// Looks closer at a byte the tables flagged.
#[inline]
pub(crate) fn special(b: &[u8], i: usize, json: bool) -> Special {
    let c = b[i];
    match c {
        b'\n' => Special::Break(1),
        b'\r' => Special::Break(if b.get(i + 1) == Some(&b'\n') { 2 } else { 1 }),
        b'\t' => Special::Char(1),
        0xC2 => match b.get(i + 1) {
            Some(0x85) if !json => Special::Break(2),
            Some(&n @ 0x80..=0x9F) if n != 0x85 => Special::Control(u32::from(n)),
            _ => Special::Char(2),
        },
        0xE2 => {
            if !json && b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)) {
                Special::Break(3)
            } else {
                Special::Char(3)
            }
        }
        0xEF => {
            if b.get(i + 1) == Some(&0xBF) && matches!(b.get(i + 2), Some(0xBE | 0xBF)) {
                Special::Control(0xFFFE + u32::from(b[i + 2] - 0xBE))
            } else {
                Special::Char(3)
            }
        }
        0..=0x1F | 0x7F => Special::Control(u32::from(c)),
        _ => Special::Char(utf8_len(c)),
    }
}

/// The length of the UTF-8 sequence a lead byte starts (1 for a continuation byte, so
/// that a walk always advances).
#[inline]
pub(crate) fn utf8_len(c: u8) -> usize {
    match c {
        0xC0..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF7 => 4,
        _ => 1,
    }
}

/// Characters (not bytes) in `b`.
pub(crate) fn char_count(b: &[u8]) -> usize {
    b.iter().filter(|&&c| (c & 0xC0) != 0x80).count()
}

/// `[A-Za-z0-9_-]`: what anchor names, directive names and tag handles are made of.
#[inline]
pub(crate) fn is_alpha(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'-'
}

/// Characters a tag's URI may hold besides `%` escapes.
#[inline]
pub(crate) fn is_uri_char(c: u8) -> bool {
    is_alpha(c)
        || matches!(
            c,
            b';' | b'/'
                | b'?'
                | b':'
                | b'@'
                | b'&'
                | b'='
                | b'+'
                | b'$'
                | b','
                | b'.'
                | b'!'
                | b'~'
                | b'*'
                | b'\''
                | b'('
                | b')'
                | b'['
                | b']'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn breaks_are_go_yamls_in_yaml_and_json_s_in_json() {
        let t = "a\r\nb\rc\nd\u{85}e\u{2028}f\u{2029}".as_bytes();
        let yaml: Vec<usize> = (0..t.len()).map(|i| brk(t, i, false)).collect();
        assert_eq!(&yaml[1..4], &[2, 1, 0]);
        assert_eq!(brk(t, 4, false), 1);
        assert_eq!(brk(t, 8, false), 2);
        assert_eq!(brk(t, 8, true), 0);
        assert_eq!(brk(t, 11, false), 3);
        assert_eq!(brk(t, 15, false), 3);
        assert_eq!(brk(t, 15, true), 0);
    }

    #[test]
    fn controls_are_found_and_others_pass() {
        let t = "\u{80}\u{85}\u{a0}\u{fffe}\u{ffff}\u{feff}\u{2027}".as_bytes();
        assert_eq!(special(t, 0, false), Special::Control(0x80));
        assert_eq!(special(t, 2, false), Special::Break(2));
        assert_eq!(special(t, 2, true), Special::Char(2));
        assert_eq!(special(t, 4, false), Special::Char(2));
        assert_eq!(special(t, 6, false), Special::Control(0xFFFE));
        assert_eq!(special(t, 9, false), Special::Control(0xFFFF));
        assert_eq!(special(t, 12, false), Special::Char(3));
        assert_eq!(special(t, 15, false), Special::Char(3));
        assert_eq!(special(b"\x7f", 0, false), Special::Control(0x7F));
        assert_eq!(special(b"\x00", 0, false), Special::Control(0));
    }
}
