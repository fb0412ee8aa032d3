//! Differential test of `--name-suffix` against the real `kubectl kustomize`, for the
//! spellings of a ConfigMap's or Secret's `data`, `binaryData`, `stringData` and `type`
//! that kustomize's hasher reads in its own way: a field that is absent, null (`~`,
//! `null`, empty), a scalar or a sequence; values that YAML reads as numbers in every
//! go-yaml spelling, booleans, nulls, dates, tagged values.
//!
//! Each object goes to kustomize as a resource marked
//! `internal.config.kubernetes.io/needsHashSuffix: enabled` (kustomize then suffixes it
//! as its generators' output; `kustomize.config.k8s.io/needs-hash` is read only on what
//! a generator plugin returns), and to config-hash marked
//! `kustomize.config.k8s.io/needs-hash: "true"`. Where kustomize gives a name,
//! config-hash must give the same; where kustomize fails, config-hash must refuse the
//! object with an error naming the field; where kustomize hashes what config-hash does
//! not reproduce, config-hash must refuse it too, never give another name.

#[macro_use]
mod common;

use std::fmt::Write as _;
use std::fs;
use std::process::Command;

use common::TempDir;
use common::harness::Need;

/// What kubectl kustomize does with a spelling, and what config-hash must do.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Expect {
    /// kustomize names it: config-hash gives the same name.
    Same,
    /// kustomize fails: config-hash refuses it, naming this field.
    KustomizeFails(&'static str),
    /// kustomize names it in a way config-hash does not reproduce: config-hash refuses
    /// it, naming this field.
    NotReproduced(&'static str),
}

use Expect::*;

/// (kind, top-level fields after metadata, expectation).
const CASES: &[(&str, &str, Expect)] = &[
    // The fields themselves.
    ("ConfigMap", "", Same),
    ("ConfigMap", "data:", Same),
    ("ConfigMap", "data: ~", Same),
    ("ConfigMap", "data: null", Same),
    ("ConfigMap", "data: Null", Same),
    ("ConfigMap", "data: !!null ~", Same),
    ("ConfigMap", "data: \"\"", Same),
    ("ConfigMap", "data: ''", Same),
    ("ConfigMap", "data: \"~\"", Same),
    ("ConfigMap", "data: abc", Same),
    ("ConfigMap", "data: 42", Same),
    ("ConfigMap", "data: |\n  x\n  y", Same),
    ("ConfigMap", "data: >-\n  x\n  y", Same),
    ("ConfigMap", "data: [a, b]", Same),
    ("ConfigMap", "data: []", Same),
    ("ConfigMap", "data: {}", Same),
    ("ConfigMap", "x: &s abc\ndata: *s", Same),
    ("ConfigMap", "x: &m {a: b}\ndata: *m", Same),
    ("ConfigMap", "data: {a: b}\nbinaryData: ~", Same),
    ("ConfigMap", "data: {a: b}\nbinaryData:", Same),
    ("ConfigMap", "data: {a: b}\nbinaryData: x", Same),
    ("ConfigMap", "data: {a: b}\nbinaryData: [x]", Same),
    ("ConfigMap", "data: {a: b}\nbinaryData: {}", Same),
    ("ConfigMap", "data: ~\nbinaryData: {b: YQ==}", Same),
    // Integers in every go-yaml spelling.
    ("ConfigMap", "data: {a: 42, b: '42', c: \"42\"}", Same),
    ("ConfigMap", "data: {a: 0, b: -0, c: +0}", Same),
    (
        "ConfigMap",
        "data: {a: 007, b: 017, c: 08, d: 0o17, e: 0O17}",
        Same,
    ),
    ("ConfigMap", "data: {a: +12, b: -12}", Same),
    (
        "ConfigMap",
        "data: {a: 0x1f, b: 0X1F, c: -0x1f, d: +0x1F}",
        Same,
    ),
    ("ConfigMap", "data: {a: 0b101, b: -0b101, c: 0B11}", Same),
    (
        "ConfigMap",
        "data: {a: 1_000, b: 1__0, c: 1_, d: 0x_1f, e: _1}",
        Same,
    ),
    ("ConfigMap", "data: {a: 12345678901234567890}", Same),
    ("ConfigMap", "data: {a: 18446744073709551615}", Same),
    (
        "ConfigMap",
        "data: {a: 9223372036854775807, b: 9223372036854775808}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: -9223372036854775808, b: -9223372036854775809}",
        Same,
    ),
    ("ConfigMap", "data: {a: 9007199254740993}", Same),
    ("ConfigMap", "data: {a: 123456789012345678901234}", Same),
    // Floats and exponents.
    ("ConfigMap", "data: {a: 1.0, b: 1., c: 1.5, d: -1.5}", Same),
    ("ConfigMap", "data: {a: .5, b: -.5, c: +.5, d: .1e3}", Same),
    (
        "ConfigMap",
        "data: {a: 1e3, b: 1E3, c: 1e+3, d: 1e-3}",
        Same,
    ),
    ("ConfigMap", "data: {a: 1e20, b: 1e21, c: 1.5e300}", Same),
    (
        "ConfigMap",
        "data: {a: 0.000001, b: 1e-7, c: -1e-7, d: 1.5e-10}",
        Same,
    ),
    ("ConfigMap", "data: {a: -0.0, b: 09.5, c: 0.1}", Same),
    ("ConfigMap", "data: {a: 1e400, b: .5e400}", Same),
    ("ConfigMap", "data: {a: 0x1p3, b: 1:20, c: 0x, d: 1e}", Same),
    ("ConfigMap", "data: {a: .inf}", KustomizeFails("data.a")),
    ("ConfigMap", "data: {a: -.Inf}", KustomizeFails("data.a")),
    ("ConfigMap", "data: {a: +.INF}", KustomizeFails("data.a")),
    ("ConfigMap", "data: {a: .nan}", KustomizeFails("data.a")),
    ("ConfigMap", "data: {a: '.inf', b: .infinity}", Same),
    // Booleans, nulls and YAML 1.1 words.
    (
        "ConfigMap",
        "data: {a: true, b: True, c: TRUE, d: false}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: yes, b: on, c: No, d: off, e: y}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: ~, b: null, c: NULL, d: , e: !!null ''}",
        Same,
    ),
    // An empty value: a null in a block mapping, the empty string in a flow one.
    ("ConfigMap", "data:\n  a:\n  b: ~\n  c: !!null", Same),
    ("ConfigMap", "data: {a, b: , c: !!str , d: ! }", Same),
    ("ConfigMap", "x: &m {a: , b: x}\ndata:\n  <<: *m", Same),
    // Dates and timestamps.
    (
        "ConfigMap",
        "data: {a: 2001-12-14, b: 2001-1-2, c: 2000-02-29}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: 2001-02-30, b: 1900-02-29, c: 2001-13-01}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: 2001-12-14T21:59:43.10-05:00}",
        NotReproduced("data.a"),
    ),
    // Tags.
    (
        "ConfigMap",
        "data: {a: !!str 42, b: !!int \"42\", c: ! 42}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: !!float 1, b: !!float 0x10, c: !foo 42}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: !!bool \"true\", b: !!timestamp 2001-12-14}",
        Same,
    ),
    (
        "ConfigMap",
        "data: {a: !!int abc}",
        KustomizeFails("data.a"),
    ),
    (
        "ConfigMap",
        "data: {a: !!int 1.5}",
        KustomizeFails("data.a"),
    ),
    (
        "ConfigMap",
        "data: {a: !!bool yes}",
        KustomizeFails("data.a"),
    ),
    (
        "ConfigMap",
        "data: {a: !!binary aGVsbG8=}",
        NotReproduced("data.a"),
    ),
    // Keys, merges, nested values.
    ("ConfigMap", "data: {\"1\": a, 'true': b, \"~\": c}", Same),
    ("ConfigMap", "data: {<<: {a: 1, b: 2}, b: 3}", Same),
    ("ConfigMap", "data: {1: a}", KustomizeFails("data.1")),
    ("ConfigMap", "data: {true: a}", KustomizeFails("data.true")),
    ("ConfigMap", "data: {a: {b: c}}", NotReproduced("data.a")),
    // Secrets: type, data and stringData.
    ("Secret", "", Same),
    ("Secret", "type:", Same),
    ("Secret", "type: ~", Same),
    ("Secret", "type: null", Same),
    ("Secret", "type: \"\"", Same),
    ("Secret", "type: Opaque", Same),
    ("Secret", "type: 42", Same),
    ("Secret", "type: true", Same),
    ("Secret", "type: !!binary aGVsbG8=", Same),
    ("Secret", "type: {a: b}", Same),
    ("Secret", "type: [a]", Same),
    ("Secret", "data: ~", Same),
    ("Secret", "data: [a]", Same),
    ("Secret", "data: {a: YQ==}\nstringData: ~", Same),
    ("Secret", "data: {a: YQ==}\nstringData: [x]", Same),
    (
        "Secret",
        "stringData: {a: 1, b: 0x10, c: 1e3, d: true, e: ~}",
        Same,
    ),
    (
        "Secret",
        "stringData: {a: .nan}",
        KustomizeFails("stringData.a"),
    ),
];

/// The object `name` of case `i`, with the annotation that asks for a suffix.
fn object(kind: &str, name: &str, annotation: &str, body: &str) -> String {
    format!(
        "apiVersion: v1\nkind: {kind}\nmetadata:\n  name: {name}\n  annotations:\n    {annotation}\n{body}\n"
    )
}

const KUSTOMIZE_ASKS: &str = "internal.config.kubernetes.io/needsHashSuffix: enabled";
const CONFIG_HASH_ASKS: &str = "kustomize.config.k8s.io/needs-hash: \"true\"";

fn name(i: usize) -> String {
    format!("spelling-{i:03}")
}

/// `kubectl kustomize` of the objects as resources: its output, or its error.
fn kustomize(objects: &[String]) -> Result<String, String> {
    let dir = TempDir::new("kustomize-spellings");
    let mut resources = String::from("resources:\n");
    for (i, object) in objects.iter().enumerate() {
        fs::write(dir.path().join(format!("o{i}.yaml")), object).expect("write object");
        let _ = writeln!(resources, "- o{i}.yaml");
    }
    fs::write(dir.path().join("kustomization.yaml"), resources).expect("write kustomization");
    let output = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir.path())
        .output()
        .expect("run kubectl kustomize");
    if output.status.success() {
        Ok(String::from_utf8(output.stdout).expect("UTF-8"))
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// Every object's name in a stream, by its base name (`spelling-NNN`): both tools
/// write `metadata.name` at two spaces (read as text: not every case is a value a
/// YAML library here would decode).
fn names(stream: &str) -> Vec<(String, String)> {
    stream
        .lines()
        .filter_map(|line| line.strip_prefix("  name: "))
        .filter(|name| name.starts_with("spelling-"))
        .map(|name| (name[..12].to_owned(), name.to_owned()))
        .collect()
}

fn suffixes_match_kubectl_kustomize_for_every_spelling() {
    let mut failures = Vec::new();
    let same: Vec<usize> = (0..CASES.len()).filter(|&i| CASES[i].2 == Same).collect();

    // What kustomize names, in one build.
    let built = kustomize(
        &same
            .iter()
            .map(|&i| object(CASES[i].0, &name(i), KUSTOMIZE_ASKS, CASES[i].1))
            .collect::<Vec<_>>(),
    )
    .unwrap_or_else(|e| panic!("kubectl kustomize failed on the cases it names: {e}"));
    let kustomize_names = names(&built);
    assert_eq!(
        kustomize_names.len(),
        same.len(),
        "kustomize wrote {kustomize_names:?}"
    );

    // What config-hash names, in one run.
    let stream: Vec<String> = same
        .iter()
        .map(|&i| object(CASES[i].0, &name(i), CONFIG_HASH_ASKS, CASES[i].1))
        .collect();
    let out = common::config_hash(&["-q"], &stream.join("---\n"));
    common::assert_success(&out, "config-hash on the spellings kustomize names");
    let ours = names(&String::from_utf8(out.stdout).expect("UTF-8"));
    for (base, want) in &kustomize_names {
        assert_ne!(base, want, "kustomize gave {base} no suffix");
        let i: usize = base["spelling-".len()..].parse().expect("case number");
        let got = ours
            .iter()
            .find(|(b, _)| b == base)
            .map_or("(none)", |(_, n)| n.as_str());
        if got != want {
            failures.push(format!(
                "{} {:?}: kubectl kustomize names it {want}, config-hash {got}",
                CASES[i].0, CASES[i].1
            ));
        }
    }

    // Each spelling kustomize does not name as config-hash could, on its own.
    for (i, &(kind, body, expect)) in CASES.iter().enumerate() {
        let field = match expect {
            Same => continue,
            KustomizeFails(field) | NotReproduced(field) => field,
        };
        let built = kustomize(&[object(kind, &name(i), KUSTOMIZE_ASKS, body)]);
        match (expect, &built) {
            (KustomizeFails(_), Ok(_)) => {
                failures.push(format!("{kind} {body:?}: kubectl kustomize builds it"));
            }
            (NotReproduced(_), Err(e)) => {
                failures.push(format!("{kind} {body:?}: kubectl kustomize fails: {e}"));
            }
            _ => {}
        }
        let out = common::config_hash(&["-q"], &object(kind, &name(i), CONFIG_HASH_ASKS, body));
        let stderr = String::from_utf8_lossy(&out.stderr);
        let about = format!("{kind} {}: {field} ", name(i));
        if out.status.success() || !stderr.contains(&about) {
            failures.push(format!(
                "{kind} {body:?}: config-hash should refuse it naming {field} (exit {:?}): {stderr}",
                out.status.code()
            ));
        }
    }

    assert!(
        failures.is_empty(),
        "{} of {} spellings disagree with kubectl kustomize:\n{}",
        failures.len(),
        CASES.len(),
        failures.join("\n")
    );
    eprintln!(
        "kustomize spellings: {} named alike, {} refused",
        same.len(),
        CASES.len() - same.len()
    );
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![trial!(
        suffixes_match_kubectl_kustomize_for_every_spelling,
        Need::tool("kubectl")
    )])
}
