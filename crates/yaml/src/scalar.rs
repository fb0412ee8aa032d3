//! How the function writes a string so that both YAML 1.1 readers (kubectl) and YAML
//! 1.2 readers (kpt, kustomize) read back exactly that string.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Words that some YAML reader takes as a boolean or null rather than a string.
const SPECIAL_WORDS: &[&str] = &[
    "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false",
    "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "<<",
    "=",
];

/// True when `s` can be written as a plain scalar and every reader still sees a string.
/// Deliberately conservative: anything that could look like a number, date, or
/// indicator is quoted.
pub fn plain_is_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if SPECIAL_WORDS.contains(&s) {
        return false;
    }
    // Numbers, dates, times, sexagesimals, .inf/.nan and signs all start like this.
    if first.is_ascii_digit() || matches!(first, '+' | '-' | '.') {
        return false;
    }
    if "?:,[]{}#&*!|>'\"%@`".contains(first) {
        return false;
    }
    if s.ends_with(':') || s.contains(": ") || s.contains(" #") {
        return false;
    }
    s.chars()
        .all(|c| c.is_ascii_graphic() && c != '"' && c != '\'' && c != '\\')
}

/// True when a plain scalar already in the input is read as this very string by both
/// YAML 1.1 and YAML 1.2 readers. Precise rather than conservative: it decides whether an
/// existing value (a hash another tool wrote unquoted) can be left as it is.
pub fn plain_reads_as_string(s: &str) -> bool {
    if s.is_empty() || SPECIAL_WORDS.contains(&s) || s.trim() != s {
        return false;
    }
    let unsigned = s.strip_prefix(['+', '-']).unwrap_or(s);
    let lower = unsigned.to_ascii_lowercase();
    if matches!(lower.as_str(), ".inf" | ".nan") {
        return false;
    }
    // Integers in any base, with YAML 1.1's underscores, and base-60 numbers.
    let digits =
        |t: &str, radix: u32| !t.is_empty() && t.chars().all(|c| c == '_' || c.is_digit(radix));
    if digits(unsigned, 10)
        || lower.strip_prefix("0x").is_some_and(|t| digits(t, 16))
        || lower.strip_prefix("0o").is_some_and(|t| digits(t, 8))
        || lower.strip_prefix("0b").is_some_and(|t| digits(t, 2))
        || (unsigned.contains(':') && unsigned.split(':').all(|p| digits(p, 10)))
    {
        return false;
    }
    // Floats: digits with at most one '.', then an optional exponent.
    let (mantissa, exponent) = match lower.split_once('e') {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (lower.as_str(), None),
    };
    let mantissa_ok = mantissa.matches('.').count() <= 1
        && mantissa.chars().any(|c| c.is_ascii_digit())
        && mantissa
            .chars()
            .all(|c| c == '.' || c == '_' || c.is_ascii_digit());
    if mantissa_ok && exponent.is_none_or(|e| digits(e, 10)) {
        return false;
    }
    // Dates and timestamps start with yyyy-mm-dd.
    let b = s.as_bytes();
    if b.len() >= 10 && b[..4].iter().all(u8::is_ascii_digit) && b[4] == b'-' && b[7] == b'-' {
        return false;
    }
    let first = s.chars().next().unwrap_or(' ');
    !"?:,[]{}#&*!|>'\"%@`-".contains(first) || (first == '-' && s.len() > 1 && !s.starts_with("- "))
}

/// A double-quoted scalar; also a valid JSON string.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    // Runs of printable ASCII other than `"` and `\` are copied whole: results carry
    // messages for every finding, and a character at a time cost a fifth of a run with
    // many of them.
    let bytes = s.as_bytes();
    let (mut copied, mut at) = (0, 0);
    while at < bytes.len() {
        let b = bytes[at];
        if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
            at += 1;
            continue;
        }
        // `at` is a character boundary: only whole characters are stepped over.
        let Some(c) = s[at..].chars().next() else {
            break;
        };
        out.push_str(&s[copied..at]);
        escape_into(&mut out, c);
        at += c.len_utf8();
        copied = at;
    }
    out.push_str(&s[copied..]);
    out.push('"');
    out
}

