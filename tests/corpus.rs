//! Corpus: every real-world manifest in `../shared/corpus/`, and every rendered chart or
//! release manifest in `../shared/rendered/`, goes through the function, and the output
//! must parse and differ from the input only where the function meant it to.
//!
//! The corpus is other projects' data, so it is not in the repository. When it is absent
//! the tests show as ignored, except under `CI` (set in CI, which always has
//! `../shared/`), where they fail.
//!
//! Wrapping, per file (what `kpt fn eval` would send for a package holding that file):
//!
//! - YAML (`*.yaml`, `*.yml`, `Kptfile`): the stream is split on its document markers
//!   (`---` lines start a document, `...` lines end one; directives are dropped), and each
//!   document that holds a mapping becomes one item of `items:`. The item is the
//!   document's lines shifted right by two columns (the first line prefixed with `- `,
//!   later non-empty lines with two spaces): a uniform shift keeps every relative
//!   indentation, so block scalars, comments and flow collections mean what they meant.
//!   Empty documents (only comments) and non-mapping documents are left out; a document
//!   yaml_serde cannot read goes in as it is. A BOM is dropped; the header lines use the
//!   file's line ending (CRLF or LF). A YAML `kind: List` stays one item (none in the
//!   corpus).
//! - JSON (`*.json`): a JSON ResourceList whose `items` array holds the file's text as
//!   is, or, when the file is a `List`, the text of the List's own `items` array (kpt
//!   unwraps Lists the same way).
//!
//! Other files (`.env`, `.properties`, `.txt`, `.krmignore`, `.md`) are generator inputs
//! or notes, not manifests, and are skipped.
//!
//! What is checked, per file:
//!
//! - nothing panics; a file `yaml_serde` cannot parse may be rejected, but only with an
//!   `InputError` (a clean message); a file it can parse must not be rejected. (The
//!   reference reading is yaml_serde's, one document at a time after the same split:
//!   serde is not a dev-dependency, so its multi-document iterator is out of reach.)
//! - the output parses as YAML, as exactly one document;
//! - applying `Outcome::item_edits` to the input gives the output with its `results`
//!   section taken out (one contiguous insertion, holding `results`), so no other byte
//!   moved; every edit inserts the hash annotation (plus, at most, the `metadata:` /
//!   `annotations:` scaffolding around it and the bytes it replaced), with the file's
//!   line ending;
//! - semantically, input and output are equal once the hash annotation is deleted (and
//!   `annotations` / `metadata` maps left empty by that, on both sides);
//! - running the function on its own output makes no item edits (idempotence).
//!
//! Over the whole corpus: more than 100 files processed and at least one workload stamped.

#[macro_use]
mod common;

use std::fmt::Write as _;
use std::fs;
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use common::harness::Need;
use config_hash::run_resource_list;
use config_hash::yaml::Edits;
use yaml_serde::Value;

const HASH_KEY: &str = "config-hash.dev/hash";

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus")
}

/// The shared corpus, beside the repository.
fn corpus() -> Need {
    Need::Dir(
        corpus_dir(),
        "the shared corpus, ../shared/corpus beside the repository",
    )
}

fn rendered_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/rendered")
}

fn corpus_manifests_round_trip() {
    let dir = corpus_dir();

    let mut files = Vec::new();
    walk(&dir, &mut files);
    let rendered = rendered_dir();
    assert!(
        rendered.is_dir() || std::env::var_os("CI").is_none(),
        "CI is set but {} is missing",
        rendered.display()
    );
    walk(&rendered, &mut files);
    files.sort();
    let mut report = Report::default();
    for path in &files {
        let name = path
            .strip_prefix(&dir)
            .or_else(|_| path.strip_prefix(rendered.parent().unwrap_or(&rendered)))
            .unwrap_or(path)
            .display()
            .to_string();
        let Some(format) = Format::of(path) else {
            report.skipped_files.push(name);
            continue;
        };
        let bytes = fs::read(path).expect("read a corpus file");
        let Ok(text) = String::from_utf8(bytes) else {
            report.fail(&name, "not UTF-8".into());
            continue;
        };
        report.files += 1;
        check_file(&name, &text, format, &mut report);
    }

    println!("{}", report.summary());
    assert!(
        report.failures.is_empty(),
        "{} corpus file(s) failed:\n{}",
        report.failures.len(),
        report.failures.join("\n")
    );
    assert!(
        report.files > 100,
        "only {} manifests processed: is the corpus complete?",
        report.files
    );
    assert!(report.stamped > 0, "no workload in the corpus was stamped");
}

