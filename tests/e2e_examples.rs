//! Every kpt package under `examples/` run the way the kpt function catalog runs its
//! examples: `.expected/config.yaml` says how (`testType: eval` or `render`, `exitCode`,
//! `args`), `.expected/diff.patch` is the `git diff` the run leaves in the package and
//! `.expected/results.yaml` the results file kpt writes with `--results-dir`. Each case
//! runs with the real kpt, then again on its own output, which must change nothing more
//! (idempotence). Expected files are compared byte for byte (after trimming the
//! surrounding whitespace, as kpt's own runner does).
//!
//! `KPT_E2E_UPDATE_EXPECTED=true cargo test --test e2e_examples` rewrites diff.patch and
//! results.yaml from what runs now (kpt's own variable); review the diff.

#[macro_use]
mod common;

use common::harness::Need;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{TempDir, copy_dir, path_with_binary};
use yaml_serde::Value;

/// One `.expected/config.yaml`.
struct Case {
    dir: PathBuf,
    name: String,
    render: bool,
    exit_code: i32,
    args: Vec<String>,
}

fn cases() -> Vec<Case> {
    common::example_packages()
        .into_iter()
        .map(|dir| {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            let config_path = dir.join(".expected/config.yaml");
            let text = fs::read_to_string(&config_path).unwrap_or_else(|e| {
                panic!("examples/{name} is a kpt package without .expected/config.yaml: {e}")
            });
            for file in ["diff.patch", "results.yaml"] {
                assert!(
                    dir.join(".expected").join(file).is_file() || update(),
                    "examples/{name}/.expected/{file} is missing (KPT_E2E_UPDATE_EXPECTED=true creates it)"
                );
            }
            assert!(dir.join("README.md").is_file(), "examples/{name} has no README.md");
            let config: Value = yaml_serde::from_str(&text).expect("config.yaml is YAML");
            let render = match config["testType"].as_str().unwrap_or("eval") {
                "render" => true,
                "eval" => false,
                other => panic!("examples/{name}: testType {other:?} is not eval or render"),
            };
            let args = config["args"]
                .as_mapping()
                .map(|m| {
                    m.iter()
                        .map(|(k, v)| {
                            format!("{}={}", k.as_str().expect("arg key"), v.as_str().expect("arg value"))
                        })
                        .collect()
                })
                .unwrap_or_default();
            Case {
                dir,
                name,
                render,
                exit_code: config["exitCode"].as_i64().unwrap_or(0) as i32,
                args,
            }
        })
        .collect()
}

fn update() -> bool {
    std::env::var("KPT_E2E_UPDATE_EXPECTED").is_ok_and(|v| v.eq_ignore_ascii_case("true"))
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = common::run(
        Command::new("git")
            .args(["-c", "user.name=e2e", "-c", "user.email=e2e@example.com"])
            .args(["-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"])
            .args(args)
            .current_dir(dir),
    );
    String::from_utf8(out.stdout).expect("UTF-8 git output")
}

/// The package's change since `base`, as kpt's runner reads it: commit all, diff.
fn diff_since(pkg: &Path, base: &str, message: &str) -> String {
    git(pkg, &["add", "-A"]);
    git(pkg, &["commit", "-q", "--allow-empty", "-m", message]);
    git(pkg, &["diff", base, "HEAD"]).trim().to_string()
}

fn run_kpt(case: &Case, pkg: &Path, results: &Path) -> Output {
    let _ = fs::remove_dir_all(results);
    fs::create_dir_all(results).expect("results dir");
    let mut command = Command::new("kpt");
    command.env("PATH", path_with_binary());
    if case.render {
        command.args(["fn", "render"]).arg(pkg).arg("--allow-exec");
    } else {
        command
            .args(["fn", "eval"])
            .arg(pkg)
            .args(["--exec", "config-hash"]);
    }
    command.arg("--results-dir").arg(results);
    if !case.render && !case.args.is_empty() {
        command.arg("--").args(&case.args);
    }
    command.output().expect("run kpt")
}

