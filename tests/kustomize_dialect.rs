//! Differential test of the YAML dialect against the real tool: `kubectl kustomize`
//! writes adversarial ConfigMap and Secret content (its generators, `literals`,
//! `files:` and `envs:`), and config-hash must read that text exactly as kustomize reads it back.
//!
//! Per seed:
//!
//! 1. a kustomization with generated ConfigMaps and Secrets whose values are
//!    drawn from characters where YAML readers disagree (line separators, NEL, tabs,
//!    control characters, indicators, quotes, long lines kustomize folds) goes through
//!    `kubectl kustomize`: the text A;
//! 2. config-hash must accept A (with `--name-suffix`, so it reads every value);
//! 3. A with the suffixes taken off the names (U), and U with
//!    `internal.config.kubernetes.io/needsHashSuffix: enabled` on each object, listed as
//!    a resource, goes through `kubectl kustomize` again: kustomize suffixes each object
//!    from what *it read* in that text (which is not always what its generator hashed:
//!    its writer turns a raw NEL into a space, for one);
//! 4. config-hash `--name-suffix` on U must give every object the name kustomize gave.
//!
//! The fixed seeds run every time; `CONFIG_HASH_RANDOM_SEEDS=N` adds N random ones,
//! printed as they run. `KUSTOMIZE_DIALECT_SEEDS=1,2,3` runs those seeds instead.
//! Values are never printed for Secrets; a ConfigMap mismatch shows the text kustomize
//! wrote for that object (the values are synthetic).

#[macro_use]
mod common;

use common::harness::Need;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use common::{BINARY, Rng, TempDir, seeds};

/// The seeds every run checks. A seed that once found a disagreement stays here for
/// good. 0xd: before go-yaml's line breaks were read, config-hash rejected what
/// kustomize wrote for it (an LS in a block scalar).
const FIXED_SEEDS: &[u64] = &[0xd];

/// How many ConfigMaps and Secrets one seed generates.
const CONFIG_MAPS: usize = 14;
const SECRETS: usize = 4;

/// Pieces values are built from: where go-yaml and YAML 1.2 readers (and writers)
/// may disagree. Not DEL nor C1 controls other than NEL: kustomize's writer puts them
/// in raw and its own reader then refuses the text ("control characters are not
/// allowed"), so no kustomization can hold them.
const ATOMS: &[&str] = &[
    "a",
    "Zq",
    "word",
    "x y",
    " ",
    "  ",
    "<",
    ">",
    "&",
    "\"",
    "\\",
    "#",
    " #",
    "=",
    ": ",
    ":",
    "- ",
    "-",
    " -",
    "\t",
    "\u{7}",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "é",
    "日本語",
    "\u{2028}",
    "\u{2029}",
    "\u{85}",
    "'",
    "|",
    "%",
    "@",
    "`",
    "{",
    "}",
    "[",
    "]",
    ",",
    "*",
    "!",
    "?",
    "&a",
    "~",
    "\u{a0}",
    "\u{feff}",
    "🦀",
    "\u{fffd}",
    "---",
    "...",
    "\0",
    "\u{1b}",
    "\u{b}",
    "\u{c}",
    "null",
    "true",
    "yes",
    "0x1F",
    "0644",
    "1e3",
    "\u{200b}",
    "\u{3000}",
    "\u{2003}",
    "\\n",
    "\\u2028",
    "\u{10ffff}",
    "\u{e000}",
];

/// A value: a few atoms, now and then many (kustomize folds long lines).
fn value(rng: &mut Rng) -> String {
    let n = match rng.below(10) {
        0 => 0,
        1 => 30 + rng.below(60),
        _ => 1 + rng.below(8),
    };
    let mut s = String::new();
    for _ in 0..n {
        s.push_str(rng.pick(ATOMS));
    }
    s
}

/// One generator entry.
enum Source {
    Literal(String, String),
    File(String, Vec<u8>),
    /// `envs:`: an env file's text (`KEY=value` lines).
    Env(String),
}

struct Generated {
    name: String,
    secret: bool,
    sources: Vec<Source>,
}

fn generate(rng: &mut Rng) -> Vec<Generated> {
    let mut out = Vec::new();
    for i in 0..CONFIG_MAPS + SECRETS {
        let secret = i >= CONFIG_MAPS;
        let name = if secret {
            format!("sec-{i:02}")
        } else {
            format!("cm-{i:02}")
        };
        let sources = (0..1 + rng.below(4))
            .map(|k| {
                // Keys: what a ConfigMap key may hold, and never `name` (see `unsuffix`).
                let key = format!("{}{k}{}", rng.pick(&["k", "K", "_k", "-k", ".k"]), {
                    rng.pick(&["", ".txt", "-a_b", ".x.y"])
                });
                if rng.below(6) == 0 {
                    let text: String = (0..1 + rng.below(3))
                        .map(|j| {
                            let value: String = value(rng)
                                .chars()
                                .filter(|&c| !"\n\r".contains(c))
                                .collect();
                            format!("E{k}_{j}={value}\n")
                        })
                        .collect();
                    Source::Env(text)
                } else if rng.below(3) == 0 {
                    let mut bytes = value(rng).into_bytes();
                    if rng.below(8) == 0 {
                        // Not UTF-8: binaryData (ConfigMap) or plain base64 (Secret).
                        bytes.extend_from_slice(b"\xff\xfe\x80");
                    }
                    Source::File(key, bytes)
                } else {
                    Source::Literal(key, value(rng))
                }
            })
            .collect();
        out.push(Generated {
            name,
            secret,
            sources,
        });
    }
    out
}

