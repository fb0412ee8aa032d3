//! What the repository promises about itself: the README a newcomer reads first is short
//! and keeps its two set-up commands; every page of the book is in its table of contents;
//! user documentation speaks to users (no issue numbers); the container build's context
//! holds the workspace; and no test is written where it would never run.

mod common;

use std::fs;

use common::{repo_root, user_docs};

/// The two commands a newcomer needs on a fresh machine (`.ci/run` runs the second).
const SETUP_COMMANDS: [&str; 2] = [
    "cargo run --release -- < examples/resource-list.yaml",
    "cargo test --locked",
];

#[test]
fn the_readme_is_short_and_keeps_its_two_set_up_commands() {
    let readme = fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines; at most 300 (the rest goes in docs/)"
    );
    let block = readme
        .split("```")
        .find(|b| b.contains(SETUP_COMMANDS[0]))
        .expect("a code block with the build-and-run command");
    for command in SETUP_COMMANDS {
        assert!(
            block.lines().any(|l| l.trim_start().starts_with(command)),
            "the quick start's code block lacks {command:?}:\n{block}"
        );
    }
}

/// The README says what the tests need, how long they take and how to run the slow
/// tier, where a newcomer reads the test command.
#[test]
fn the_readme_says_what_the_tests_need_and_how_to_run_the_slow_tier() {
    let readme = fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let quick_start = readme
        .split("\n## ")
        .find(|s| s.starts_with("Quick start"))
        .expect("a Quick start section")
        .replace('\n', " ");
    for needed in [
        "cargo test --locked -- --ignored",
        "minutes",
        "kpt",
        "kubectl",
        "Helm 3",
        "Helm 4",
        ".ci/setup-helm.sh",
        "container/setup-podman.sh",
        ".ci/setup-pre-commit.sh",
        "../shared/corpus",
        "CONFIG_HASH_RANDOM_SEEDS",
        ".ci/test",
    ] {
        assert!(
            quick_start.contains(needed),
            "the README's Quick start does not say {needed:?}"
        );
    }
}

#[test]
fn every_page_of_the_book_is_in_its_summary() {
    let summary = fs::read_to_string(repo_root().join("docs/SUMMARY.md")).expect("SUMMARY.md");
    let mut pages = 0;
    for (page, _) in user_docs() {
        let Some(name) = page.strip_prefix("docs").ok().and_then(|p| p.to_str()) else {
            continue;
        };
        if name == "SUMMARY.md" {
            continue;
        }
        pages += 1;
        assert!(
            summary.contains(&format!("]({name})")),
            "docs/{name} is not linked from docs/SUMMARY.md"
        );
    }
    assert!(pages >= 20, "only {pages} pages in docs/");
}

/// "issue 10", "issues 3 and 4", "(#12)": numbers a user cannot look up.
fn issue_references(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut found = Vec::new();
    for pair in words.windows(2) {
        let word = pair[0].trim_start_matches(['(', '[']).to_ascii_lowercase();
        let number = pair[1].trim_start_matches('#');
        if (word == "issue" || word == "issues")
            && number.chars().next().is_some_and(|c| c.is_ascii_digit())
        {
            found.push(pair.join(" "));
        }
    }
    for (i, _) in text.match_indices("(#") {
        if text[i + 2..]
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_digit())
        {
            found.push(text[i..(i + 8).min(text.len())].to_string());
        }
    }
    found
}

#[test]
fn user_docs_cite_no_issue_numbers() {
    assert_eq!(
        issue_references("see issue 10 (#12) and issue #3"),
        ["issue 10", "issue #3", "(#12) an"]
    );
    for (page, text) in user_docs() {
        let found = issue_references(&text);
        assert!(found.is_empty(), "{}: {found:?}", page.display());
    }
}

/// A `#[test]` in a file that runs under the harness of `tests/common/harness.rs`
/// (`harness = false` in Cargo.toml) would never run: register it with `trial!`.
#[test]
fn no_test_hides_in_a_file_without_libtest() {
    let manifest = fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let mut own_harness = Vec::new();
    for block in manifest.split("[[test]]").skip(1) {
        let field = |key: &str| {
            block.lines().find_map(|l| l.strip_prefix(key)).map(|v| {
                v.trim()
                    .trim_start_matches('=')
                    .trim()
                    .trim_matches('"')
                    .to_string()
            })
        };
        if field("harness").as_deref() == Some("false") {
            own_harness.push(field("name").expect("a [[test]] has a name"));
        }
    }
    assert!(own_harness.len() >= 10, "{own_harness:?}");
    for name in own_harness {
        let path = repo_root().join("tests").join(format!("{name}.rs"));
        let text = fs::read_to_string(&path).expect("the test file");
        assert!(
            !text.contains("#[test]"),
            "tests/{name}.rs runs under tests/common/harness.rs: a #[test] there never runs; list it in main() with trial!"
        );
        assert!(
            text.contains("common::harness::run("),
            "tests/{name}.rs has harness = false but does not run common::harness::run"
        );
    }
}

