//! kustomize-compatible name suffixes and Kubernetes name limits.
//!
//! Users who move from kustomize's `configMapGenerator` / `secretGenerator` keep their
//! object names only if our suffix is byte-for-byte the one kustomize computes, so this
//! module is a contract, not a design choice: it mirrors kustomize's `api/hasher` as
//! specified in `docs/kustomize-name-hash.md` and is pinned by that document's vectors.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};

/// Longest name Kubernetes accepts for a ConfigMap or Secret (a DNS subdomain).
pub const MAX_NAME_LEN: usize = 253;

/// Length of the suffix kustomize appends (after a `-`) to a generated name.
pub const SUFFIX_LEN: usize = 10;

/// A value as kustomize's hasher decodes it (go-yaml, then JSON): strings are JSON
/// strings; nulls, booleans and numbers are JSON literals.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HashScalar<'a> {
    /// A string value; escaped here the way Go's `encoding/json` does.
    Str(&'a str),
    /// JSON literal text already valid as JSON (`true`, `false`, `null`), written
    /// verbatim.
    Literal(&'a str),
    /// A number. kustomize decodes the JSON of a map into Go `interface{}` values, so
    /// every number, integer or not, is a `float64` by the time it is hashed: written as
    /// Go's `encoding/json` writes a `float64` (`1e3` is `1000`, `2^53 + 1` loses its
    /// last bit). Finite only: Go refuses to encode infinities and NaN.
    Number(f64),
    /// A date (`2001-12-14`): go-yaml decodes a plain date into a Go `time.Time`, which
    /// JSON writes as the RFC 3339 time at midnight UTC.
    Date { year: u16, month: u8, day: u8 },
}

/// A top-level field kustomize hashes, as its field lookup finds it.
#[derive(Debug, Clone, PartialEq)]
pub enum HashField<'a> {
    /// A scalar, hashed as its text whatever YAML reads it as (`data: ~` is the string
    /// `"~"`). An absent field is the empty text.
    Text(&'a str),
    /// A sequence: kustomize's hasher decodes its JSON into a Go map, which fails
    /// silently and leaves a nil map, written as `null`.
    Null,
    /// A mapping, as (key, value) pairs in any order.
    Map(Vec<(&'a str, HashScalar<'a>)>),
}

/// The two kinds kustomize hashes; they differ in which fields enter the hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfigKind {
    ConfigMap,
    Secret,
}

/// What kustomize hashes.
///
/// Fields that do not belong to `kind` (`binary_data` on a Secret, `string_data` and
/// `secret_type` on a ConfigMap) are ignored, as kustomize never looks at them.
#[derive(Debug, Clone, PartialEq)]
pub struct HashInput<'a> {
    pub kind: ConfigKind,
    pub data: HashField<'a>,
    /// ConfigMap only. `None` leaves the field out of the JSON, as kustomize does when
    /// it is absent or a scalar; a mapping or a sequence (`Null`) is written.
    pub binary_data: Option<HashField<'a>>,
    /// Secret only; included on the same terms as `binary_data`.
    pub string_data: Option<HashField<'a>>,
    /// Secret only; absent hashes as the empty text, not as kustomize's `Opaque` default.
    pub secret_type: HashField<'a>,
}

/// The JSON text kustomize hashes (Go encoding/json of a sorted map), exposed for tests.
pub fn kustomize_hash_json(input: &HashInput) -> String {
    let mut out = String::with_capacity(64);
    // Go sorts the top-level keys too; they are written here already in bytewise order
    // (binaryData < data < kind < name < stringData < type). "name" is always empty:
    // kustomize looks it up with the path "metadata/name" as a single field name, which
    // never matches, and changing that would rename every generated object.
    out.push('{');
    match input.kind {
        ConfigKind::ConfigMap => {
            if let Some(binary) = &input.binary_data {
                out.push_str("\"binaryData\":");
                write_field(&mut out, binary);
                out.push(',');
            }
            out.push_str("\"data\":");
            write_field(&mut out, &input.data);
            out.push_str(",\"kind\":\"ConfigMap\",\"name\":\"\"");
        }
        ConfigKind::Secret => {
            out.push_str("\"data\":");
            write_field(&mut out, &input.data);
            out.push_str(",\"kind\":\"Secret\",\"name\":\"\"");
            if let Some(string_data) = &input.string_data {
                out.push_str(",\"stringData\":");
                write_field(&mut out, string_data);
            }
            out.push_str(",\"type\":");
            write_field(&mut out, &input.secret_type);
        }
    }
    out.push('}');
    out
}

