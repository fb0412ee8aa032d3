//! End to end with the real `kpt`: the packages under `examples/` go through
//! `kpt fn eval --exec` and `kpt fn render --allow-exec`, and the files kpt writes back
//! are compared line by line with the originals.
//!
//! What kpt itself does to the files (kpt 1.0.0-beta.56, checked by running it with
//! `--exec cat`, a function that changes nothing): it re-serialises every file of the
//! package through kyaml, so it drops a leading `---` and blank lines, re-indents
//! mappings to two spaces, collapses the spaces before a comment to one and turns
//! folded block scalars (`>-`) into quoted strings. It removes the
//! `config.kubernetes.io/*` and `internal.config.kubernetes.io/*` annotations it adds
//! for the function, adds none of its own to the files, and writes nothing else into
//! the package. The examples are written in the form kpt writes, so every byte that
//! moves in these tests is config-hash's doing.

#[macro_use]
mod common;

use common::harness::Need;
use std::collections::BTreeMap;
use std::fs;
use std::process::{Command, Output};

use common::{BINARY, TempDir, assert_success, is_hash, pod_template};
use yaml_serde::Value;

const ANNOTATION_KEY: &str = "config-hash.dev/hash";
const ENV_NAME: &str = "CONFIG_HASH";
/// Stands for a 64-char lowercase hex hash in expected lines.
const HASH: &str = "<HASH>";

/// The workload files of both examples; the other files must never change.
const WORKLOADS: [&str; 2] = ["deployment.yaml", "cronjob.yaml"];

/// A copy of one example package in a fresh temp dir, removed on drop.
struct Package {
    dir: TempDir,
}

impl Package {
    fn copy_of(example: &str) -> Self {
        Package {
            dir: TempDir::copy_of("e2e-kpt", example),
        }
    }

    fn read(&self, file: &str) -> String {
        fs::read_to_string(self.dir.path().join(file))
            .unwrap_or_else(|e| panic!("read {file} from {}: {e}", self.dir.path().display()))
    }

    /// Replaces the one occurrence of `from` in `file` with `to`.
    fn edit(&self, file: &str, from: &str, to: &str) {
        self.dir.edit(file, from, to);
    }

    /// Every file of the package, by name, as bytes (not `.expected/`, the catalog-style
    /// test expectations that `.krmignore` keeps from kpt).
    fn snapshot(&self) -> BTreeMap<String, Vec<u8>> {
        let mut files = BTreeMap::new();
        for entry in fs::read_dir(self.dir.path()).expect("list package") {
            let entry = entry.expect("list package");
            if entry.file_name() == ".expected" {
                continue;
            }
            assert!(entry.file_type().expect("file type").is_file());
            let name = entry.file_name().into_string().expect("UTF-8 file name");
            files.insert(name, fs::read(entry.path()).expect("read package file"));
        }
        files
    }

    /// `kpt fn eval DIR --exec BIN [-- fn_args]`.
    fn eval(&self, fn_args: &[&str]) -> Output {
        let mut args = vec!["fn", "eval", self.dir.str()];
        args.extend(["--exec", BINARY]);
        if !fn_args.is_empty() {
            args.push("--");
            args.extend(fn_args);
        }
        kpt(&args)
    }

    /// `kpt fn render DIR --allow-exec`; the Kptfile names `config-hash`, found on PATH.
    fn render(&self) -> Output {
        kpt(&["fn", "render", self.dir.str(), "--allow-exec"])
    }
}

/// Runs kpt with the built binary's directory first on PATH.
fn kpt(args: &[&str]) -> Output {
    Command::new("kpt")
        .args(args)
        .env("PATH", common::path_with_binary())
        .output()
        .unwrap_or_else(|e| panic!("run kpt {}: {e}", args.join(" ")))
}