#[derive(Default)]
struct Report {
    files: usize,
    skipped_files: Vec<String>,
    items: usize,
    stamped: usize,
    /// Files neither yaml_serde nor the function reads: (file, our message).
    rejected: Vec<(String, String)>,
    /// Files the function reads although yaml_serde does not: (file, yaml_serde's error).
    lenient: Vec<(String, String)>,
    /// Files with an error result (items then unchanged), e.g. a bad functionConfig.
    error_results: Vec<String>,
    failures: Vec<String>,
}

impl Report {
    fn fail(&mut self, file: &str, why: String) {
        self.failures.push(format!("  {file}: {why}"));
    }

    fn summary(&self) -> String {
        let mut s = format!(
            "corpus: {} manifest files, {} items, {} workloads stamped; {} other files skipped\n",
            self.files,
            self.items,
            self.stamped,
            self.skipped_files.len()
        );
        for (file, why) in &self.rejected {
            let _ = writeln!(s, "  rejected (yaml_serde rejects it too): {file}: {why}");
        }
        for (file, why) in &self.lenient {
            let _ = writeln!(s, "  read although yaml_serde rejects it: {file}: {why}");
        }
        for file in &self.error_results {
            let _ = writeln!(s, "  error result (items left unchanged): {file}");
        }
        s
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Yaml,
    Json,
}

impl Format {
    fn of(path: &Path) -> Option<Format> {
        let name = path.file_name()?.to_str()?;
        match path.extension().and_then(|e| e.to_str()) {
            _ if name == "Kptfile" => Some(Format::Yaml),
            Some("yaml" | "yml") => Some(Format::Yaml),
            Some("json") => Some(Format::Json),
            _ => None,
        }
    }
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("list a corpus directory") {
        let path = entry.expect("read a directory entry").path();
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn check_file(name: &str, text: &str, format: Format, report: &mut Report) {
    // What an independent parser makes of the file as written.
    let reference = parse_stream(text.strip_prefix('\u{feff}').unwrap_or(text));
    let wrapped = match format {
        Format::Yaml => Ok(wrap_yaml(text)),
        Format::Json => wrap_json(text),
    };
    let wrapped = match wrapped {
        Ok(w) => w,
        Err(e) => return report.fail(name, format!("cannot wrap: {e}")),
    };
    if reference.is_ok() {
        if let Err(e) = parse_one(&wrapped.text) {
            return report.fail(name, format!("the wrapping broke the YAML: {e}"));
        }
    }
    report.items += wrapped.items;

    let outcome = match panic::catch_unwind(AssertUnwindSafe(|| run_resource_list(&wrapped.text))) {
        Err(_) => return report.fail(name, "run_resource_list panicked".into()),
        Ok(Err(e)) => {
            if e.message.trim().is_empty() || e.line == 0 {
                return report.fail(
                    name,
                    format!("an InputError without a message or line: {e:?}"),
                );
            }
            match &reference {
                Ok(_) => {
                    return report.fail(name, format!("rejected, but yaml_serde reads it: {e}"));
                }
                Err(_) => {
                    report.rejected.push((name.to_owned(), e.to_string()));
                    return;
                }
            }
        }
        Ok(Ok(outcome)) => outcome,
    };
    if let Err(e) = &reference {
        report.lenient.push((name.to_owned(), e.clone()));
        // yaml_serde cannot give a reference value; the byte checks still apply.
    }
    if outcome.exit_code != 0 {
        report.error_results.push(name.to_owned());
    }
    let problems = check_outcome(
        &wrapped,
        &outcome.output,
        &outcome.item_edits,
        reference.is_ok(),
        &mut report.stamped,
    );
    for p in problems {
        report.fail(name, p);
    }
}

/// The checks on one successful run; returns what went wrong.
fn check_outcome(
    wrapped: &Wrapped,
    output: &str,
    item_edits: &Edits,
    semantic: bool,
    stamped: &mut usize,
) -> Vec<String> {
    let mut problems = Vec::new();
    let input = wrapped.text.as_str();

    // 1. The output is one YAML document (yaml_serde rejects a stream of several).
    let mut after = match parse_one(output) {
        Ok(value) => value,
        Err(e) => return vec![format!("the output does not parse as one document: {e}")],
    };

    // 2. Only the item edits changed the items; the rest of the difference is `results`.
    let edited = match item_edits.apply(input) {
        Ok(text) => text,
        Err(e) => return vec![format!("item_edits: {e}")],
    };
    match single_insertion(&edited, output) {
        Some(inserted) if inserted.contains("results") => {}
        Some(inserted) => problems.push(format!(
            "the output differs from input + item_edits by {inserted:?}, which is not a results section"
        )),
        None => problems.push(
            "the output differs from input + item_edits in more than one place (a byte changed outside the item edits)"
                .into(),
        ),
    }
    let crlf = input.contains("\r\n");
    for (old, text) in item_edits.replacements(input) {
        if crlf && text.replace("\r\n", "").contains('\n') {
            problems.push(format!(
                "the edit of {old:?} writes a bare LF into a CRLF file: {text:?}"
            ));
        }
        if let Err(e) = edit_is_hash_scaffolding(old, text) {
            problems.push(format!("the edit of {old:?} ({text:?}): {e}"));
        }
    }

    // 3. Semantically, only the hash annotation was added.
    if semantic {
        let mut before = parse_one(input).expect("checked before the run");
        if let Some(root) = after.as_mapping_mut() {
            root.shift_remove("results");
        }
        *stamped += count_hashes(&after);
        strip_hash(&mut before);
        strip_hash(&mut after);
        if before != after {
            problems.push(format!(
                "input and output differ beyond the hash annotation:\n{}",
                first_difference(&before, &after, "")
                    .unwrap_or_else(|| "(difference not located)".into())
            ));
        }
    }

    // 4. Idempotence: a second run has nothing to change.
    match panic::catch_unwind(AssertUnwindSafe(|| run_resource_list(output))) {
        Ok(Ok(again)) if again.item_edits.is_empty() => {}
        Ok(Ok(again)) => problems.push(format!(
            "a second run edits its own output again: {:?}",
            again.item_edits
        )),
        Ok(Err(e)) => problems.push(format!("a second run rejects the output: {e}")),
        Err(_) => problems.push("a second run panicked".into()),
    }
    problems
}

/// All documents of a YAML stream, as values. yaml_serde reads one document per call
/// (and serde is not a dependency here, so its document iterator is out of reach): the
/// stream is cut at its document markers first, as a YAML reader's scanner does.
fn parse_stream(text: &str) -> Result<Vec<Value>, String> {
    split_documents(text)
        .iter()
        .map(|doc| parse_one(doc))
        .collect()
}

fn parse_one(text: &str) -> Result<Value, String> {
    yaml_serde::from_str(text).map_err(|e| e.to_string())
}

/// A ResourceList built from one corpus file.
struct Wrapped {
    text: String,
    items: usize,
}

fn wrap_yaml(text: &str) -> Wrapped {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let mut out = format!("apiVersion: config.kubernetes.io/v1{eol}kind: ResourceList{eol}");
    let mut body = String::new();
    let mut items = 0;
    for doc in split_documents(text) {
        // A document yaml_serde cannot read goes in as it is: the function must then
        // reject the list cleanly (or read it, which the report lists).
        if parse_one(&doc).is_ok_and(|value| !value.is_mapping()) {
            continue;
        }
        items += 1;
        for (i, line) in doc.split_inclusive('\n').enumerate() {
            if i == 0 {
                body.push_str("- ");
            } else if line != "\n" && line != "\r\n" {
                body.push_str("  ");
            }
            body.push_str(line);
        }
        if !doc.ends_with('\n') {
            body.push_str(eol);
        }
    }
    if items == 0 {
        out.push_str("items: []");
        out.push_str(eol);
    } else {
        out.push_str("items:");
        out.push_str(eol);
        out.push_str(&body);
    }
    Wrapped { text: out, items }
}

/// `line` without the document marker `m` it starts with, if it does.
fn marker<'a>(line: &'a str, m: &str) -> Option<&'a str> {
    line.strip_prefix(m)
        .filter(|rest| rest.is_empty() || rest.starts_with([' ', '\t', '\r', '\n']))
}

/// The documents of a stream, as text (markers, directives and empty documents left out).
fn split_documents(text: &str) -> Vec<String> {
    let mut docs = Vec::new();
    let mut current = String::new();
    // After `...`, only comments and directives may follow until the next `---`.
    let mut in_document = true;
    for line in text.split_inclusive('\n') {
        if let Some(rest) = marker(line, "---") {
            docs.push(std::mem::take(&mut current));
            in_document = true;
            // Content may start on the marker line (`--- {a: 1}`, `--- |`).
            let rest = rest.trim_start_matches([' ', '\t']);
            if !rest.trim().is_empty() && !rest.starts_with('#') {
                current.push_str(rest);
            }
        } else if marker(line, "...").is_some() {
            docs.push(std::mem::take(&mut current));
            in_document = false;
        } else if in_document && !(current.trim().is_empty() && line.starts_with('%')) {
            current.push_str(line);
        }
    }
    docs.push(current);
    docs.retain(|d| {
        d.lines()
            .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
    });
    docs
}

fn wrap_json(text: &str) -> Result<Wrapped, String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text).trim();
    let value = parse_one(text)?;
    let (items_text, items) = if value.get("kind").and_then(Value::as_str) == Some("List") {
        let span = json_member_span(text, "items").ok_or("a List without an items array")?;
        let n = value
            .get("items")
            .and_then(Value::as_sequence)
            .map_or(0, Vec::len);
        (text[span.0..span.1].to_owned(), n)
    } else {
        (format!("[\n{text}\n]"), 1)
    };
    Ok(Wrapped {
        text: format!(
            "{{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": {items_text}}}\n"
        ),
        items,
    })
}