/// The 10-character suffix, e.g. "6b56fdfggc".
pub fn kustomize_suffix(input: &HashInput) -> String {
    suffix_of_digest(&Sha256::digest(kustomize_hash_json(input).as_bytes()))
}

/// The 10 characters kustomize's alphabet makes of any digest (for names other than
/// generated objects', such as a Job's).
pub fn suffix_of_digest(digest: &[u8]) -> String {
    digest
        .iter()
        .flat_map(|byte| [byte >> 4, byte & 0x0f])
        .take(SUFFIX_LEN)
        .map(suffix_char)
        .collect()
}

/// Whether `text` is a suffix kustomize could have made: 10 characters of its alphabet.
pub fn is_suffix(text: &str) -> bool {
    text.len() == SUFFIX_LEN
        && text
            .bytes()
            .all(|b| (0..16u8).any(|n| suffix_char(n) as u32 == u32::from(b)))
}

/// The name before a hashed-name suffix (`-` and 10 characters of kustomize's
/// alphabet), when `name` ends with one. A name of ten letters without vowels or 0, 1
/// and 3 is no English word, so a real name is rarely taken for one.
pub fn strip_kustomize_suffix(name: &str) -> Option<&str> {
    let (stem, suffix) = name.rsplit_once('-')?;
    (!stem.is_empty() && is_suffix(suffix)).then_some(stem)
}

/// One hex digit of the digest as kustomize spells it: it swaps 0, 1, 3, a and e for
/// letters so a suffix never parses as a number and cannot spell words with vowels.
fn suffix_char(nibble: u8) -> char {
    match nibble & 0x0f {
        0x0 => 'g',
        0x1 => 'h',
        0x3 => 'k',
        0xa => 'm',
        0xe => 't',
        n => char::from(HEX_DIGITS[usize::from(n)]),
    }
}

const HEX_DIGITS: &[u8; 16] = b"0123456789abcdef";

/// A top-level field: kustomize encodes a missing field as the empty string (its
/// lookup yields "" for absent paths), which is distinct from an empty map `{}`.
fn write_field(out: &mut String, field: &HashField) {
    match field {
        HashField::Text(text) => write_json_string(out, text),
        HashField::Null => out.push_str("null"),
        HashField::Map(pairs) => write_map(out, pairs),
    }
}

/// A Go `map[string]interface{}`: keys sorted bytewise (Go's `strings.Compare`, which
/// `str`'s `Ord` matches), and a repeated key keeps its last value as a map would.
fn write_map(out: &mut String, pairs: &[(&str, HashScalar)]) {
    let mut sorted: BTreeMap<&str, HashScalar> = BTreeMap::new();
    for &(key, value) in pairs {
        sorted.insert(key, value);
    }
    out.push('{');
    for (i, (key, value)) in sorted.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_json_string(out, key);
        out.push(':');
        match value {
            HashScalar::Str(s) => write_json_string(out, s),
            HashScalar::Literal(text) => out.push_str(text),
            HashScalar::Number(f) => write_go_float(out, f),
            HashScalar::Date { year, month, day } => {
                let _ = write!(out, "\"{year:04}-{month:02}-{day:02}T00:00:00Z\"");
            }
        }
    }
    out.push('}');
}

/// A `float64` as Go's `encoding/json` writes it: the shortest digits that read back
/// as the same number, in plain notation, or in exponent notation below 1e-6 and from
/// 1e21 on (`1e+21`, `1e-7`: a sign always, no leading zero in the exponent).
fn write_go_float(out: &mut String, f: f64) {
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        // Rust's `{:e}` gives the same shortest digits: `1e21`, `1.5e-7`.
        let text = format!("{f:e}");
        let (mantissa, exponent) = text.split_once('e').unwrap_or((&text, "0"));
        out.push_str(mantissa);
        out.push('e');
        if !exponent.starts_with('-') {
            out.push('+');
        }
        out.push_str(exponent);
    } else {
        // Rust's `Display` gives the shortest digits in plain notation, as Go's 'f'
        // format with precision -1 does (`-0` included).
        let _ = write!(out, "{f}");
    }
}

/// A JSON string escaped exactly as Go's `encoding/json` does with HTML escaping on
/// (its default, which kustomize uses); serde_json would differ on `<>&` and U+2028/9.
fn write_json_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Short forms since Go 1.22; kubectl's kustomize is built with a newer Go.
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            // HTML-significant characters, so JSON can be embedded in <script> safely,
            // and the JavaScript line terminators.
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => push_unicode_escape(out, c),
            // DEL (U+007F) is not escaped by Go, only C0 controls are.
            c if c < ' ' => push_unicode_escape(out, c),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `\uXXXX` with lowercase hex, as Go writes it; only called for BMP characters.