/// What makes a test slow enough for the slow tier (`cargo test -- --ignored`): a
/// release build (the container image's static binary) or pre-commit building the hook
/// with `cargo install`. Each took minutes of the README's `cargo test` (627 s and 818 s
/// on a busy two-core machine).
const SLOW_MARKERS: &[&str] = &["\"--release\"", "\"try-repo\""];

/// A test file that builds a release binary puts those tests in the slow tier
/// (`.slow()`, tests/common/harness.rs), so that the README's `cargo test` stays fast.
#[test]
fn tests_that_build_release_binaries_are_in_the_slow_tier() {
    let mut checked = 0;
    for entry in fs::read_dir(repo_root().join("tests")).expect("list tests/") {
        let path = entry.expect("entry").path();
        let Ok(text) = fs::read_to_string(&path) else {
            continue;
        };
        let Some(marker) = SLOW_MARKERS.iter().find(|m| text.contains(*m)) else {
            continue;
        };
        checked += 1;
        assert!(
            text.contains("common::harness::run(") && text.contains(".slow()"),
            "{}: runs {marker} but puts no test in the slow tier (trial!(...).slow())",
            path.display()
        );
    }
    assert!(
        checked >= 2,
        "only {checked} test files build release binaries"
    );
}

/// CI runs the slow tier and the randomised tests with random seeds, each as a step of
/// its own after the README's test command, and every test file that draws random cases
/// (common::seeds, proptest) is in the random-seed step.
#[test]
fn ci_runs_the_slow_tier_and_the_random_seeds() {
    let ci = fs::read_to_string(repo_root().join(".ci/run")).expect(".ci/run");
    let step = |is: &dyn Fn(&str) -> bool, what: &str| {
        ci.lines()
            .position(|l| is(l.trim()))
            .unwrap_or_else(|| panic!(".ci/run has no step running {what}"))
    };
    let (fast, slow, random) = (
        step(&|l| l == "bash .ci/test", "the README's tests"),
        step(&|l| l.ends_with(".ci/test -- --ignored"), "the slow tier"),
        step(
            &|l| l.contains("CONFIG_HASH_RANDOM_SEEDS=\"$RANDOM_SEEDS\" bash .ci/test"),
            "random seeds",
        ),
    );
    assert!(fast < slow && slow < random, "steps out of order");
    let random_step: String = ci.lines().skip(random).take(3).collect();
    let mut randomised = 0;
    for entry in fs::read_dir(repo_root().join("tests")).expect("list tests/") {
        let path = entry.expect("entry").path();
        let text = fs::read_to_string(&path).unwrap_or_default();
        let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if name != "repository" && (text.contains("seeds(\"") || text.contains("proptest! {")) {
            randomised += 1;
            assert!(
                random_step.contains(&format!("--test {name}")),
                "tests/{name}.rs draws random cases; add --test {name} to the random-seed step of .ci/run"
            );
        }
    }
    assert!(randomised >= 3, "only {randomised} randomised test files");
}

/// The README's mdBook commands work together: it installs mdBook as CI does (the
/// version and features of `.ci/run`), and the command it gives to read the book is one
/// that install has (without the default features there is no `serve` or `watch`).
#[test]
fn the_readmes_book_commands_work_with_the_install_it_gives() {
    let readme = fs::read_to_string(repo_root().join("README.md")).expect("README.md");
    let ci = fs::read_to_string(repo_root().join(".ci/run")).expect(".ci/run");
    // Inline code spans, which may wrap over lines in the Markdown source.
    let text = readme.replace('\n', " ");
    let spans: Vec<&str> = text.split('`').skip(1).step_by(2).collect();
    let install = spans
        .iter()
        .find(|s| s.starts_with("cargo install mdbook"))
        .expect("the README says how to install mdBook");
    let ci_install = ci
        .lines()
        .find_map(|l| l.trim().strip_prefix("install_tool mdbook "))
        .expect(".ci/run installs mdbook");
    let mut ci_words = ci_install.split_whitespace();
    let version = ci_words.next().expect("a version");
    let flags: Vec<&str> = ci_words.collect();
    assert!(
        install.contains(&format!("--version {version}")),
        "README: {install}; .ci/run: {version}"
    );
    for flag in &flags {
        assert!(install.contains(flag), "README: {install} lacks {flag}");
    }
    let uses: Vec<&&str> = spans.iter().filter(|s| s.starts_with("mdbook ")).collect();
    assert!(!uses.is_empty(), "no mdbook command in the README");
    let without_defaults = install.contains("--no-default-features");
    for command in uses {
        let sub = command.split_whitespace().nth(1).unwrap_or("");
        assert!(
            !(without_defaults && matches!(sub, "serve" | "watch")),
            "README: `{command}`, but the install it gives has no {sub}"
        );
    }
}

