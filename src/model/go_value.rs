//! What go-yaml v3 decodes a scalar into, for the hashes that must match a Go tool's:
//! kustomize hashes the JSON of the values it decodes, so `0x1f` counts as 31 there.
//!
//! The rules are go-yaml v3's `resolve` (the YAML reader of kustomize's kyaml), checked
//! value by value against `kubectl kustomize`: its null, boolean and infinity words, then
//! for a scalar starting with a digit or a sign a timestamp, Go's `strconv.ParseInt` and
//! `ParseUint` with base prefixes (`0x`, `0o`, `0b`, and a leading `0` for octal) after
//! every `_` is dropped, then a float.

use std::borrow::Cow;

/// A decoded scalar. Integers are given as the `float64` JSON turns them into.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum GoValue<'a> {
    Null,
    Bool(bool),
    /// An integer or a float; may be infinite or NaN (`.inf`, `.nan`).
    Number(f64),
    /// A date alone (`2001-12-14`): a Go `time.Time` at midnight UTC.
    Date {
        year: u16,
        month: u8,
        day: u8,
    },
    /// A date with a time of day (`2001-12-14T21:59:43Z`), or what may be one: a Go
    /// `time.Time` whose text is not worked out here.
    Timestamp,
    /// `!!binary`: the bytes its base64 gives.
    Binary,
    /// A string: the scalar's text.
    Str(&'a str),
}

/// A scalar tagged as a type it does not read as (`!!int abc`): go-yaml refuses it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WrongTag<'a>(pub &'a str);

/// What go-yaml decodes the scalar `text` into, given whether it was written plain and
/// its tag as written.
pub fn decode<'a>(
    text: &'a str,
    plain: bool,
    tag: Option<&'a str>,
) -> Result<GoValue<'a>, WrongTag<'a>> {
    let Some(written) = tag else {
        return Ok(untagged(text, plain));
    };
    let short = short_tag(written);
    let wanted = match short.as_ref() {
        // The non-specific tag reads as no tag.
        "!" => return Ok(untagged(text, plain)),
        "!!binary" => return Ok(GoValue::Binary),
        t @ ("!!null" | "!!bool" | "!!int" | "!!float" | "!!timestamp") => t,
        // `!!str`, and any tag go-yaml does not resolve, leave the text a string.
        _ => return Ok(GoValue::Str(text)),
    };
    // A core tag reads the text as a plain scalar would be read, quoted or not, and
    // the result must be of the tag's type (an integer passes as a float). go-yaml
    // looks for a timestamp only untagged or under `!!timestamp`, but under another
    // tag a timestamp fails the tag as the string it would be read as does.
    let value = resolve(text);
    let fits = match value {
        Resolved::Null => wanted == "!!null",
        Resolved::Bool(_) => wanted == "!!bool",
        Resolved::Int(_) => matches!(wanted, "!!int" | "!!float"),
        Resolved::Float(_) => wanted == "!!float",
        Resolved::Date { .. } | Resolved::Timestamp => wanted == "!!timestamp",
        Resolved::Str => false,
    };
    if fits {
        Ok(value.into_value(text))
    } else {
        Err(WrongTag(written))
    }
}

fn untagged(text: &str, plain: bool) -> GoValue<'_> {
    if plain {
        resolve(text).into_value(text)
    } else {
        GoValue::Str(text)
    }
}

/// `!<tag:yaml.org,2002:int>` as `!!int`; any other tag as written.
fn short_tag(tag: &str) -> Cow<'_, str> {
    match tag
        .strip_prefix("!<tag:yaml.org,2002:")
        .and_then(|t| t.strip_suffix('>'))
    {
        Some(name) => Cow::Owned(format!("!!{name}")),
        None => Cow::Borrowed(tag),
    }
}

/// go-yaml's reading of a plain scalar, keeping integers apart from floats (a tag
/// tells them apart).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Resolved {
    Null,
    Bool(bool),
    Int(f64),
    Float(f64),
    Date { year: u16, month: u8, day: u8 },
    Timestamp,
    Str,
}