/// The lines of `new` that are not in `original`, given that `new` is `original`
/// with lines inserted and nothing else changed (panics otherwise). An inserted line
/// equal to the original line right after it would be attributed to the original;
/// the lines this function inserts never look like their neighbours.
fn inserted_lines(file: &str, original: &str, new: &str) -> Vec<String> {
    let mut rest = original.split_inclusive('\n').peekable();
    let mut inserted = Vec::new();
    for line in new.split_inclusive('\n') {
        if rest.peek() == Some(&line) {
            rest.next();
        } else {
            inserted.push(line.to_owned());
        }
    }
    if let Some(lost) = rest.next() {
        panic!(
            "{file}: the original line {lost:?} was changed or removed; \
             only insertions were expected.\n--- original\n{original}\n--- new\n{new}"
        );
    }
    inserted
}

/// `text` with every double-quoted 64-char lowercase hex string replaced by `"<HASH>"`,
/// and the hashes found, in order.
fn mask_hashes(text: &str) -> (String, Vec<String>) {
    let mut hashes = Vec::new();
    let masked: Vec<&str> = text
        .split('"')
        .enumerate()
        .map(|(i, piece)| {
            if i % 2 == 1 && is_hash(piece) {
                hashes.push(piece.to_owned());
                HASH
            } else {
                piece
            }
        })
        .collect();
    (masked.join("\""), hashes)
}

/// Checks that `new` is `original` plus exactly `expected` lines (hashes masked), and
/// returns the hash they carry (all hashes inserted into one file are the same).
fn assert_inserted(file: &str, original: &str, new: &str, expected: &[&str]) -> String {
    let inserted = inserted_lines(file, original, new);
    let (masked, hashes) = mask_hashes(&inserted.concat());
    let expected = expected
        .iter()
        .map(|l| format!("{l}\n"))
        .collect::<String>();
    assert_eq!(masked, expected, "{file}: the lines inserted into it");
    let first = hashes.first().expect("a hash was inserted").clone();
    assert!(
        hashes.iter().all(|h| *h == first),
        "{file}: different hashes in one workload: {hashes:?}"
    );
    first
}

fn parse(file: &str, text: &str) -> Value {
    yaml_serde::from_str(text).unwrap_or_else(|e| panic!("{file} does not parse: {e}"))
}

/// The hash annotation on the workload's pod template, if any.
fn annotation_hash(file: &str, text: &str) -> Option<String> {
    let doc = parse(file, text);
    pod_template(&doc)["metadata"]["annotations"][ANNOTATION_KEY]
        .as_str()
        .map(str::to_owned)
}

/// The `CONFIG_HASH` value of every container of the workload (None where absent).
fn env_hashes(file: &str, text: &str) -> Vec<Option<String>> {
    let doc = parse(file, text);
    let containers = pod_template(&doc)["spec"]["containers"]
        .as_sequence()
        .unwrap_or_else(|| panic!("{file}: no containers"));
    containers
        .iter()
        .map(|c| {
            let env = c["env"].as_sequence()?;
            let entry = env.iter().find(|e| e["name"].as_str() == Some(ENV_NAME))?;
            entry["value"].as_str().map(str::to_owned)
        })
        .collect()
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Annotation,
    Env,
}

/// The hash a stamped workload file carries in `mode`: checked against the YAML
/// structure, so a line inserted in the wrong place cannot pass.
fn stamped_hash(file: &str, text: &str, mode: Mode) -> String {
    match mode {
        Mode::Annotation => {
            let hash = annotation_hash(file, text)
                .unwrap_or_else(|| panic!("{file}: no {ANNOTATION_KEY} annotation:\n{text}"));
            assert!(is_hash(&hash), "{file}: {hash:?} is not 64 lowercase hex");
            assert!(
                env_hashes(file, text).iter().all(Option::is_none),
                "{file}: annotation mode set {ENV_NAME}"
            );
            hash
        }
        Mode::Env => {
            let values = env_hashes(file, text);
            let first = values[0]
                .clone()
                .unwrap_or_else(|| panic!("{file}: no {ENV_NAME} env:\n{text}"));
            assert!(is_hash(&first), "{file}: {first:?} is not 64 lowercase hex");
            assert!(
                values.iter().all(|v| v.as_deref() == Some(first.as_str())),
                "{file}: every container must carry the same {ENV_NAME}: {values:?}"
            );
            assert_eq!(
                annotation_hash(file, text),
                None,
                "{file}: env mode set the annotation"
            );
            first
        }
    }
}

