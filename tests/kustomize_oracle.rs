//! Oracle: for every generated ConfigMap/Secret, the suffix we compute from the object
//! `kubectl kustomize` wrote must be the one kustomize itself appended to its name.
//!
//! The test vectors pin the algorithm; this catches what they miss (escaping of real
//! unicode, `<>&`, newlines, binary files, empty maps) against the real implementation.

#[macro_use]
mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use config_hash::model::name_hash::{
    ConfigKind, HashField, HashInput, HashScalar, kustomize_suffix,
};
use yaml_serde::Value;

/// One entry of a generator, with what kustomize should store for it.
enum Source {
    /// `literals: ["KEY=VALUE"]`; kustomize strips one pair of surrounding quotes.
    Literal(String, String),
    /// `files: ["KEY=path"]`; non-UTF-8 contents go to a ConfigMap's binaryData.
    File(String, Vec<u8>),
    /// `envs: [path]` with the file's text and the pairs kustomize should read from it.
    Env(&'static str, Vec<(&'static str, &'static str)>),
}

struct Case {
    /// Base name; unique, so the generated object can be found again.
    name: &'static str,
    kind: ConfigKind,
    secret_type: Option<&'static str>,
    /// Extra generator YAML (indented two spaces), for fields that must not be hashed.
    extra: &'static str,
    sources: Vec<Source>,
}

fn lit(key: &str, value: &str) -> Source {
    Source::Literal(key.to_owned(), value.to_owned())
}

fn file(key: &str, contents: impl Into<Vec<u8>>) -> Source {
    Source::File(key.to_owned(), contents.into())
}

fn config_map(name: &'static str, sources: Vec<Source>) -> Case {
    Case {
        name,
        kind: ConfigKind::ConfigMap,
        secret_type: None,
        extra: "",
        sources,
    }
}

fn secret(name: &'static str, secret_type: Option<&'static str>, sources: Vec<Source>) -> Case {
    Case {
        name,
        kind: ConfigKind::Secret,
        secret_type,
        extra: "",
        sources,
    }
}

const MANY_KEY_NAMES: [&str; 8] = [
    "-dash",
    ".dot",
    "9num",
    "ALPHA",
    "Zeta",
    "_under",
    "alpha",
    "alpha.beta",
];

fn many_keys() -> Vec<Source> {
    let mut sources: Vec<Source> = (0..50)
        .map(|i| {
            let value = format!("value {i} <{i}> & \"{i}\"\n").repeat(i % 3);
            lit(&format!("key-{i:02}"), &value)
        })
        .collect();
    sources.extend(MANY_KEY_NAMES.iter().map(|&k| lit(k, k)));
    sources
}

/// A PEM-shaped text long enough that its base64 is wrapped over several lines.
fn pem(label: &str, lines: usize) -> Vec<u8> {
    let body = "MIIBszCCAVmgAwIBAgIUQ0xQ3mZ9bN2yRkq1vT8xE0a4wHowCgYIKoZIzj0EAwIw\n".repeat(lines);
    format!("-----BEGIN {label}-----\n{body}-----END {label}-----\n").into_bytes()
}

fn all_bytes() -> Vec<u8> {
    (0..=255).collect()
}

fn cases() -> Vec<Case> {
    vec![
        config_map("basic", vec![lit("A", "1"), lit("B", "two")]),
        Case {
            // Labels, annotations and namespace are not hashed: same suffix as "basic".
            extra: "  namespace: team-a\n  options:\n    labels:\n      team: a\n    annotations:\n      note: b\n",
            ..config_map("with-options", vec![lit("A", "1"), lit("B", "two")])
        },
        config_map("empty", vec![]),
        config_map("empty-values", vec![lit("K", ""), lit("L", "")]),
        config_map(
            "unicode",
            vec![
                lit("greeting", "héllo wörld"),
                lit("cjk", "日本語テキスト"),
                lit("emoji", "🦀🚀"),
                lit("combining", "e\u{301}"),
                lit("nbsp", "a\u{a0}b"),
                lit("bom", "\u{feff}x"),
            ],
        ),
        config_map(
            "html",
            vec![
                lit("script", "<script>alert(\"x\")</script>"),
                lit("amp", "a&b"),
                lit("cmp", "1<2>0"),
                lit("entity", "&lt;&amp;&gt;"),
            ],
        ),
        // No U+0085 (NEL) anywhere: kustomize's YAML round trip turns it into a space or
        // drops it, and for file sources it hashes the original but writes the mangled
        // text, so the written object no longer hashes to its own suffix.
        config_map(
            "separators",
            vec![
                lit("ls", "a\u{2028}b"),
                lit("ps", "a\u{2029}b"),
                lit("only", "\u{2028}"),
            ],
        ),
        config_map(
            "newlines",
            vec![
                lit("one", "line\n"),
                lit("mid", "a\nb"),
                lit("trail", "trail\n\n"),
                lit("lone", "\n"),
                lit("lead", "\n\nlead"),
                lit("crlf", "a\r\nb\r\n"),
                lit("cr", "a\rb"),
                lit("indented", "  x\n    y\n"),
            ],
        ),
        config_map(
            "quotes-backslashes",
            vec![
                lit("dq", "say \"hi\""),
                lit("bs", "C:\\dir\\file"),
                lit("trailing-bs", "end\\"),
                lit("mixed", "\\\"\\n"),
                lit("quoted", "\"wrapped\""),
                lit("single", "'single'"),
                lit("json", "{\"k\":\"v\\n\"}"),
            ],
        ),
        config_map(
            "yaml-lookalikes",
            vec![
                lit("tab", "\tx\t"),
                lit("spaces", "  "),
                lit("mapping", "key: value"),
                lit("hash", "# not a comment"),
                lit("dash", "- item"),
                lit("bool", "true"),
                lit("num", "0123"),
                lit("float", "1e3"),
                lit("null-value", "null"),
                lit("tilde", "~"),
                lit("anchor", "*ref"),
            ],
        ),
        config_map(
            "equals",
            vec![lit("url", "https://x/?a=b&c=d"), lit("eq", "==")],
        ),
        config_map("many-keys", many_keys()),
        config_map(
            "control-file",
            // Valid UTF-8, so it lands in data: exercises \u0000, \b, \f, \u001b.
            vec![file("ctrl.txt", b"\0\x01\x08\x0c\x1b\x1f end")],
        ),
        config_map(
            "text-files",
            vec![
                file("crlf.txt", b"x\r\ny\r\n"),
                file("bom.txt", b"\xef\xbb\xbfbom"),
                file("empty.txt", Vec::new()),
                file("unicode.txt", "héllo <wörld> & \u{2028}\n"),
                file("lines.txt", b"line1\nline2\n"),
            ],
        ),
        config_map(
            "binary-only",
            vec![file("bin.dat", b"\xff\xfe\x00\x80 bin")],
        ),
        config_map("binary-all-bytes", vec![file("all.bin", all_bytes())]),
        config_map(
            "mixed-files",
            vec![
                file("text.txt", b"plain <text>\n"),
                file("bin.dat", b"\xc3\x28 invalid"),
                lit("LITERAL", "also here"),
            ],
        ),
        config_map(
            "env-file",
            vec![Source::Env(
                "# comment\nA=1\n\nB=two words\nC=<&>\n",
                vec![("A", "1"), ("B", "two words"), ("C", "<&>")],
            )],
        ),
        secret("secret-basic", None, vec![lit("PASSWORD", "hunter2")]),
        secret("secret-empty", None, vec![]),
        secret("secret-empty-value", None, vec![lit("K", "")]),
        secret(
            "secret-opaque-explicit",
            Some("Opaque"),
            vec![lit("PASSWORD", "hunter2")],
        ),
        secret(
            "secret-tls",
            Some("kubernetes.io/tls"),
            vec![
                file("tls.crt", pem("CERTIFICATE", 12)),
                file("tls.key", pem("PRIVATE KEY", 20)),
            ],
        ),
        secret(
            "secret-custom-type",
            Some("example.com/custom-type"),
            vec![lit("token", "abc")],
        ),
        secret(
            "secret-unicode-html",
            None,
            vec![lit("v", "<&> ü \u{2028}"), lit("nl", "a\n")],
        ),
        secret("secret-binary", None, vec![file("all.bin", all_bytes())]),
        secret("secret-many-keys", None, many_keys()),
        secret(
            "secret-wrap-boundaries",
            None,
            vec![
                // 51 bytes encode to 68 characters (one line, no newline), 52 to 72
                // (wrapped), 105 to exactly two full lines of 70.
                lit("b51", &"x".repeat(51)),
                lit("b52", &"x".repeat(52)),
                lit("b105", &"x".repeat(105)),
            ],
        ),
    ]
}

/// kustomize's `removeQuotes` on literal values: one matching pair of quotes goes.
fn kustomize_unquote(value: &str) -> &str {
    ['"', '\'']
        .iter()
        .find_map(|&quote| {
            value
                .strip_prefix(quote)
                .and_then(|v| v.strip_suffix(quote))
                .filter(|_| value.len() >= 2)
        })
        .unwrap_or(value)
}

/// ConfigMap binaryData and Secret data as kustomize writes them: base64 broken into 70-character lines,
/// each ending in a newline, once the text reaches 70 characters (short values stay on
/// one line without a newline). Those newlines are part of the value it hashes.
fn wrapped_base64(bytes: &[u8]) -> String {
    const LINE: usize = 70;
    let encoded = BASE64.encode(bytes);
    if encoded.len() < LINE {
        return encoded;
    }
    let mut out = String::with_capacity(encoded.len() + encoded.len() / LINE + 1);
    for line in encoded.as_bytes().chunks(LINE) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        out.push('\n');
    }
    out
}