impl Resolved {
    fn into_value(self, text: &str) -> GoValue<'_> {
        match self {
            Resolved::Null => GoValue::Null,
            Resolved::Bool(b) => GoValue::Bool(b),
            Resolved::Int(f) | Resolved::Float(f) => GoValue::Number(f),
            Resolved::Date { year, month, day } => GoValue::Date { year, month, day },
            Resolved::Timestamp => GoValue::Timestamp,
            Resolved::Str => GoValue::Str(text),
        }
    }
}

fn resolve(text: &str) -> Resolved {
    match text {
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        "" | "~" | "null" | "Null" | "NULL" => return Resolved::Null,
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        _ => {}
    }
    match text.as_bytes()[0] {
        // Go's ParseFloat on the text as it is (no `_` dropped); out of range, a string.
        b'.' => match text.parse::<f64>() {
            Ok(f) if f.is_finite() => Resolved::Float(f),
            _ => Resolved::Str,
        },
        b'0'..=b'9' | b'+' | b'-' => {
            if let Some(t) = timestamp(text) {
                return t;
            }
            let plain: Cow<'_, str> = if text.contains('_') {
                Cow::Owned(text.replace('_', ""))
            } else {
                Cow::Borrowed(text)
            };
            if let Some(i) = parse_int(&plain) {
                return Resolved::Int(i as f64);
            }
            if let Some(u) = parse_uint(&plain) {
                return Resolved::Int(u as f64);
            }
            // Rust's float grammar is go-yaml's float pattern
            // `^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$` and the words
            // `inf`, `infinity` and `nan` (signed, any case), never finite; Go's
            // ParseFloat fails on a number out of range, which then is a string too.
            match plain.parse::<f64>() {
                Ok(f) if f.is_finite() => Resolved::Float(f),
                _ => Resolved::Str,
            }
        }
        _ => Resolved::Str,
    }
}

/// Go's `strconv.ParseUint(s, 0, 64)`: `0x`, `0o`, `0b` (either case) or a leading
/// `0` (octal) choose the base; `None` when not a number or over 64 bits.
fn parse_uint(s: &str) -> Option<u64> {
    let b = s.as_bytes();
    let (radix, digits) = match b {
        [b'0', p, _, ..] if matches!(p | 0x20, b'x' | b'o' | b'b') => {
            let radix = match p | 0x20 {
                b'x' => 16,
                b'o' => 8,
                _ => 2,
            };
            (radix, &s[2..])
        }
        [b'0', ..] => (8, &s[1..]),
        [] => return None,
        _ => (10, s),
    };
    digits.chars().try_fold(0u64, |n, c| {
        n.checked_mul(u64::from(radix))?
            .checked_add(u64::from(c.to_digit(radix)?))
    })
}

/// Go's `strconv.ParseInt(s, 0, 64)`: an optional sign, then as `parse_uint`.
fn parse_int(s: &str) -> Option<i64> {
    let (negative, magnitude) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let n = i128::from(parse_uint(magnitude)?);
    i64::try_from(if negative { -n } else { n }).ok()
}

/// go-yaml's timestamps start with four digits and a `-`, then Go's `time.Parse`
/// decides. A date alone (`2006-1-2`: month and day of one or two digits, in range) is
/// read exactly; a valid date followed by `T`, `t` or a space is taken for a timestamp
/// with a time of day (which `time.Parse` may yet refuse: then go-yaml reads a string).
fn timestamp(s: &str) -> Option<Resolved> {
    let (year, rest) = s.split_at_checked(4)?;
    if !year.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let year: u16 = year.parse().ok()?;
    let (month, rest) = one_or_two_digits(rest.strip_prefix('-')?)?;
    let (day, rest) = one_or_two_digits(rest.strip_prefix('-')?)?;
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        2 if leap => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        1..=12 => 31,
        _ => return None,
    };
    if day == 0 || day > days {
        return None;
    }
    match rest.as_bytes().first() {
        None => Some(Resolved::Date { year, month, day }),
        Some(b'T' | b't' | b' ') => Some(Resolved::Timestamp),
        Some(_) => None,
    }
}