/// Files other than the workloads must come back byte-identical.
fn assert_untouched(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "{what}: the package's file list changed"
    );
    for (name, bytes) in before {
        if !WORKLOADS.contains(&name.as_str()) {
            assert!(
                after[name] == *bytes,
                "{what}: {name} changed:\n--- before\n{}\n--- after\n{}",
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&after[name])
            );
        }
    }
}

// The lines config-hash inserts into the examples, hashes masked.

const BASIC_DEPLOYMENT_ANNOTATION: &[&str] = &[
    "      annotations:",
    "        config-hash.dev/hash: \"<HASH>\"",
];
/// The CronJob's pod template has no metadata, so config-hash adds it.
const BASIC_CRONJOB_ANNOTATION: &[&str] = &[
    "        metadata:",
    "          annotations:",
    "            config-hash.dev/hash: \"<HASH>\"",
];
const BASIC_DEPLOYMENT_ENV: &[&str] = &[
    "            - name: CONFIG_HASH",
    "              value: \"<HASH>\"",
];
const BASIC_CRONJOB_ENV: &[&str] = &[
    "                - name: CONFIG_HASH",
    "                  value: \"<HASH>\"",
];
/// Two containers: one with an `env` list, and a sidecar without one.
const ENV_MODE_DEPLOYMENT_ENV: &[&str] = &[
    "        - name: CONFIG_HASH",
    "          value: \"<HASH>\"",
    "        env:",
    "        - name: CONFIG_HASH",
    "          value: \"<HASH>\"",
];
const ENV_MODE_CRONJOB_ENV: &[&str] = &[
    "            - name: CONFIG_HASH",
    "              value: \"<HASH>\"",
];

/// Runs `kpt fn eval` on a copy of `basic` and checks the files it wrote back; returns
/// the hashes of the Deployment and the CronJob.
fn eval_basic(fn_args: &[&str], mode: Mode) -> (String, String) {
    let package = Package::copy_of("basic");
    let before = package.snapshot();
    assert_success(&package.eval(fn_args), "kpt fn eval");
    let after = package.snapshot();
    assert_untouched(&before, &after, "kpt fn eval");

    let (deployment_lines, cronjob_lines) = match mode {
        Mode::Annotation => (BASIC_DEPLOYMENT_ANNOTATION, BASIC_CRONJOB_ANNOTATION),
        Mode::Env => (BASIC_DEPLOYMENT_ENV, BASIC_CRONJOB_ENV),
    };
    let mut hashes = Vec::new();
    for (file, expected) in [
        ("deployment.yaml", deployment_lines),
        ("cronjob.yaml", cronjob_lines),
    ] {
        let original = String::from_utf8(before[file].clone()).expect("UTF-8 example");
        let new = package.read(file);
        let inserted = assert_inserted(file, &original, &new, expected);
        assert_eq!(stamped_hash(file, &new, mode), inserted, "{file}");
        hashes.push(inserted);
    }
    let deployment = package.read("deployment.yaml");
    for comment in ["# pinned minor version", "# The whole ConfigMap, as files."] {
        assert!(deployment.contains(comment), "comment {comment:?} lost");
    }
    assert!(
        deployment.contains("defaultMode: 0644\n"),
        "0644 re-spelled"
    );
    let cronjob = package.read("cronjob.yaml");
    assert!(cronjob.contains("schedule: \"0 3 * * *\" # 03:00 UTC\n"));

    let cronjob_hash = hashes.pop().expect("two hashes");
    let deployment_hash = hashes.pop().expect("two hashes");
    // The Deployment sees more than the CronJob's one key.
    assert_ne!(deployment_hash, cronjob_hash);
    (deployment_hash, cronjob_hash)
}