/// The anchor mdBook (and GitHub) gives a heading: lower case, spaces to `-`, and only
/// letters, digits, `-` and `_` kept.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// Every Markdown link target in `text` outside code: `[text](target)`.
fn link_targets(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fence = !fence;
            continue;
        }
        if fence {
            continue;
        }
        // Inline code is not a link: drop `...` spans first.
        let prose: String = line.split('`').step_by(2).collect::<Vec<_>>().join(" ");
        for (i, _) in prose.match_indices("](") {
            if let Some(end) = prose[i + 2..].find(')') {
                out.push(prose[i + 2..i + 2 + end].to_string());
            }
        }
    }
    out
}

/// Links between the README and the book's pages, and to the repository's files, resolve,
/// anchors included. Web links are not followed: CI reaches package registries only.
#[test]
fn links_in_user_docs_resolve() {
    let root = repo_root();
    let mut checked = 0;
    for (page, text) in user_docs() {
        let dir = root
            .join(&page)
            .parent()
            .expect("a directory")
            .to_path_buf();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let (file, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let path = if file.is_empty() {
                root.join(&page)
            } else {
                dir.join(file)
            };
            assert!(
                path.exists(),
                "{}: link to {target}: {} does not exist",
                page.display(),
                path.display()
            );
            if !anchor.is_empty() {
                let target_text = fs::read_to_string(&path).expect("a linked page");
                let anchors: Vec<String> = target_text
                    .lines()
                    .filter(|l| l.starts_with('#'))
                    .map(|l| slug(l.trim_start_matches('#')))
                    .collect();
                assert!(
                    anchors.iter().any(|a| a == anchor),
                    "{}: link to {target}: no heading with that anchor (has {anchors:?})",
                    page.display()
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 30, "only {checked} links checked");
}

/// Every code fence in the user docs opens and closes on a line of its own (a fence
/// glued to text swallows the rest of the page on a forge).
#[test]
fn code_fences_stand_on_lines_of_their_own() {
    for (page, text) in user_docs() {
        let mut open = false;
        for (n, line) in text.lines().enumerate() {
            let fences = line.matches("```").count();
            if fences == 0 {
                continue;
            }
            let trimmed = line.trim_start();
            assert!(
                fences == 1 && trimmed.starts_with("```") && (open || !trimmed[3..].contains(' ')),
                "{}:{}: a code fence must stand alone on its line: {line}",
                page.display(),
                n + 1
            );
            if open {
                assert_eq!(trimmed, "```", "{}:{}: {line}", page.display(), n + 1);
            }
            open = !open;
        }
        assert!(!open, "{}: a code block is never closed", page.display());
    }
}

/// The container build's context (`.dockerignore`: everything out, then `!path` lines
/// let paths back in) holds every file cargo needs to load the workspace, so the
/// Dockerfile's `cargo build --release --locked` can start: the reader crate under
/// `crates/` was once left out, and `docker build .` failed at the manifest.
///
/// `cargo metadata --no-deps` loads every member's manifest and resolves nothing, so
/// the answer does not depend on what the machine's cargo cache holds: it runs with an
/// empty CARGO_HOME. (Resolving needed every package of the lock file for every
/// platform, and failed on a fresh machine on a Windows-only one never downloaded.)
#[test]
fn the_container_build_context_holds_the_whole_workspace() {
    let root = repo_root();
    let ignore = fs::read_to_string(root.join(".dockerignore")).expect(".dockerignore");
    let mut lines = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'));
    assert_eq!(
        lines.next(),
        Some("*"),
        ".dockerignore starts by leaving everything out"
    );
    let context = common::TempDir::new("container-context");
    for line in lines {
        let path = line
            .strip_prefix('!')
            .unwrap_or_else(|| panic!(".dockerignore: only `!path` lines after `*`: {line}"))
            .trim_end_matches('/');
        let from = root.join(path);
        if from.is_dir() {
            common::copy_dir(&from, &context.path().join(path));
        } else {
            fs::copy(&from, context.path().join(path)).expect("copy a file of the context");
        }
    }
    assert!(
        context.path().join("Cargo.lock").is_file(),
        ".dockerignore leaves out Cargo.lock, which `cargo build --locked` needs"
    );
    let cargo_home = common::TempDir::new("container-context-cargo-home");
    let metadata = std::process::Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
            "--locked",
        ])
        .current_dir(context.path())
        .env("CARGO_HOME", cargo_home.path())
        .output()
        .expect("run cargo metadata");
    common::assert_success(&metadata, "cargo metadata in the container build's context");
    let members = String::from_utf8_lossy(&metadata.stdout);
    for member in [
        "\"name\":\"config-hash\"",
        "\"name\":\"goyaml-splice\"",
        "\"name\":\"config-hash-kpt-wasm\"",
    ] {
        assert!(members.contains(member), "{member} not loaded: {members}");
    }
}
