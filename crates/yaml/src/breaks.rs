//! Line breaks as go-yaml reads them. Lone CR line breaks: YAML (and go-yaml, which kubectl, kustomize and kpt read with)
//! counts CR, LF and CRLF as line breaks; the editor thinks in LF.
//! A text with lone CRs is read through a copy with each lone CR turned into LF (the
//! same length, so every offset holds), and the edits made against the copy are given
//! back the original's line breaks.

/// The characters go-yaml takes for line breaks besides CR and LF (NEL, LS, PS), in
/// YAML text; in JSON text they are characters like any other.
pub const UNICODE_BREAKS: [char; 3] = ['\u{85}', '\u{2028}', '\u{2029}'];

/// kubectl reads a text that starts with `{` or `[` as JSON.
pub fn reads_as_json(src: &str) -> bool {
    crate::context::Context::of(src).json()
}

/// The text with every CR that does not start a CRLF replaced by LF, or `None` when
/// there is no such CR (the common case: nothing is copied).
pub fn lone_cr_as_lf(text: &str) -> Option<String> {
    let b = text.as_bytes();
    let lone = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    // A fast byte search for each CR: most inputs have none, and this reads all of it.
    let first = text
        .match_indices('\r')
        .map(|(i, _)| i)
        .find(|&i| lone(i))?;
    let mut out = b.to_vec();
    for (i, byte) in out.iter_mut().enumerate().skip(first) {
        if lone(i) {
            *byte = b'\n';
        }
    }
    // Only ASCII bytes were replaced by ASCII bytes.
    Some(String::from_utf8(out).expect("still UTF-8"))
}

/// `text`, written for the LF copy at `pos`, with the line breaks the original uses
/// there: where the line at `pos` (or, at the end, the one before) ends in a lone CR,
/// each LF that is not part of a CRLF becomes CR.
pub(crate) fn restore_breaks(original: &str, pos: usize, text: &str) -> String {
    let b = original.as_bytes();
    let pos = pos.min(b.len());
    let next = b[pos..]
        .iter()
        .position(|&c| c == b'\r' || c == b'\n')
        .map(|i| pos + i);
    let prev = b[..pos].iter().rposition(|&c| c == b'\r' || c == b'\n');
    let lone_cr = |i: usize| b[i] == b'\r' && b.get(i + 1) != Some(&b'\n');
    let uses_cr = match next {
        Some(i) => lone_cr(i),
        None => prev.is_some_and(lone_cr),
    };
    if !uses_cr || !text.contains('\n') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut after_cr = false;
    for c in text.chars() {
        out.push(if c == '\n' && !after_cr { '\r' } else { c });
        after_cr = c == '\r';
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lone_crs_become_lf() {
        assert_eq!(lone_cr_as_lf("a\r\nb\n"), None);
        assert_eq!(lone_cr_as_lf("a\r\nb\rc\r").as_deref(), Some("a\r\nb\nc\n"));
    }

    #[test]
    fn inserted_text_takes_the_break_of_its_line() {
        let original = "a:\r  b: 1\rc: 2\r\n";
        assert_eq!(restore_breaks(original, 3, "  x: 1\n"), "  x: 1\r");
        assert_eq!(restore_breaks(original, 14, "\n  y"), "\n  y");
        assert_eq!(restore_breaks("a: 1\r", 5, "b: 2\n"), "b: 2\r");
    }
}