/// One character of a double-quoted scalar, escaped where it must be.
fn escape_into(out: &mut String, c: char) {
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => out.push_str("\\r"),
        // Controls, and what a reader of either YAML version may take as a line
        // break (NEL, U+2028, U+2029) or refuse in a document (a BOM, U+FFFE,
        // U+FFFF): escaped, so every reader reads this very string back.
        c if (c as u32) < 0x20
            || ('\u{7f}'..='\u{9f}').contains(&c)
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
            ) =>
        {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => out.push(c),
    }
}

/// A key for a block mapping: plain when safe, quoted otherwise.
pub fn key(s: &str) -> Cow<'_, str> {
    if plain_is_safe(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(double_quoted(s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ambiguous_strings_are_never_plain() {
        for s in [
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "Y",
            "N",
            "NO",
            "true",
            "null",
            "~",
            "",
            "0777",
            "0o17",
            "0x1F",
            "0b1",
            "1_000",
            "1e3",
            ".5",
            "1.",
            "+1",
            "-0",
            ".inf",
            ".nan",
            "2001-12-14",
            "12:30",
            "190:20:30",
            "<<",
            "=",
            "- a",
            "a: b",
            "#x",
            " lead",
            "trail ",
            "a #b",
            "x:",
        ] {
            assert!(!plain_is_safe(s), "{s:?} must be quoted");
        }
    }

    #[test]
    fn existing_plain_values_are_judged_precisely() {
        for s in ["4eb2e82007", "abc", "1a", "0x1G", "1.2.3", "1e", "e5"] {
            assert!(plain_reads_as_string(s), "{s:?} is a string");
        }
        for s in [
            "1234",
            "12e45",
            "1.5",
            "0x1F",
            "0o17",
            "1_000",
            "12:30",
            "2001-12-14",
            "yes",
            "~",
            ".inf",
            "-1",
            "1E+3",
        ] {
            assert!(!plain_reads_as_string(s), "{s:?} is not a string");
        }
    }

    #[test]
    fn ordinary_keys_stay_plain() {
        for s in [
            "config-hash.dev/hash",
            "CONFIG_HASH",
            "app",
            "example.com/a_b.c",
        ] {
            assert!(plain_is_safe(s), "{s:?} can be plain");
        }
    }

    #[test]
    fn double_quoting_escapes_what_json_requires() {
        assert_eq!(
            double_quoted("a\"b\\c\nd\u{1}"),
            "\"a\\\"b\\\\c\\nd\\u0001\""
        );
        assert_eq!(double_quoted("ü"), "\"ü\"");
    }

    #[test]
    fn double_quoting_copies_runs_as_escaping_each_character_would() {
        // The character-by-character form the runs replace.
        let each = |s: &str| {
            let mut out = String::from('"');
            for c in s.chars() {
                escape_into(&mut out, c);
            }
            out.push('"');
            out
        };
        let pieces = [
            "",
            "a",
            "plain text",
            "\"",
            "\\",
            "\n",
            "\t",
            "\r",
            "\u{0}",
            "\u{1f}",
            " ",
            "~",
            "\u{7f}",
            "\u{80}",
            "\u{85}",
            "\u{9f}",
            "\u{a0}",
            "ü",
            "\u{2028}",
            "\u{2029}",
            "\u{feff}",
            "\u{fffd}",
            "\u{fffe}",
            "\u{ffff}",
            "🚀",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    let s = format!("{a}{b}x{c}");
                    assert_eq!(double_quoted(&s), each(&s), "{s:?}");
                }
            }
        }
    }

    #[test]
    fn double_quoted_strings_read_back_as_written_whatever_they_hold() {
        // C1 controls, U+FFFE and U+FFFF are refused raw; NEL, U+2028 and U+2029 are
        // read as line breaks by YAML 1.1 readers; a BOM must not stand in a document.
        for s in [
            "a\u{80}b",
            "\u{85}",
            "\u{9f}",
            "a\u{2028}b\u{2029}",
            "\u{feff}x",
            "\u{fffe}\u{ffff}",
            "\u{7f}\t\r\n",
            "\u{a0}\u{fffd}\u{10000}",
        ] {
            let text = format!("k: {}\n", double_quoted(s));
            let tree = crate::tree::Tree::parse(&text, crate::context::Context::of(&text))
                .unwrap_or_else(|e| panic!("{text:?}: {e}"));
            let root = tree.documents()[0].root();
            let value = tree.get(root, "k").and_then(|v| tree.str(v));
            assert_eq!(value, Some(s), "{text:?}");
            assert!(serde_json::from_str::<String>(&double_quoted(s)).is_ok_and(|v| v == s));
        }
    }
}