fn eval_stamps_annotations_and_leaves_every_other_byte() {
    eval_basic(&[], Mode::Annotation);
}

fn eval_env_mode_puts_the_annotation_hash_in_every_container() {
    let annotation = eval_basic(&[], Mode::Annotation);
    let env = eval_basic(&["mode=env"], Mode::Env);
    // In key granularity, the annotation and the env var carry the same hash.
    assert_eq!(env, annotation);
}

/// One edit of a source object, and the workload files whose hash it must change.
struct Edit {
    file: &'static str,
    from: &'static str,
    to: &'static str,
    changes: &'static [&'static str],
}

/// Renders a copy of `example`: checks the stamp, that a second render changes nothing,
/// and that each edit changes exactly the hashes of the workloads that see it.
fn check_render(example: &str, mode: Mode, expected: &[(&str, &[&str])], edits: &[Edit]) {
    let package = Package::copy_of(example);
    let before = package.snapshot();
    assert_success(&package.render(), "kpt fn render");
    let mut current = package.snapshot();
    assert_untouched(&before, &current, "kpt fn render");

    let mut hashes = BTreeMap::new();
    for (file, lines) in expected {
        let original = String::from_utf8(before[*file].clone()).expect("UTF-8 example");
        let new = package.read(file);
        let inserted = assert_inserted(file, &original, &new, lines);
        assert_eq!(stamped_hash(file, &new, mode), inserted, "{file}");
        hashes.insert(*file, inserted);
    }

    assert_success(&package.render(), "second kpt fn render");
    assert!(
        package.snapshot() == current,
        "a second render changed files"
    );

    for edit in edits {
        let what = format!("after editing {} to {:?}", edit.file, edit.to);
        package.edit(edit.file, edit.from, edit.to);
        let edited = package.snapshot();
        assert_success(&package.render(), &format!("kpt fn render {what}"));
        let after = package.snapshot();
        assert_untouched(&edited, &after, &what);

        for file in WORKLOADS {
            let old_text = String::from_utf8(current[file].clone()).expect("UTF-8");
            let new_text = package.read(file);
            // Only hash values may move; the rest of the file stays as it was.
            assert_eq!(
                mask_hashes(&new_text).0,
                mask_hashes(&old_text).0,
                "{what}: {file} changed beyond its hash"
            );
            let new_hash = stamped_hash(file, &new_text, mode);
            let old_hash = &hashes[file];
            if edit.changes.contains(&file) {
                assert_ne!(&new_hash, old_hash, "{what}: {file} must get a new hash");
            } else {
                assert_eq!(&new_hash, old_hash, "{what}: {file} must keep its hash");
            }
            hashes.insert(file, new_hash);
        }

        assert_success(&package.render(), &format!("second render {what}"));
        assert!(
            package.snapshot() == after,
            "{what}: a second render changed files"
        );
        current = after;
    }
}

fn render_basic_stamps_once_and_follows_the_keys_each_pod_sees() {
    check_render(
        "basic",
        Mode::Annotation,
        &[
            ("deployment.yaml", BASIC_DEPLOYMENT_ANNOTATION),
            ("cronjob.yaml", BASIC_CRONJOB_ANNOTATION),
        ],
        &[
            // Read by the Deployment (envFrom, volume), not by the CronJob.
            Edit {
                file: "configmap.yaml",
                from: "FEATURE_FLAGS: \"search,checkout\"",
                to: "FEATURE_FLAGS: \"search\"",
                changes: &["deployment.yaml"],
            },
            // The one key the CronJob reads; the Deployment reads it too.
            Edit {
                file: "configmap.yaml",
                from: "LOG_LEVEL: info",
                to: "LOG_LEVEL: debug",
                changes: &["deployment.yaml", "cronjob.yaml"],
            },
            Edit {
                file: "configmap.yaml",
                from: "listen 8080;",
                to: "listen 8081;",
                changes: &["deployment.yaml"],
            },
            // Metadata is never hashed.
            Edit {
                file: "configmap.yaml",
                from: "app: web # labels",
                to: "app: web-v2 # labels",
                changes: &[],
            },
            // No pod reads the Secret's username.
            Edit {
                file: "secret.yaml",
                from: "username: web",
                to: "username: web-ro",
                changes: &[],
            },
            Edit {
                file: "secret.yaml",
                from: "password: \"change-me\"",
                to: "password: \"changed\"",
                changes: &["deployment.yaml"],
            },
        ],
    );
}