/// A double-quoted YAML scalar that reaches kustomize unchanged: everything a reader
/// might take for a break, BOM or control character is escaped.
fn yaml_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c < ' '
                || ('\u{7f}'..='\u{9f}').contains(&c)
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
                || c > '\u{ffff}'
                || ('\u{e000}'..='\u{f8ff}').contains(&c) =>
            {
                if c > '\u{ffff}' {
                    let _ = write!(out, "\\U{:08x}", u32::from(c));
                } else {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn write_kustomization(dir: &Path, objects: &[Generated]) {
    let (mut config_maps, mut secrets) = (String::new(), String::new());
    for object in objects {
        let out = if object.secret {
            &mut secrets
        } else {
            &mut config_maps
        };
        let _ = writeln!(out, "- name: {}", object.name);
        let (mut literals, mut files, mut envs) = (Vec::new(), Vec::new(), Vec::new());
        for (i, source) in object.sources.iter().enumerate() {
            match source {
                Source::Literal(key, value) => literals.push(format!("{key}={value}")),
                Source::File(key, bytes) => {
                    let file = format!("{}-{i}", object.name);
                    fs::write(dir.join(&file), bytes).expect("write source file");
                    files.push(format!("{key}={file}"));
                }
                Source::Env(text) => {
                    let file = format!("{}-{i}.env", object.name);
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
    let text = format!("configMapGenerator:\n{config_maps}secretGenerator:\n{secrets}");
    fs::write(dir.join("kustomization.yaml"), text).expect("write kustomization.yaml");
}

/// `kubectl kustomize DIR`: its output, or its error message.
fn try_kustomize(dir: &Path) -> Result<String, String> {
    let output = Command::new("kubectl")
        .arg("kustomize")
        .arg(dir)
        .output()
        .expect("run kubectl kustomize");
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).into_owned());
    }
    Ok(String::from_utf8(output.stdout).expect("kustomize writes UTF-8"))
}

fn kustomize(dir: &Path, seed: u64) -> String {
    try_kustomize(dir).unwrap_or_else(|e| panic!("seed {seed:#x}: kubectl kustomize failed: {e}"))
}

/// The objects kustomize can build on their own. Some content it cannot: a value that
/// starts with a tab and holds a newline is written as a literal block scalar whose first
/// line starts with a tab, which its own reader then refuses ("found a tab character
/// where an indentation space is expected"). Nothing config-hash could be asked to read.
fn buildable(dir: &Path, objects: Vec<Generated>) -> Vec<Generated> {
    write_kustomization(dir, &objects);
    if try_kustomize(dir).is_ok() {
        return objects;
    }
    objects
        .into_iter()
        .filter(|object| {
            let one = std::slice::from_ref(object);
            write_kustomization(dir, one);
            let ok = try_kustomize(dir).is_ok();
            if !ok {
                eprintln!("  {}: kustomize cannot build it; left out", object.name);
            }
            ok
        })
        .collect()
}

fn config_hash(args: &[&str], stdin: &str) -> Output {
    common::run_with_stdin(Command::new(BINARY).args(args), stdin)
}

/// Every `metadata.name` of a generated object in kustomize's (or config-hash's) output,
/// by base name: kustomize writes `metadata:` at column 0 and `  name:` right under it
/// (annotations, when there are any, come before `name`, sorted).
fn names(text: &str, objects: &[Generated]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let Some(name) = line.strip_prefix("  name: ") else {
            continue;
        };
        let base = name.rsplit_once('-').map_or(name, |(b, _)| b);
        if objects.iter().any(|o| o.name == base) {
            assert!(
                out.insert(base.to_owned(), name.to_owned()).is_none(),
                "two names for {base}"
            );
        }
    }
    out
}

/// The text with every generated object's name back to its base name, and, when
/// `annotate`, kustomize's build annotation asking it to suffix the object.
fn unsuffix(text: &str, names: &BTreeMap<String, String>, annotate: bool) -> String {
    let mut out = text.to_owned();
    for (base, name) in names {
        let from = format!("metadata:\n  name: {name}\n");
        let to = if annotate {
            format!(
                "metadata:\n  annotations:\n    internal.config.kubernetes.io/needsHashSuffix: enabled\n  name: {base}\n"
            )
        } else {
            format!("metadata:\n  name: {base}\n")
        };
        assert_eq!(out.matches(&from).count(), 1, "{name} once");
        out = out.replace(&from, &to);
    }
    out
}

/// The document of kustomize's output that defines `name`, for a failure message:
/// nothing of a Secret.
fn shown(text: &str, name: &str, objects: &[Generated]) -> String {
    let base = name.rsplit_once('-').map_or(name, |(b, _)| b);
    if objects.iter().any(|o| o.name == base && o.secret) {
        return "(a Secret: values not shown)".to_owned();
    }
    text.split("\n---\n")
        .find(|doc| doc.lines().any(|l| l == format!("  name: {name}")))
        .map_or_else(|| "(not found)".to_owned(), |doc| format!("{doc:?}"))
}

/// Runs one seed; returns the failures (empty when config-hash agrees with kustomize).
fn check_seed(seed: u64) -> Vec<String> {
    let dir = TempDir::new("kustomize-dialect");
    let gen_dir = dir.path().join("gen");
    fs::create_dir(&gen_dir).expect("create gen dir");
    let objects = buildable(&gen_dir, generate(&mut Rng(seed)));
    write_kustomization(&gen_dir, &objects);
    let written = kustomize(&gen_dir, seed);
    let generated = names(&written, &objects);
    assert_eq!(
        generated.len(),
        objects.len(),
        "seed {seed:#x}: kustomize made {generated:?}"
    );

    let mut failures = Vec::new();
    // (a) nothing kustomize wrote is rejected.
    let out = config_hash(&["-q", "--name-suffix"], &written);
    if !out.status.success() {
        failures.push(format!(
            "seed {seed:#x}: config-hash rejected what kubectl kustomize wrote: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return failures;
    }

    // (b) every suffix is the one kustomize gives when it reads the text back.
    let read_dir = dir.path().join("read");
    fs::create_dir(&read_dir).expect("create read dir");
    fs::write(
        read_dir.join("objects.yaml"),
        unsuffix(&written, &generated, true),
    )
    .expect("write objects.yaml");
    fs::write(
        read_dir.join("kustomization.yaml"),
        "resources:\n- objects.yaml\n",
    )
    .expect("write kustomization.yaml");
    let expected = names(&kustomize(&read_dir, seed), &objects);
    let unsuffixed = unsuffix(&written, &generated, false);
    let out = config_hash(&["-q", "--name-suffix"], &unsuffixed);
    if !out.status.success() {
        failures.push(format!(
            "seed {seed:#x}: config-hash rejected the unsuffixed text: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
        return failures;
    }
    let ours = names(&String::from_utf8(out.stdout).expect("UTF-8"), &objects);
    for (base, want) in &expected {
        let got = ours.get(base).map_or("(none)", String::as_str);
        if got != want {
            failures.push(format!(
                "seed {seed:#x}: kustomize reads {base} as {want}, config-hash as {got}; kustomize wrote: {}",
                shown(&written, &generated[base], &objects)
            ));
        }
    }
    failures
}

fn config_hash_reads_what_kubectl_kustomize_writes() {
    let seeds = seeds("KUSTOMIZE_DIALECT_SEEDS", FIXED_SEEDS);
    let mut failures = Vec::new();
    for &seed in &seeds {
        eprintln!("kustomize dialect: seed {seed:#x}");
        failures.extend(check_seed(seed));
    }
    assert!(
        failures.is_empty(),
        "{} disagreement(s) with kubectl kustomize (rerun with KUSTOMIZE_DIALECT_SEEDS=<seed>):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The helpers find each generated object's name, and only those.
fn names_are_found_per_object_and_unsuffixed() {
    let objects = vec![Generated {
        name: "cm-00".to_owned(),
        secret: false,
        sources: Vec::new(),
    }];
    let text = "metadata:\n  name: cm-00-abcdefghij\n---\nmetadata:\n  name: other-x\n";
    let names = names(text, &objects);
    assert_eq!(names["cm-00"], "cm-00-abcdefghij");
    assert_eq!(names.len(), 1);
    assert_eq!(
        unsuffix(text, &names, false),
        "metadata:\n  name: cm-00\n---\nmetadata:\n  name: other-x\n"
    );
}

/// `cargo test` gives the same answer on every run: with no seed list in the
/// environment and no `CONFIG_HASH_RANDOM_SEEDS`, the seeds are exactly the fixed ones.
fn seeds_are_the_fixed_ones_unless_random_ones_are_asked_for() {
    let got = seeds("CONFIG_HASH_TEST_NO_SUCH_SEEDS", &[0xd, 0x5eed]);
    assert_eq!(got[..2], [0xd, 0x5eed]);
    assert_eq!(got.len(), 2 + common::random_seed_count(), "{got:x?}");
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(
            config_hash_reads_what_kubectl_kustomize_writes,
            Need::tool("kubectl")
        ),
        trial!(names_are_found_per_object_and_unsuffixed),
        trial!(seeds_are_the_fixed_ones_unless_random_ones_are_asked_for),
    ])
}