/// The byte span of the value of a top-level member of a JSON object.
fn json_member_span(text: &str, key: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let wanted = format!("\"{key}\"");
    let (mut depth, mut i) = (0usize, 0usize);
    let mut value_start = None;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let after = text[i + 1..].trim_start();
                if depth == 1 && value_start.is_none() && text[start..=i] == wanted {
                    if let Some(rest) = after.strip_prefix(':') {
                        let at = text.len() - rest.trim_start().len();
                        value_start = Some((at, depth));
                    }
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth -= 1;
                if let Some((start, d)) = value_start {
                    if depth == d {
                        return Some((start, i + 1));
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// If `output` is `base` with one run of text inserted, that text.
fn single_insertion<'a>(base: &str, output: &'a str) -> Option<&'a str> {
    let prefix = base
        .bytes()
        .zip(output.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    let max_suffix = base.len().min(output.len()) - prefix;
    let suffix = base
        .bytes()
        .rev()
        .zip(output.bytes().rev())
        .take(max_suffix)
        .take_while(|(a, b)| a == b)
        .count();
    (prefix + suffix == base.len()).then(|| {
        // Snap to character boundaries (the inserted run is ASCII-delimited anyway).
        let mut start = prefix;
        while !output.is_char_boundary(start) {
            start -= 1;
        }
        &output[start..output.len() - suffix]
    })
}

/// An edit may only add the hash annotation, with the `metadata:` / `annotations:`
/// scaffolding it needs, around (or instead of) an empty map it replaces.
fn edit_is_hash_scaffolding(replaced: &str, text: &str) -> Result<(), String> {
    let Some(at) = text.find(HASH_KEY) else {
        return Err(format!("does not write {HASH_KEY}"));
    };
    // Remove `<key>": "<hex>"` or `<key>: "<hex>"` (the key's opening quote stays).
    let rest = &text[at + HASH_KEY.len()..];
    let rest = rest.trim_start_matches('"').trim_start_matches([':', ' ']);
    let quote = rest.chars().next().filter(|c| *c == '"' || *c == '\'');
    let rest = rest.trim_start_matches(['"', '\'']);
    let hex: String = rest.chars().take_while(char::is_ascii_hexdigit).collect();
    if hex.len() != 64 {
        return Err("the hash is not 64 hex digits".into());
    }
    let rest = &rest[64..];
    let rest = match quote {
        Some(q) => rest.strip_prefix(q).ok_or("unterminated hash value")?,
        None => rest,
    };
    let mut scaffolding = format!("{}{}", &text[..at], rest);
    if !replaced.is_empty() {
        match scaffolding.find(replaced) {
            Some(i) => {
                scaffolding.replace_range(i..i + replaced.len(), "");
            }
            None if replaced.trim() == "{}" || replaced.trim().is_empty() => {}
            None => return Err(format!("replaces {replaced:?}, which it does not keep")),
        }
    }
    let words = scaffolding
        .replace("metadata", "")
        .replace("annotations", "");
    match words
        .chars()
        .find(|c| !c.is_whitespace() && !"{}:,\"'".contains(*c))
    {
        None => Ok(()),
        Some(c) => Err(format!(
            "writes more than the annotation and its scaffolding: {scaffolding:?} (found {c:?})"
        )),
    }
}

/// Number of hash annotations in a value (pod templates stamped).
fn count_hashes(value: &Value) -> usize {
    match value {
        Value::Mapping(map) => map
            .iter()
            .map(|(k, v)| {
                let own = usize::from(
                    k.as_str() == Some("annotations")
                        && v.as_mapping().is_some_and(|a| a.contains_key(HASH_KEY)),
                );
                own + count_hashes(v)
            })
            .sum(),
        Value::Sequence(items) => items.iter().map(count_hashes).sum(),
        Value::Tagged(t) => count_hashes(&t.value),
        _ => 0,
    }
}

/// Deletes every hash annotation, then `annotations` and `metadata` entries that are
/// empty (or null). Applied to both sides, so an empty map already in the input is no
/// difference.
fn strip_hash(value: &mut Value) {
    match value {
        Value::Mapping(map) => {
            for (_, v) in map.iter_mut() {
                strip_hash(v);
            }
            if let Some(Value::Mapping(annotations)) = map.get_mut("annotations") {
                annotations.shift_remove(HASH_KEY);
            }
            for key in ["annotations", "metadata"] {
                let empty = match map.get(key) {
                    Some(Value::Mapping(m)) => m.is_empty(),
                    Some(Value::Null) => true,
                    _ => false,
                };
                if empty {
                    map.shift_remove(key);
                }
            }
        }
        Value::Sequence(items) => items.iter_mut().for_each(strip_hash),
        Value::Tagged(t) => strip_hash(&mut t.value),
        _ => {}
    }
}

/// A path to the first place two values differ, for the failure message.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        _ if a == b => None,
        (Value::Mapping(x), Value::Mapping(y)) => {
            for (k, va) in x {
                let key = k.as_str().map_or_else(|| format!("{k:?}"), str::to_owned);
                match y.get(k) {
                    Some(vb) => {
                        if let Some(d) = first_difference(va, vb, &format!("{path}.{key}")) {
                            return Some(d);
                        }
                    }
                    None => return Some(format!("{path}.{key}: missing in the output")),
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}: the output adds key {k:?}"))
        }
        (Value::Sequence(x), Value::Sequence(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(va, vb, &format!("{path}[{i}]"))),
        _ => Some(format!("{path}: {a:?} became {b:?}")),
    }
}

fn wrapping_shifts_documents_and_unwraps_json_lists() {
    let yaml =
        "# c\n---\na: 1\nb: |\n  x\n\n  y\n--- # two\nc: [1,\n  2]\n...\n---\n# only a comment\n";
    let w = wrap_yaml(yaml);
    assert_eq!(w.items, 2);
    assert_eq!(
        w.text,
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: 1\n  b: |\n    x\n\n    y\n- c: [1,\n    2]\n"
    );
    let list = r#"{"kind": "List", "items": [{"kind": "A", "x": "]"}, {"kind": "B"}], "z": 1}"#;
    let w = wrap_json(list).unwrap();
    assert_eq!(w.items, 2);
    assert_eq!(
        w.text,
        "{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{\"kind\": \"A\", \"x\": \"]\"}, {\"kind\": \"B\"}]}\n"
    );
}

/// The checks are only worth something if they fail: tamper with a real outcome.
fn checks_catch_changes_outside_the_item_edits() {
    let wrapped = wrap_yaml(
        "kind: ConfigMap\napiVersion: v1\nmetadata: {name: c}\ndata: {a: 'yes'}\n---\n\
         kind: Deployment\napiVersion: apps/v1\nmetadata:\n  name: d # keep\nspec:\n  template:\n    spec:\n      containers:\n      - name: x\n        envFrom: [{configMapRef: {name: c}}]\n",
    );
    let good = run_resource_list(&wrapped.text).expect("a valid ResourceList");
    let mut stamped = 0;
    let problems = check_outcome(&wrapped, &good.output, &good.item_edits, true, &mut stamped);
    assert_eq!(problems, Vec::<String>::new());
    assert_eq!(stamped, 1);

    let check = |output: &str, edits: &Edits| check_outcome(&wrapped, output, edits, true, &mut 0);
    // A quoted 'yes' became a plain yes (a bool to kubectl): a byte outside the edits.
    let requoted = good.output.replace("'yes'", "yes");
    assert!(!check(&requoted, &good.item_edits).is_empty());
    // A dropped comment.
    let uncommented = good.output.replace(" # keep", "");
    assert!(!check(&uncommented, &good.item_edits).is_empty());
    // An edit that writes more than the annotation.
    let mut first = true;
    let edits = good.item_edits.clone().map_texts(|text| {
        if std::mem::take(&mut first) {
            text.replace("annotations:", "labels: {x: y}\n        annotations:")
        } else {
            text.to_string()
        }
    });
    assert_ne!(edits, good.item_edits);
    let output = edits.apply(&wrapped.text).unwrap() + "results: []\n";
    assert!(!check(&output, &edits).is_empty());
    // The unchanged outcome passes.
    assert_eq!(check(&good.output, &good.item_edits), Vec::<String>::new());
}

/// The corpus's files under `dir`, as one manifest stream (what a package of them is).
fn package_stream(dir: &Path) -> String {
    assert!(dir.is_dir(), "{} is missing from the corpus", dir.display());
    let mut files = Vec::new();
    walk(dir, &mut files);
    files.sort();
    let texts: Vec<String> = files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .map(|p| fs::read_to_string(p).expect("read a corpus file"))
        .collect();
    texts.join("\n---\n")
}

/// Warnings about references to objects that are not in the input.
fn missing_object_warnings(outcome: &config_hash::Outcome) -> Vec<String> {
    outcome
        .results
        .iter()
        .map(|r| r.message())
        .filter(|m| m.contains("which is not in the input"))
        .collect()
}

fn sealed_secrets_example_resolves_through_its_sealed_secret() {
    let dir = corpus_dir().join("bitnami-labs__sealed-secrets/docs/examples/config-template");
    let stream = package_stream(&dir);
    let out = config_hash::run(&stream, &config_hash::Invocation::default()).unwrap();
    assert_eq!(missing_object_warnings(&out), Vec::<String>::new());
    let stamped: Vec<String> = out
        .results
        .iter()
        .map(|r| r.message())
        .filter(|m| m.starts_with("Deployment example: annotation"))
        .collect();
    assert_eq!(
        stamped,
        [
            "Deployment example: annotation config-hash.dev/hash from Secret example (made by SealedSecret example)"
        ]
    );
    // Without the SealedSecret, the same Deployment reads a missing Secret.
    let alone = fs::read_to_string(dir.join("deployment.yaml")).unwrap();
    let out = config_hash::run(&alone, &config_hash::Invocation::default()).unwrap();
    assert_eq!(missing_object_warnings(&out).len(), 1);
}

fn external_secrets_examples_resolve_their_targets() {
    let dir = corpus_dir().join("external-secrets__external-secrets/docs/snippets");
    let stream = package_stream(&dir);
    // A Deployment per ExternalSecret reading the Secret it makes, named as ESO's docs
    // say (`spec.target.name`, else the ExternalSecret's own name), read independently
    // of the function with yaml_serde.
    let mut targets = Vec::new();
    for doc in split_documents(&stream) {
        let Ok(v) = parse_one(&doc) else { continue };
        if v["kind"].as_str() != Some("ExternalSecret") {
            continue;
        }
        let own = v["metadata"]["name"].as_str().unwrap_or_default();
        let target = v["spec"]["target"]["name"].as_str().unwrap_or(own);
        targets.push(target.to_string());
    }
    assert!(targets.len() >= 6, "{targets:?}");
    let mut input = stream.clone();
    for (i, t) in targets.iter().enumerate() {
        write!(
            input,
            "\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: reads-{i}}}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        envFrom: [{{secretRef: {{name: {t}}}}}]\n"
        )
        .unwrap();
    }
    let out = config_hash::run(&input, &config_hash::Invocation::default()).unwrap();
    let missing = missing_object_warnings(&out);
    for t in &targets {
        assert!(
            !missing.iter().any(|m| m.contains(&format!("Secret {t:?}"))),
            "{t}: {missing:?}"
        );
    }
    // The corpus's own proxy reads a Secret nothing in it makes: still reported.
    assert_eq!(missing.len(), 1, "{missing:?}");
    assert!(missing[0].contains("\"cloak-key\""), "{missing:?}");
    let external = out
        .results
        .iter()
        .filter(|r| r.message().contains("cannot be seen at build time"))
        .count();
    assert_eq!(external, targets.len());
}

/// The rendered charts and release manifests, beside the repository.
fn rendered() -> Need {
    Need::Dir(
        rendered_dir(),
        "the shared rendered charts, ../shared/rendered beside the repository",
    )
}

/// `audit` on real files: (workload, what it reads with no trigger) as one line each.
fn audited(files: &[PathBuf]) -> (Vec<String>, usize) {
    let text: Vec<String> = files
        .iter()
        .map(|f| fs::read_to_string(f).unwrap_or_else(|e| panic!("{}: {e}", f.display())))
        .collect();
    let joined = text.join("\n---\n");
    let prepared = config_hash::resolve_run(&joined, &config_hash::Invocation::default())
        .expect("the file reads");
    let found = config_hash::views::audit::audit(&prepared.resolution);
    let lines = found
        .untriggered
        .iter()
        .map(|f| {
            let reads: Vec<String> = f
                .reads
                .iter()
                .map(|u| {
                    let absent = if u.in_input { "" } else { " (absent)" };
                    format!("{} {}{absent}", u.kind.as_str(), u.name)
                })
                .collect();
            format!("{}: {}", f.workload, reads.join(", "))
        })
        .collect();
    (lines, found.reading)
}

fn audit_pins_what_real_manifests_lack() {
    let r = |f: &str| rendered_dir().join(f);
    let c = |f: &str| corpus_dir().join(f);
    // A hook Job makes the admission Secret at install time: nothing rolls the
    // controller when it is renewed.
    assert_eq!(
        audited(&[r("03-ingress-nginx.yaml")]),
        (
            vec![
                "Deployment ingress-nginx/ingress-ingress-nginx-controller: Secret ingress-ingress-nginx-admission (absent)".to_string()
            ],
            1
        )
    );
    // The chart's checksum/* annotations are a trigger.
    assert_eq!(audited(&[r("01-grafana.yaml")]), (vec![], 1));
    // The operator reads its admission Secret untriggered; the rest have checksums, and
    // the chart's test Pod cannot roll at all, so it is not listed.
    let (kps, reading) = audited(&[r("11-kube-prometheus-stack.yaml")]);
    assert_eq!(
        kps,
        [
            "Deployment monitoring/kps-kube-prometheus-stack-operator: Secret kps-kube-prometheus-stack-admission (absent)"
        ]
    );
    assert_eq!(reading, 2);
    assert_eq!(
        audited(&[r("22-tekton-pipeline.yaml")]).0,
        [
            "Deployment tekton-pipelines/tekton-pipelines-controller: ConfigMap config-logging, ConfigMap config-registry-cert",
            "Deployment tekton-pipelines/tekton-events-controller: ConfigMap config-logging, ConfigMap config-registry-cert",
        ]
    );
    // Plain manifests from project examples.
    assert_eq!(
        audited(&[c(
            "fluent__fluentd-kubernetes-daemonset/fluentd-daemonset-logentries.yaml"
        )])
        .0,
        ["DaemonSet kube-system/fluentd: ConfigMap fluentd-logentries"]
    );
    let hello = "kubernetes-sigs__kustomize/examples/helloWorld";
    assert_eq!(
        audited(&[
            c(&format!("{hello}/configMap.yaml")),
            c(&format!("{hello}/deployment.yaml"))
        ])
        .0,
        ["Deployment the-deployment: ConfigMap the-map"]
    );
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(corpus_manifests_round_trip, corpus()),
        trial!(wrapping_shifts_documents_and_unwraps_json_lists),
        trial!(checks_catch_changes_outside_the_item_edits),
        trial!(
            sealed_secrets_example_resolves_through_its_sealed_secret,
            corpus()
        ),
        trial!(external_secrets_examples_resolve_their_targets, corpus()),
        trial!(audit_pins_what_real_manifests_lack, corpus(), rendered()),
    ])
}