fn push_unicode_escape(out: &mut String, c: char) {
    let code = u32::from(c);
    out.push_str("\\u");
    for shift in [12, 8, 4, 0] {
        out.push(char::from(HEX_DIGITS[((code >> shift) & 0x0f) as usize]));
    }
}

/// Why kustomize's hash of an object is not given. Never carries a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unhashable {
    // kubectl kustomize fails on these too.
    /// `.inf`, `.nan`: Go's JSON encoder refuses them.
    NotFinite,
    /// `!!int abc`: go-yaml refuses it.
    WrongTag(String),
    /// A key go-yaml reads as a number, boolean or null: kustomize cannot write the
    /// object out.
    KeyNotAString,
    // kubectl kustomize hashes these; config-hash does not reproduce how.
    /// A date with a time of day (a Go `time.Time` in RFC 3339 with its zone).
    Timestamp,
    /// `!!binary` (the decoded bytes, invalid UTF-8 replaced).
    Binary,
    /// A mapping or sequence as a value of `data` (nested JSON).
    Nested,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ConfigMap whose data is the map given, or absent.
    fn config_map<'a>(data: Option<Vec<(&'a str, HashScalar<'a>)>>) -> HashInput<'a> {
        HashInput {
            kind: ConfigKind::ConfigMap,
            data: data.map_or(HashField::Text(""), HashField::Map),
            binary_data: None,
            string_data: None,
            secret_type: HashField::Text(""),
        }
    }

    fn strs<'a>(pairs: &[(&'a str, &'a str)]) -> Vec<(&'a str, HashScalar<'a>)> {
        pairs
            .iter()
            .map(|&(k, v)| (k, HashScalar::Str(v)))
            .collect()
    }

    /// The JSON a ConfigMap with the single entry `k: value` hashes, to test escaping.
    fn json_of_value(value: &str) -> String {
        kustomize_hash_json(&config_map(Some(strs(&[("k", value)]))))
    }

    fn escaped(value: &str) -> String {
        let json = json_of_value(value);
        json.strip_prefix("{\"data\":{\"k\":")
            .and_then(|rest| rest.strip_suffix("},\"kind\":\"ConfigMap\",\"name\":\"\"}"))
            .unwrap_or_else(|| panic!("unexpected shape: {json}"))
            .to_owned()
    }

    #[track_caller]
    fn assert_vector(input: &HashInput, json: &str, suffix: &str) {
        assert_eq!(kustomize_hash_json(input), json);
        assert_eq!(kustomize_suffix(input), suffix);
    }

    #[test]
    fn vector_config_map_without_data() {
        assert_vector(
            &config_map(None),
            r#"{"data":"","kind":"ConfigMap","name":""}"#,
            "6ct58987ht",
        );
    }

    #[test]
    fn vector_config_map_with_data() {
        assert_vector(
            &config_map(Some(strs(&[("one", "")]))),
            r#"{"data":{"one":""},"kind":"ConfigMap","name":""}"#,
            "9g67k2htb6",
        );
    }

    #[test]
    fn vector_config_map_with_binary_data() {
        let input = HashInput {
            binary_data: Some(HashField::Map(strs(&[("two", "")]))),
            ..config_map(Some(strs(&[("one", "")])))
        };
        assert_vector(
            &input,
            r#"{"binaryData":{"two":""},"data":{"one":""},"kind":"ConfigMap","name":""}"#,
            "698h7c7t9m",
        );
    }

    #[test]
    fn vector_secret_without_data() {
        let input = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Text(""),
            binary_data: None,
            string_data: None,
            secret_type: HashField::Text("my-type"),
        };
        assert_vector(
            &input,
            r#"{"data":"","kind":"Secret","name":"","type":"my-type"}"#,
            "5gmgkf8578",
        );
    }

    #[test]
    fn vector_secret_with_string_data_number() {
        let input = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Map(strs(&[("one", "")])),
            binary_data: None,
            string_data: Some(HashField::Map(vec![("two", HashScalar::Number(2.0))])),
            secret_type: HashField::Text("my-type"),
        };
        assert_vector(
            &input,
            r#"{"data":{"one":""},"kind":"Secret","name":"","stringData":{"two":2},"type":"my-type"}"#,
            "c4h4264gdb",
        );
    }

    #[test]
    fn vector_literals_a_and_b() {
        assert_vector(
            &config_map(Some(strs(&[("A", "1"), ("B", "two")]))),
            r#"{"data":{"A":"1","B":"two"},"kind":"ConfigMap","name":""}"#,
            "6b56fdfggc",
        );
    }

    #[test]
    fn secret_checked_against_kubectl() {
        // `secretGenerator` with PASSWORD=hunter2, as kubectl kustomize names it.
        let input = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Map(strs(&[("PASSWORD", "aHVudGVyMg==")])),
            binary_data: None,
            string_data: None,
            secret_type: HashField::Text("Opaque"),
        };
        assert_eq!(kustomize_suffix(&input), "9279h2tbm8");
    }

    #[test]
    fn missing_map_differs_from_empty_map() {
        assert_eq!(
            kustomize_hash_json(&config_map(Some(Vec::new()))),
            r#"{"data":{},"kind":"ConfigMap","name":""}"#
        );
        assert_ne!(
            kustomize_suffix(&config_map(Some(Vec::new()))),
            kustomize_suffix(&config_map(None))
        );
    }

    #[test]
    fn empty_binary_data_map_is_included() {
        let input = HashInput {
            binary_data: Some(HashField::Map(Vec::new())),
            ..config_map(None)
        };
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"binaryData":{},"data":"","kind":"ConfigMap","name":""}"#
        );
    }

    #[test]
    fn missing_secret_type_is_empty_string() {
        let input = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Map(Vec::new()),
            binary_data: None,
            string_data: Some(HashField::Map(Vec::new())),
            secret_type: HashField::Text(""),
        };
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":{},"kind":"Secret","name":"","stringData":{},"type":""}"#
        );
    }

    #[test]
    fn fields_of_the_other_kind_are_ignored() {
        let map = HashInput {
            string_data: Some(HashField::Map(strs(&[("s", "x")]))),
            secret_type: HashField::Text("Opaque"),
            ..config_map(Some(strs(&[("a", "b")])))
        };
        assert_eq!(
            kustomize_hash_json(&map),
            kustomize_hash_json(&config_map(Some(strs(&[("a", "b")]))))
        );
        let secret = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Text(""),
            binary_data: Some(HashField::Map(strs(&[("b", "x")]))),
            string_data: None,
            secret_type: HashField::Text("t"),
        };
        assert_eq!(
            kustomize_hash_json(&secret),
            r#"{"data":"","kind":"Secret","name":"","type":"t"}"#
        );
    }

    #[test]
    fn literals_are_written_verbatim() {
        let input = config_map(Some(vec![
            ("b", HashScalar::Literal("true")),
            ("f", HashScalar::Number(1.5)),
            ("n", HashScalar::Literal("null")),
        ]));
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":{"b":true,"f":1.5,"n":null},"kind":"ConfigMap","name":""}"#
        );
    }

    /// Numbers are written as Go writes a `float64`; each text gives the suffix kubectl
    /// kustomize (v5.5) gave for a value that decodes to that number.
    #[test]
    fn numbers_are_written_as_go_writes_a_float64() {
        let number = |f: f64| {
            let json = kustomize_hash_json(&config_map(Some(vec![("a", HashScalar::Number(f))])));
            json.strip_prefix("{\"data\":{\"a\":")
                .and_then(|rest| rest.strip_suffix("},\"kind\":\"ConfigMap\",\"name\":\"\"}"))
                .unwrap_or_else(|| panic!("unexpected shape: {json}"))
                .to_owned()
        };
        for (f, text) in [
            (0.0, "0"),
            (-0.0, "-0"),
            (7.0, "7"),
            (1.0, "1"),     // 1.0
            (0.5, "0.5"),   // .5
            (-0.5, "-0.5"), // -.5
            (1e20, "100000000000000000000"),
            (12345678901234567890.0, "12345678901234567000"),
            (9007199254740993.0, "9007199254740992"),
            (-9223372036854775809.0, "-9223372036854776000"),
            (1e21, "1e+21"),
            (123456789012345678901234.0, "1.2345678901234569e+23"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (-1e-7, "-1e-7"),
            (1.5e-10, "1.5e-10"),
            (1e300, "1e+300"),
        ] {
            assert_eq!(number(f), text, "{f:?}");
        }
    }

    #[test]
    fn fields_are_text_null_or_a_map_and_dates_are_times() {
        let input = HashInput {
            kind: ConfigKind::Secret,
            data: HashField::Text("~"),
            binary_data: None,
            string_data: Some(HashField::Null),
            secret_type: HashField::Map(vec![(
                "d",
                HashScalar::Date {
                    year: 2001,
                    month: 2,
                    day: 3,
                },
            )]),
        };
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":"~","kind":"Secret","name":"","stringData":null,"type":{"d":"2001-02-03T00:00:00Z"}}"#
        );
        // kubectl kustomize names `data: ~` so.
        let tilde = HashInput {
            data: HashField::Text("~"),
            ..config_map(None)
        };
        assert_eq!(kustomize_suffix(&tilde), "2t8tf57kh6");
        let null = HashInput {
            binary_data: Some(HashField::Null),
            ..config_map(Some(strs(&[("a", "b")])))
        };
        assert_eq!(kustomize_suffix(&null), "7tfgmmmf4f");
    }

    #[test]
    fn html_characters_use_unicode_escapes() {
        assert_eq!(
            escaped("<a href=\"x\">&</a>"),
            r#""\u003ca href=\"x\"\u003e\u0026\u003c/a\u003e""#
        );
    }

    #[test]
    fn line_and_paragraph_separators_are_escaped() {
        assert_eq!(escaped("a\u{2028}b\u{2029}c"), r#""a\u2028b\u2029c""#);
    }

    #[test]
    fn quotes_and_backslashes_are_escaped() {
        assert_eq!(escaped(r#"say "hi" C:\dir\"#), r#""say \"hi\" C:\\dir\\""#);
    }

    #[test]
    fn short_escapes() {
        assert_eq!(escaped("\n\r\t\u{8}\u{c}"), r#""\n\r\t\b\f""#);
    }

    #[test]
    fn other_control_characters_use_lowercase_hex() {
        assert_eq!(
            escaped("\0\u{1}\u{b}\u{1b}\u{1f}"),
            r#""\u0000\u0001\u000b\u001b\u001f""#
        );
    }

    #[test]
    fn delete_and_non_ascii_stay_raw() {
        // Go leaves DEL, C1 controls, BOM and astral characters alone (valid UTF-8 only).
        let raw = "\u{7f}\u{85}\u{a0}é日本\u{feff}🦀";
        assert_eq!(escaped(raw), format!("\"{raw}\""));
    }

    #[test]
    fn keys_are_escaped_like_values() {
        let input = config_map(Some(strs(&[("<&>", "")])));
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":{"\u003c\u0026\u003e":""},"kind":"ConfigMap","name":""}"#
        );
    }

    #[test]
    fn keys_sort_bytewise() {
        let input = config_map(Some(strs(&[
            ("a", ""),
            ("é", ""),
            ("_", ""),
            ("Z", ""),
            ("a.b", ""),
            ("-", ""),
            ("9", ""),
            (".", ""),
        ])));
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":{"-":"",".":"","9":"","Z":"","_":"","a":"","a.b":"","é":""},"kind":"ConfigMap","name":""}"#
        );
    }

    #[test]
    fn key_order_does_not_matter() {
        let pairs = [("A", "1"), ("B", "two"), ("c", "3"), ("D.e", "x")];
        let expected = kustomize_suffix(&config_map(Some(strs(&pairs))));
        // Every rotation and the reversal of the pairs hashes the same.
        for start in 0..pairs.len() {
            let mut rotated = pairs.to_vec();
            rotated.rotate_left(start);
            assert_eq!(
                kustomize_suffix(&config_map(Some(strs(&rotated)))),
                expected
            );
            rotated.reverse();
            assert_eq!(
                kustomize_suffix(&config_map(Some(strs(&rotated)))),
                expected
            );
        }
    }

    #[test]
    fn duplicate_keys_keep_the_last_value() {
        let input = config_map(Some(strs(&[("A", "old"), ("B", "two"), ("A", "1")])));
        assert_eq!(
            kustomize_hash_json(&input),
            r#"{"data":{"A":"1","B":"two"},"kind":"ConfigMap","name":""}"#
        );
        assert_eq!(kustomize_suffix(&input), "6b56fdfggc");
    }

    #[test]
    fn suffix_avoids_digits_and_vowels_kustomize_replaces() {
        for i in 0..500 {
            let value = i.to_string();
            let suffix = kustomize_suffix(&config_map(Some(strs(&[("k", &value)]))));
            assert_eq!(suffix.len(), SUFFIX_LEN);
            assert_eq!(
                strip_kustomize_suffix(&format!("web-{suffix}")),
                Some("web")
            );
            assert!(
                suffix.chars().all(|c| "2456789bcdfghkmt".contains(c)),
                "{suffix}"
            );
        }
    }
}