fn results_text(results: &Path) -> String {
    let files: Vec<PathBuf> = fs::read_dir(results)
        .expect("list results")
        .map(|e| e.expect("entry").path())
        .collect();
    match files.as_slice() {
        [] => String::new(),
        [one] => fs::read_to_string(one)
            .expect("read results")
            .trim()
            .to_string(),
        more => panic!("kpt wrote {} results files", more.len()),
    }
}

fn expected(case: &Case, file: &str) -> String {
    fs::read_to_string(case.dir.join(".expected").join(file))
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn every_example_package_matches_its_expected_files_twice() {
    let cases = cases();
    assert!(!cases.is_empty(), "no kpt packages under examples/");
    let mut failures = Vec::new();
    for case in &cases {
        let tmp = TempDir::new(&format!("e2e-examples-{}", case.name));
        let pkg = tmp.path().join(&case.name);
        copy_dir(&case.dir, &pkg);
        let results = tmp.path().join("results");
        git(&pkg, &["init", "-q"]);
        git(&pkg, &["add", "-A"]);
        git(&pkg, &["commit", "-q", "-m", "first"]);
        let base = git(&pkg, &["rev-parse", "HEAD"]).trim().to_string();

        let mut outputs = Vec::new();
        for round in ["first run", "second run (on the first run's output)"] {
            let out = run_kpt(case, &pkg, &results);
            let diff = diff_since(&pkg, &base, round);
            outputs.push((round, out, diff, results_text(&results)));
        }
        if update() {
            let (_, out, diff, results) = &outputs[0];
            assert_eq!(
                out.status.code(),
                Some(case.exit_code),
                "examples/{}: kpt exit status:\n{}",
                case.name,
                String::from_utf8_lossy(&out.stderr)
            );
            let dir = case.dir.join(".expected");
            fs::write(dir.join("diff.patch"), format!("{diff}\n")).expect("write diff.patch");
            fs::write(dir.join("results.yaml"), format!("{results}\n"))
                .expect("write results.yaml");
            continue;
        }
        let (want_diff, want_results) =
            (expected(case, "diff.patch"), expected(case, "results.yaml"));
        for (round, out, diff, results) in &outputs {
            let what = format!("examples/{} ({round})", case.name);
            if out.status.code() != Some(case.exit_code) {
                failures.push(format!(
                    "{what}: kpt exited {:?}, expected {}:\n{}",
                    out.status.code(),
                    case.exit_code,
                    String::from_utf8_lossy(&out.stderr)
                ));
            }
            if *diff != want_diff {
                failures.push(format!(
                    "{what}: the package diff differs from .expected/diff.patch:\n{diff}"
                ));
            }
            if *results != want_results {
                failures.push(format!(
                    "{what}: results differ from .expected/results.yaml:\n{results}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `metadata.yaml` (the catalog's per-function entry) lists exactly the example packages.
fn metadata_lists_every_example_package() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("metadata.yaml")).expect("metadata.yaml");
    let meta: Value = yaml_serde::from_str(&text).expect("metadata.yaml is YAML");
    let listed: Vec<String> = meta["examplePackageURLs"]
        .as_sequence()
        .expect("examplePackageURLs")
        .iter()
        .map(|v| v.as_str().expect("a path").to_string())
        .collect();
    let packages: Vec<String> = cases()
        .iter()
        .map(|c| format!("examples/{}", c.name))
        .collect();
    assert_eq!(listed, packages);
    assert!(
        meta["image"].as_str().is_some_and(|i| i.contains('/')),
        "a registry host kpt keeps"
    );
    assert_eq!(meta["tags"][0].as_str(), Some("mutator"));
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(
            every_example_package_matches_its_expected_files_twice,
            Need::tool("kpt"),
            Need::tool("git")
        ),
        trial!(metadata_lists_every_example_package),
    ])
}