fn render_env_mode_stamps_once_and_follows_the_keys_each_pod_sees() {
    check_render(
        "env-mode",
        Mode::Env,
        &[
            ("deployment.yaml", ENV_MODE_DEPLOYMENT_ENV),
            ("cronjob.yaml", ENV_MODE_CRONJOB_ENV),
        ],
        &[
            Edit {
                file: "configmap.yaml",
                from: "CACHE_TTL: 5m",
                to: "CACHE_TTL: 10m",
                changes: &["deployment.yaml"],
            },
            Edit {
                file: "configmap.yaml",
                from: "RETENTION_DAYS: \"30\"",
                to: "RETENTION_DAYS: \"7\"",
                changes: &["deployment.yaml", "cronjob.yaml"],
            },
            Edit {
                file: "configmap.yaml",
                from: "burst: 200",
                to: "burst: 400",
                changes: &["deployment.yaml"],
            },
            // "admin" instead of "api": no pod reads this key.
            Edit {
                file: "secret.yaml",
                from: "user: YXBp",
                to: "user: YWRtaW4=",
                changes: &[],
            },
            // "new" instead of "s3cr3t".
            Edit {
                file: "secret.yaml",
                from: "token: czNjcjN0",
                to: "token: bmV3",
                changes: &["deployment.yaml"],
            },
        ],
    );
}

fn function_config_error_fails_kpt_with_the_message() {
    let package = Package::copy_of("basic");
    let before = package.snapshot();
    let output = package.eval(&["mode=sideways"]);
    assert!(
        !output.status.success(),
        "kpt fn eval -- mode=sideways succeeded"
    );
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for needle in ["[error]", "mode", "\"sideways\"", "annotation"] {
        assert!(
            shown.contains(needle),
            "kpt output lacks {needle:?}:\n{shown}"
        );
    }
    assert!(
        package.snapshot() == before,
        "a failed eval changed the package"
    );

    // The same mistake in the Kptfile pipeline.
    package.edit(
        "Kptfile",
        "- exec: config-hash\n",
        "- exec: config-hash\n      configMap:\n        mode: sideways\n",
    );
    let before = package.snapshot();
    let output = package.render();
    assert!(!output.status.success(), "kpt fn render succeeded");
    let shown = String::from_utf8_lossy(&output.stderr);
    assert!(
        shown.contains("\"sideways\""),
        "kpt output lacks the error:\n{shown}"
    );
    assert!(
        package.snapshot() == before,
        "a failed render changed the package"
    );
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(
            eval_stamps_annotations_and_leaves_every_other_byte,
            Need::tool("kpt")
        ),
        trial!(
            eval_env_mode_puts_the_annotation_hash_in_every_container,
            Need::tool("kpt")
        ),
        trial!(
            render_basic_stamps_once_and_follows_the_keys_each_pod_sees,
            Need::tool("kpt")
        ),
        trial!(
            render_env_mode_stamps_once_and_follows_the_keys_each_pod_sees,
            Need::tool("kpt")
        ),
        trial!(
            function_config_error_fails_kpt_with_the_message,
            Need::tool("kpt")
        ),
    ])
}