/// What the generated object's data and binaryData should hold, key by key.
fn expected_maps(case: &Case) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let mut data = BTreeMap::new();
    let mut binary = BTreeMap::new();
    let mut put = |key: &str, bytes: &[u8]| {
        let (map, value) = match (case.kind, std::str::from_utf8(bytes)) {
            (ConfigKind::ConfigMap, Ok(text)) => (&mut data, text.to_owned()),
            (ConfigKind::ConfigMap, Err(_)) => (&mut binary, wrapped_base64(bytes)),
            (ConfigKind::Secret, _) => (&mut data, wrapped_base64(bytes)),
        };
        map.insert(key.to_owned(), value);
    };
    for source in &case.sources {
        match source {
            Source::Literal(key, value) => put(key, kustomize_unquote(value).as_bytes()),
            Source::File(key, bytes) => put(key, bytes),
            Source::Env(_, pairs) => {
                for (key, value) in pairs {
                    put(key, value.as_bytes());
                }
            }
        }
    }
    (data, binary)
}

/// A YAML double-quoted scalar; escapes everything a YAML reader might treat as a line
/// break, BOM or control character so the value reaches kustomize unchanged.
fn yaml_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c < ' '
                || matches!(
                    c,
                    '\u{7f}' | '\u{85}' | '\u{2028}' | '\u{2029}' | '\u{feff}'
                ) =>
            {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Writes kustomization.yaml and the files it names into `dir`.
fn write_kustomization(dir: &Path, cases: &[Case]) {
    let mut config_maps = String::new();
    let mut secrets = String::new();
    for case in cases {
        let case_dir = dir.join(case.name);
        fs::create_dir(&case_dir).expect("create case dir");
        let out = match case.kind {
            ConfigKind::ConfigMap => &mut config_maps,
            ConfigKind::Secret => &mut secrets,
        };
        let _ = writeln!(out, "- name: {}", case.name);
        if let Some(secret_type) = case.secret_type {
            let _ = writeln!(out, "  type: {}", yaml_quote(secret_type));
        }
        out.push_str(case.extra);
        let mut literals = Vec::new();
        let mut files = Vec::new();
        let mut envs = Vec::new();
        for (i, source) in case.sources.iter().enumerate() {
            match source {
                Source::Literal(key, value) => literals.push(format!("{key}={value}")),
                Source::File(key, bytes) => {
                    let file = format!("{}/file-{i}", case.name);
                    fs::write(dir.join(&file), bytes).expect("write source file");
                    files.push(format!("{key}={file}"));
                }
                Source::Env(text, _) => {
                    let file = format!("{}/env-{i}", case.name);
                    fs::write(dir.join(&file), text).expect("write env file");
                    envs.push(file);
                }
            }
        }
        for (field, items) in [("literals", literals), ("files", files), ("envs", envs)] {
            if !items.is_empty() {
                let _ = writeln!(out, "  {field}:");
                for item in items {
                    let _ = writeln!(out, "  - {}", yaml_quote(&item));
                }
            }
        }
    }
    let mut text = String::new();
    if !config_maps.is_empty() {
        text.push_str("configMapGenerator:\n");
        text.push_str(&config_maps);
    }
    if !secrets.is_empty() {
        text.push_str("secretGenerator:\n");
        text.push_str(&secrets);
    }
    fs::write(dir.join("kustomization.yaml"), text).expect("write kustomization.yaml");
}

/// A map field of the output object, owned: key, value, and whether the value is a
/// JSON literal (YAML number/bool/null) rather than a string.
type OwnedMap = Vec<(String, String, bool)>;

fn owned_map(object: &Value, field: &str) -> Option<OwnedMap> {
    let value = object.get(field)?;
    let mapping = value
        .as_mapping()
        .unwrap_or_else(|| panic!("{field} is not a mapping: {value:?}"));
    let pairs = mapping
        .iter()
        .map(|(k, v)| {
            let key = k.as_str().expect("string key").to_owned();
            match v {
                Value::String(s) => (key, s.clone(), false),
                Value::Number(n) => (key, n.to_string(), true),
                Value::Bool(b) => (key, b.to_string(), true),
                Value::Null => (key, "null".to_owned(), true),
                other => panic!("{field}.{key} is not a scalar: {other:?}"),
            }
        })
        .collect();
    Some(pairs)
}

fn borrowed(map: &Option<OwnedMap>) -> Option<Vec<(&str, HashScalar<'_>)>> {
    map.as_ref().map(|pairs| {
        pairs
            .iter()
            .map(|(k, v, literal)| {
                let scalar = if *literal {
                    HashScalar::Literal(v)
                } else {
                    HashScalar::Str(v)
                };
                (k.as_str(), scalar)
            })
            .collect()
    })
}

fn as_string_map(map: &Option<OwnedMap>) -> BTreeMap<String, String> {
    map.iter()
        .flatten()
        .map(|(k, v, _)| (k.clone(), v.clone()))
        .collect()
}

/// A scratch directory removed on drop, also when an assertion panics.
struct ScratchDir(PathBuf);

impl ScratchDir {
    fn new() -> Self {
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let path = std::env::temp_dir().join(format!(
            "config-hash-kustomize-oracle-{}-{nanos}",
            std::process::id()
        ));
        fs::create_dir_all(&path).expect("create scratch dir");
        ScratchDir(path)
    }
}

impl Drop for ScratchDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn suffixes_match_kubectl_kustomize() {
    let cases = cases();
    let scratch = ScratchDir::new();
    write_kustomization(&scratch.0, &cases);
    let output = Command::new("kubectl")
        .arg("kustomize")
        .arg(&scratch.0)
        .output()
        .expect("run kubectl kustomize");
    assert!(
        output.status.success(),
        "kubectl kustomize failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8(output.stdout).expect("kustomize output is UTF-8");

    let mut seen: BTreeMap<&str, String> = BTreeMap::new();
    let mut failures = Vec::new();
    // kustomize separates documents with a bare `---` line; inside block scalars such a
    // line would be indented, so splitting on it is safe.
    for doc in stdout.split("\n---\n") {
        let object: Value = yaml_serde::from_str(doc).expect("parse kustomize output");
        let name = object["metadata"]["name"].as_str().expect("metadata.name");
        let (base, _) = name.rsplit_once('-').expect("generated name has a suffix");
        let case = cases
            .iter()
            .find(|c| c.name == base)
            .unwrap_or_else(|| panic!("kustomize produced an unexpected object {name}"));
        assert!(
            seen.insert(case.name, name.to_owned()).is_none(),
            "two objects for {base}"
        );

        let kind = object["kind"].as_str().expect("kind");
        let data = owned_map(&object, "data");
        let binary_data = owned_map(&object, "binaryData");
        let string_data = owned_map(&object, "stringData");
        let secret_type = object.get("type").and_then(Value::as_str);

        // The inputs must have reached kustomize as intended, or the case tests nothing.
        let (expected_data, expected_binary) = expected_maps(case);
        assert_eq!(as_string_map(&data), expected_data, "{name}: data");
        assert_eq!(
            as_string_map(&binary_data),
            expected_binary,
            "{name}: binaryData"
        );
        let expected_kind = match case.kind {
            ConfigKind::ConfigMap => "ConfigMap",
            ConfigKind::Secret => "Secret",
        };
        assert_eq!(kind, expected_kind, "{name}: kind");
        if case.kind == ConfigKind::Secret {
            let expected_type = case.secret_type.unwrap_or("Opaque");
            assert_eq!(secret_type, Some(expected_type), "{name}: type");
        }

        let input = HashInput {
            kind: case.kind,
            data: borrowed(&data).map_or(HashField::Text(""), HashField::Map),
            binary_data: borrowed(&binary_data).map(HashField::Map),
            string_data: borrowed(&string_data).map(HashField::Map),
            secret_type: HashField::Text(secret_type.unwrap_or("")),
        };
        let ours = format!("{base}-{}", kustomize_suffix(&input));
        if ours != name {
            failures.push(format!("kustomize named it {name}, we computed {ours}"));
        }
    }

    let missing: Vec<&str> = cases
        .iter()
        .map(|c| c.name)
        .filter(|n| !seen.contains_key(n))
        .collect();
    assert!(
        missing.is_empty(),
        "kustomize produced nothing for {missing:?}"
    );
    assert!(
        failures.is_empty(),
        "suffix mismatches:\n{}",
        failures.join("\n")
    );
    assert!(seen.len() > 10, "only {} cases compared", seen.len());
    eprintln!(
        "kustomize oracle: {} generated objects compared",
        seen.len()
    );
    assert_eq!(
        seen["with-options"].rsplit_once('-').map(|(_, s)| s),
        seen["basic"].rsplit_once('-').map(|(_, s)| s),
        "labels, annotations and namespace must not change the suffix"
    );
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![trial!(
        suffixes_match_kubectl_kustomize,
        common::harness::Need::tool("kubectl")
    )])
}