/// Go's `getnum` for a one-or-two-digit field: the number and the rest.
fn one_or_two_digits(s: &str) -> Option<(u8, &str)> {
    let len = s.bytes().take(2).take_while(u8::is_ascii_digit).count();
    Some((s[..len].parse().ok()?, &s[len..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(text: &str) -> GoValue<'_> {
        decode(text, true, None).unwrap()
    }

    /// Each spelling with the number kubectl kustomize (v5.5) hashed for it.
    #[test]
    fn numbers_read_as_go_yaml_reads_them() {
        for (text, number) in [
            ("42", 42.0),
            ("007", 7.0),
            ("017", 15.0),
            ("08", 8.0),
            ("09.5", 9.5),
            ("0", 0.0),
            ("-0", 0.0),
            ("-0.0", -0.0),
            ("+12", 12.0),
            ("0x1f", 31.0),
            ("0X1F", 31.0),
            ("+0x1f", 31.0),
            ("0x_1f", 31.0),
            ("0o17", 15.0),
            ("0O17", 15.0),
            ("0b101", 5.0),
            ("0B101", 5.0),
            ("-0b101", -5.0),
            ("1_000", 1000.0),
            ("1__0", 10.0),
            ("1_", 1.0),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e+3", 1000.0),
            ("1.0", 1.0),
            ("1.", 1.0),
            ("1.5", 1.5),
            (".5", 0.5),
            ("+.5", 0.5),
            ("-.5", -0.5),
            (".1e3", 100.0),
            ("-1e-7", -1e-7),
            ("12345678901234567890", 12345678901234567890.0),
            ("18446744073709551615", 18446744073709551615.0),
            ("9223372036854775808", 9223372036854775808.0),
            ("-9223372036854775808", -9223372036854775808.0),
            ("-9223372036854775809", -9223372036854775809.0),
            ("123456789012345678901234", 123456789012345678901234.0),
        ] {
            assert_eq!(plain(text), GoValue::Number(number), "{text}");
        }
        for text in [".inf", ".Inf", ".INF", "+.inf", "-.inf", ".nan", ".NaN"] {
            let GoValue::Number(f) = plain(text) else {
                panic!("{text} is a number");
            };
            assert!(!f.is_finite(), "{text}");
        }
    }

    #[test]
    fn other_words_read_as_go_yaml_reads_them() {
        for (text, value) in [
            ("true", GoValue::Bool(true)),
            ("True", GoValue::Bool(true)),
            ("TRUE", GoValue::Bool(true)),
            ("false", GoValue::Bool(false)),
            ("False", GoValue::Bool(false)),
            ("FALSE", GoValue::Bool(false)),
            ("~", GoValue::Null),
            ("null", GoValue::Null),
            ("Null", GoValue::Null),
            ("NULL", GoValue::Null),
            ("", GoValue::Null),
            // YAML 1.1 words, sexagesimals, overflowing floats, and what is not a
            // number in Go: strings.
            ("yes", GoValue::Str("yes")),
            ("on", GoValue::Str("on")),
            ("1:20", GoValue::Str("1:20")),
            ("1e400", GoValue::Str("1e400")),
            (".5e400", GoValue::Str(".5e400")),
            ("0x", GoValue::Str("0x")),
            ("_1", GoValue::Str("_1")),
            ("0x1p3", GoValue::Str("0x1p3")),
            ("1.5.5", GoValue::Str("1.5.5")),
            (".", GoValue::Str(".")),
            ("+", GoValue::Str("+")),
            ("-", GoValue::Str("-")),
            ("1e", GoValue::Str("1e")),
            (".e3", GoValue::Str(".e3")),
            ("+inf", GoValue::Str("+inf")),
            ("-nan", GoValue::Str("-nan")),
            ("+Infinity", GoValue::Str("+Infinity")),
            ("-NaN", GoValue::Str("-NaN")),
            ("<<", GoValue::Str("<<")),
            ("0b12", GoValue::Str("0b12")),
            ("0o8", GoValue::Str("0o8")),
            ("1.5e3.1", GoValue::Str("1.5e3.1")),
        ] {
            assert_eq!(plain(text), value, "{text}");
        }
    }

    #[test]
    fn dates_are_read_and_other_timestamps_told_apart() {
        for (text, value) in [
            (
                "2001-12-14",
                GoValue::Date {
                    year: 2001,
                    month: 12,
                    day: 14,
                },
            ),
            (
                "2001-1-2",
                GoValue::Date {
                    year: 2001,
                    month: 1,
                    day: 2,
                },
            ),
            (
                "2000-02-29",
                GoValue::Date {
                    year: 2000,
                    month: 2,
                    day: 29,
                },
            ),
            ("2001-12-14T21:59:43.10-05:00", GoValue::Timestamp),
            ("2001-12-14t21:59:43Z", GoValue::Timestamp),
            ("2001-12-14 21:59:43.10", GoValue::Timestamp),
            // Out of range or not a date: go-yaml reads a string.
            ("2001-02-30", GoValue::Str("2001-02-30")),
            ("1900-02-29", GoValue::Str("1900-02-29")),
            ("2001-04-31", GoValue::Str("2001-04-31")),
            ("2001-13-01", GoValue::Str("2001-13-01")),
            ("2001-00-01", GoValue::Str("2001-00-01")),
            ("2001-01-00", GoValue::Str("2001-01-00")),
            ("2001-012-01", GoValue::Str("2001-012-01")),
            ("2001-1-123", GoValue::Str("2001-1-123")),
            ("20011-1-1", GoValue::Str("20011-1-1")),
            ("2001-1", GoValue::Str("2001-1")),
            ("2001-", GoValue::Str("2001-")),
            ("2001x1-1", GoValue::Str("2001x1-1")),
            ("+200-1-1", GoValue::Str("+200-1-1")),
            ("-200-1-1", GoValue::Str("-200-1-1")),
            ("2001", GoValue::Number(2001.0)),
        ] {
            assert_eq!(plain(text), value, "{text}");
        }
        // Only untagged (or !!timestamp) scalars are dates.
        assert_eq!(
            decode("2001-12-14", true, Some("!!timestamp")),
            Ok(GoValue::Date {
                year: 2001,
                month: 12,
                day: 14
            })
        );
        assert_eq!(
            decode("2001-12-14", true, Some("!!int")),
            Err(WrongTag("!!int"))
        );
    }

    #[test]
    fn tags_choose_or_check_the_type() {
        let quoted = |text, tag| decode(text, false, Some(tag));
        assert_eq!(quoted("42", "!!int"), Ok(GoValue::Number(42.0)));
        assert_eq!(quoted("1", "!!float"), Ok(GoValue::Number(1.0)));
        assert_eq!(quoted("0x10", "!!float"), Ok(GoValue::Number(16.0)));
        assert_eq!(quoted("1.5", "!!float"), Ok(GoValue::Number(1.5)));
        assert_eq!(quoted("", "!!null"), Ok(GoValue::Null));
        assert_eq!(quoted("true", "!!bool"), Ok(GoValue::Bool(true)));
        assert_eq!(
            quoted("42", "!<tag:yaml.org,2002:int>"),
            Ok(GoValue::Number(42.0))
        );
        assert_eq!(quoted("42", "!!str"), Ok(GoValue::Str("42")));
        assert_eq!(quoted("aGVsbG8=", "!!binary"), Ok(GoValue::Binary));
        assert_eq!(quoted("42", "!foo"), Ok(GoValue::Str("42")));
        assert_eq!(decode("42", true, Some("!")), Ok(GoValue::Number(42.0)));
        assert_eq!(decode("42", false, Some("!")), Ok(GoValue::Str("42")));
        assert_eq!(decode("42", false, None), Ok(GoValue::Str("42")));
        for (text, tag) in [
            ("abc", "!!int"),
            ("1.5", "!!int"),
            ("abc", "!!float"),
            ("yes", "!!bool"),
            ("abc", "!!null"),
            ("42", "!!bool"),
            ("42", "!!timestamp"),
            ("~", "!!int"),
        ] {
            assert_eq!(quoted(text, tag), Err(WrongTag(tag)), "{tag} {text}");
        }
    }
}
