//! The reader against saphyr-parser (a YAML 1.2 reader) on every real file at hand:
//! where YAML 1.2 and go-yaml agree, both read the same data.

mod common;

use std::path::{Path, PathBuf};

use goyaml_splice::{Context, Data, Tree};

fn files() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut out = Vec::new();
    let mut walk = vec![
        root.join("testdata"),
        root.join("../shared/corpus"),
        root.join("../shared/rendered"),
    ];
    while let Some(dir) = walk.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk.push(p);
            } else if matches!(
                p.extension().and_then(|e| e.to_str()),
                Some("yaml" | "yml" | "json")
            ) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Files where go-yaml and YAML 1.2 read differently, by a part of their path, and why.
const KNOWN: &[(&str, &str)] = &[
    (
        "22-tekton-pipeline.yaml",
        "a flow sequence's items and ']' at or left of its key's indentation: go-yaml reads it, YAML 1.2 does not",
    ),
    ("27-istio-spire-quickstart.yaml", "the same"),
    (
        "dialect-comment-indented-less-than-an-indentation-indicator",
        "a comment indented less than a block scalar's indentation indicator ends it in go-yaml",
    ),
    (
        "dialect-empty-block-scalar-ended-by-a-document-marker",
        "a block scalar with an indentation indicator ends at a less indented marker line in go-yaml",
    ),
    (
        "job-name-suffix-anchored-key",
        "`{&name: x}`: go-yaml ends an anchor name at ':', YAML 1.2 does not",
    ),
    (
        "json-surrogate-pair-escape",
        "surrogate-pair escapes in JSON text: read as JSON (kubectl's decoder) does",
    ),
    (
        "dialect-directive-after-a-document-ends-its-piece",
        "kubectl, kustomize and kpt cut a stream at its '---' lines: a directive ends a document there",
    ),
    (
        "dialect-document-after-an-end-marker-is-not-read",
        "kubectl, kustomize and kpt read the first document between two '---' lines",
    ),
    (
        "dialect-end-marker-starting-a-piece-refused",
        "kubectl, kustomize and kpt cut a stream at its '---' lines: go-yaml finds no node before a '...' that starts a piece",
    ),
    (
        "dialect-tab-on-a-blank-line-of-its-own-part-refused",
        "a tab at the start of a blank line: go-yaml refuses it",
    ),
    (
        "resource-list-tab-after-dash",
        "a tab after a block sequence's '-': go-yaml refuses it",
    ),
];

/// Why go-yaml and YAML 1.2 may read `text` differently, when the text itself says.
fn dialect_difference(
    text: &str,
    ours: &Result<Vec<Data>, goyaml_splice::Error>,
) -> Option<&'static str> {
    use goyaml_splice::ErrorKind;
    if !Context::of(text).json() && text.contains(['\u{85}', '\u{2028}', '\u{2029}']) {
        return Some("NEL, LS and PS are line breaks in go-yaml");
    }
    if text.contains(":\t") {
        return Some("a tab after ':' separates a value in go-yaml");
    }
    match ours.as_ref().err().map(|e| e.kind()) {
        Some(ErrorKind::DuplicateKey) => {
            Some("duplicate keys are refused here, as the API server refuses them")
        }
        Some(ErrorKind::UnknownEscape) if text.contains("\\/") => {
            Some("go-yaml refuses the escape '\\/', YAML 1.2 reads it (JSON text aside)")
        }
        Some(ErrorKind::IncompatibleVersion | ErrorKind::UnknownDirective) => {
            Some("go-yaml reads only %YAML 1.1 and %TAG directives")
        }
        Some(ErrorKind::DirectiveWithoutDocument | ErrorKind::ContentAfterDocumentMarker) => {
            Some("kubectl, kustomize and kpt cut a stream at its '---' lines before reading it")
        }
        _ => None,
    }
}

/// Each document's data as the tree reads it.
fn ours(text: &str) -> Result<Vec<Data>, goyaml_splice::Error> {
    Tree::parse(text, Context::of(text)).map(|t| {
        t.documents()
            .iter()
            .map(|d| common::normal(t.data(d.root())))
            .collect()
    })
}

/// A text as both readers are given it: go-yaml ends a block scalar at the end of a text
/// with no line break without one, YAML 1.2 with one (a known difference, tested on its
/// own), so a last line break is added.
fn compared(text: String) -> String {
    if text.ends_with(['\n', '\r']) || text.is_empty() {
        text
    } else {
        text + "\n"
    }
}

#[test]
fn reads_what_saphyr_reads_on_every_file() {
    let files = files();
    assert!(files.len() > 100, "{} files", files.len());
    let mut report = Vec::new();
    let mut agreed = 0;
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let text = compared(text);
        let ours = ours(&text);
        let theirs = common::saphyr_documents(&text)
            .map(|d| d.into_iter().map(common::normal).collect::<Vec<_>>());
        let what = match (&ours, &theirs) {
            (Ok(a), Ok(b)) if a == b => {
                agreed += 1;
                continue;
            }
            (Err(_), Err(_)) => continue,
            (Ok(a), Ok(b)) => {
                let first = a.iter().zip(b.iter()).position(|(x, y)| x != y);
                format!(
                    "data differs (document {first:?}; {} vs {} documents)",
                    a.len(),
                    b.len()
                )
            }
            (Err(e), Ok(_)) => format!("we refuse, saphyr reads: {e}"),
            (Ok(_), Err(e)) => format!("we read, saphyr refuses: {e}"),
        };
        let name = path.display().to_string();
        let known = KNOWN.iter().any(|(part, _)| name.contains(part));
        if !known && dialect_difference(&text, &ours).is_none() {
            report.push(format!("{name}: {what}"));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
    assert!(agreed > 400, "only {agreed} files read alike");
}

/// `DIFF_FILE=path cargo test --test differential show -- --nocapture` prints both
/// readings of one file.
#[test]
fn show() {
    let Ok(path) = std::env::var("DIFF_FILE") else {
        return;
    };
    let text = compared(std::fs::read_to_string(path).unwrap());
    let ours = ours(&text);
    let theirs = common::saphyr_documents(&text)
        .map(|d| d.into_iter().map(common::normal).collect::<Vec<_>>());
    if let (Ok(a), Ok(b)) = (&ours, &theirs) {
        for (i, (x, y)) in a.iter().zip(b).enumerate() {
            if let Some(d) = first_diff(x, y, &format!("doc{i}")) {
                println!("{d}");
            }
        }
    } else {
        println!("ours: {ours:?}\nsaphyr: {theirs:?}");
    }
}

/// Where two values first differ, as a path and both sides there.
fn first_diff(a: &Data, b: &Data, path: &str) -> Option<String> {
    match (a, b) {
        (Data::Seq(x), Data::Seq(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (p, q))| first_diff(p, q, &format!("{path}[{i}]"))),
        (Data::Map(x), Data::Map(y)) if x.len() == y.len() => {
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, ((k1, v1), (k2, v2)))| {
                    first_diff(k1, k2, &format!("{path}.key{i}"))
                        .or_else(|| first_diff(v1, v2, &format!("{path}.{k1:?}")))
                })
        }
        _ if a == b => None,
        _ => {
            let cut = |d: &Data| format!("{d:?}").chars().take(300).collect::<String>();
            Some(format!(
                "{path}:\n  ours:   {}\n  saphyr: {}",
                cut(a),
                cut(b)
            ))
        }
    }
}
