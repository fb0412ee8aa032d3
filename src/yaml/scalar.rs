//! How the function writes a string so that both YAML 1.1 readers (kubectl) and YAML
//! 1.2 readers (kpt, kustomize) read back exactly that string.

use std::borrow::Cow;

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

/// A double-quoted scalar; also a valid JSON string.
pub fn double_quoted(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
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
}
