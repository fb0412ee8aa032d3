//! What a newcomer sees through the built binary: every finding of a run over files
//! names its file and line, exit codes are the documented ones, `-q` is quiet, and
//! misuse gets a hint (a mistyped subcommand, stdin at a terminal, a Kustomization in
//! the input, a ConfigHash config run as a kustomize generator); objects made at install
//! time can be declared; completions and the manual page come from clap's own crates.
//! What each host shows of these messages is in `e2e_kustomize.rs` and `e2e_helm.rs`.

#[macro_use]
mod common;

use std::process::{Command, Output};

use common::harness::Need;
use common::{BINARY, TempDir, config_hash, run_with_stdin};

const DEPLOYMENT: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        envFrom:
        - secretRef: {name: db}
        - configMapRef: {name: settings}
";

const SETTINGS: &str = "\
# settings the web app reads
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
data:
  LEVEL: info
";

fn in_dir(dir: &TempDir, args: &[&str]) -> Output {
    run_with_stdin(Command::new(BINARY).args(args).current_dir(dir.path()), "")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// In a run over a directory, each warning and error names the file and the line where
/// its object starts: a missing reference, and a Secret whose data is not base64.
fn findings_of_a_directory_run_name_their_file_and_line() {
    let dir = TempDir::new("e2e-diagnostics-places");
    std::fs::create_dir_all(dir.path().join("app")).expect("mkdir");
    dir.write("app/deployment.yaml", DEPLOYMENT);
    dir.write(
        "app/config.yaml",
        &format!(
            "{SETTINGS}---\n# the database password\napiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  PASSWORD: \"not base64!\"\n"
        ),
    );
    let out = in_dir(&dir, &["app"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.lines()
            .any(|l| l.starts_with("error: app/config.yaml:10: Secret db:")),
        "the bad Secret starts on line 10 of app/config.yaml:\n{err}"
    );

    dir.write(
        "app/config.yaml",
        &format!("{SETTINGS}---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: other\n"),
    );
    let out = in_dir(&dir, &["app"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.lines().any(
            |l| l.starts_with("warning: app/deployment.yaml:1: Deployment web")
                && l.contains("Secret \"db\", which is not in the input")
        ),
        "{err}"
    );
    // A workload that cannot be stamped, in the second file: its own line and column.
    dir.write(
        "app/deployment.yaml",
        "# the web app\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    metadata:\n      annotations: [a]\n    spec:\n      containers:\n      - envFrom: [{configMapRef: {name: settings}}]\n",
    );
    let out = in_dir(&dir, &["app"]);
    let err = stderr(&out);
    assert!(
        err.lines().any(|l| l
            .starts_with("error: app/deployment.yaml:9: Deployment web: not stamped")
            && l.ends_with("(line 9 column 20)")),
        "{err}"
    );
    dir.write("app/deployment.yaml", DEPLOYMENT);
    // In place, the same.
    let out = in_dir(&dir, &["--in-place", "app"]);
    assert!(
        stderr(&out).contains("warning: app/deployment.yaml:1: Deployment web"),
        "{}",
        stderr(&out)
    );
}

/// The exit-code table: a bad flag value is a usage error (2), like an unknown flag.
fn bad_flag_values_are_usage_errors() {
    for args in [
        &["--env-name", "1BAD"][..],
        &["--annotation-key", "Bad Key!"],
        &["--mode", "sideways"],
        &["--install-time", "Deployment/web"],
    ] {
        let out = config_hash(args, DEPLOYMENT);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

/// `-q` is quiet: no summary, and `--check` says nothing when all is up to date.
fn quiet_means_quiet() {
    let input =
        format!("{SETTINGS}---\n{DEPLOYMENT}").replace("        - secretRef: {name: db}\n", "");
    let stamped = config_hash(&["-q"], &input);
    assert_eq!(stderr(&stamped), "");
    let stamped = stdout(&stamped);
    let check = config_hash(&["--check"], &stamped);
    assert_eq!(stdout(&check), "config-hash: up to date\n");
    let quiet = config_hash(&["--check", "-q"], &stamped);
    assert_eq!(quiet.status.code(), Some(0));
    assert_eq!(stdout(&quiet), "", "-q --check on an up-to-date input");
    assert_eq!(stderr(&quiet), "");
    // What is out of date is still said.
    let stale = config_hash(&["--check", "-q"], &input);
    assert_eq!(stale.status.code(), Some(3));
    assert_eq!(stdout(&stale), "out of date: Deployment web\n");
}

/// `-q` is accepted by every command that reads manifests, and drops its summary line
/// (diff's and audit's tables opened or closed with one; prune's on stderr), keeping
/// the report itself. `diff -q` was a usage error.
fn quiet_is_accepted_by_every_command_that_reads_manifests() {
    let dir = TempDir::new("e2e-diagnostics-quiet");
    let before = dir.write("before.yaml", &format!("{SETTINGS}---\n{DEPLOYMENT}"));
    let after = dir.write(
        "after.yaml",
        &format!("{SETTINGS}---\n{DEPLOYMENT}").replace("LEVEL: info", "LEVEL: debug"),
    );
    for (args, summary) in [
        (vec!["graph", &before], ""),
        (vec!["diff", &before, &after], "config-hash diff:"),
        (vec!["audit", &before], "config-hash audit:"),
    ] {
        let loud = in_dir(&dir, &args);
        let mut quiet_args = args.clone();
        quiet_args.insert(1, "-q");
        let quiet = in_dir(&dir, &quiet_args);
        assert_eq!(
            quiet.status.code(),
            Some(0),
            "{quiet_args:?}: {}",
            stderr(&quiet)
        );
        assert!(stdout(&quiet).contains("Deployment web"), "{quiet_args:?}");
        if !summary.is_empty() {
            assert!(
                stdout(&loud).contains(summary),
                "{args:?}: {}",
                stdout(&loud)
            );
            assert!(
                !stdout(&quiet).contains(summary),
                "{quiet_args:?}: {}",
                stdout(&quiet)
            );
        }
    }
    let render = common::repo_root().join("testdata/prune-old-versions-listed-as-a-table");
    let (live, render) = (render.join("live.yaml"), render.join("render.yaml"));
    let prune = |quiet: &[&str]| {
        run_with_stdin(
            Command::new(BINARY)
                .args(["prune"])
                .args(quiet)
                .arg("--live")
                .arg(&live)
                .arg(&render),
            "",
        )
    };
    let (loud, quiet) = (prune(&[]), prune(&["-q"]));
    assert_eq!(quiet.status.code(), Some(0), "{}", stderr(&quiet));
    assert!(!stderr(&loud).is_empty());
    assert_eq!(stderr(&quiet), "");
    assert_eq!(stdout(&quiet), stdout(&loud));
}

/// `config-hash grpah x.yaml`: a usage error that names the subcommand meant.
fn a_mistyped_subcommand_gets_a_did_you_mean() {
    let dir = TempDir::new("e2e-diagnostics-typo");
    dir.write("x.yaml", DEPLOYMENT);
    let out = in_dir(&dir, &["grpah", "x.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("'graph'"), "{}", stderr(&out));
    // A file of that name is read as a file.
    dir.write("grpah", DEPLOYMENT);
    let out = in_dir(&dir, &["grpah"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

/// Bare `config-hash` at a terminal says what it wants instead of waiting silently.
fn stdin_at_a_terminal_gets_a_hint() {
    for command in [BINARY.to_string(), format!("{BINARY} graph")] {
        let shown = common::in_terminal(&format!("{command}; echo \"exit $?\""), &[]);
        assert!(
            shown.contains("stdin is a terminal") && shown.contains("exit 2"),
            "{command}:\n{shown}"
        );
    }
}

/// A kustomization passed straight to config-hash: a warning that says to build first.
fn a_kustomization_in_the_input_gets_a_hint() {
    let dir = TempDir::new("e2e-diagnostics-kustomization");
    dir.write(
        "kustomization.yaml",
        "configMapGenerator:\n- name: settings\n  literals: [LEVEL=info]\nresources: [deployment.yaml]\n",
    );
    dir.write("deployment.yaml", DEPLOYMENT);
    let out = in_dir(&dir, &["."]);
    let err = stderr(&out);
    assert!(
        err.contains("./kustomization.yaml is a Kustomization")
            && err.contains("kubectl kustomize"),
        "{err}"
    );
    // The same object in a stream.
    let out = config_hash(
        &[],
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n---\n{DEPLOYMENT}"
        ),
    );
    assert!(
        stderr(&out).contains("stdin is a Kustomization"),
        "{}",
        stderr(&out)
    );
    // The summary counts that warning (it said 0 warning(s) after it).
    let out = config_hash(
        &[],
        &format!(
            "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: []\n---\n{SETTINGS}"
        ),
    );
    let summary = stderr(&out)
        .lines()
        .find(|l| l.starts_with("config-hash: "))
        .map(str::to_string)
        .unwrap_or_else(|| panic!("no summary: {}", stderr(&out)));
    assert!(summary.ends_with(", 1 warning(s)"), "{summary}");
    // No hint without one.
    assert!(!stderr(&config_hash(&[], DEPLOYMENT)).contains("Kustomization"));
}

/// A ConfigHash config that kustomize runs as a generator (legacy plugin: the config
/// file and an empty stdin; KRM function: a ResourceList with no items).
fn a_config_run_as_a_generator_gets_a_hint() {
    let dir = TempDir::new("e2e-diagnostics-generator");
    let config = dir.write(
        "config-hash.yaml",
        "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: x}\nspec: {mode: env}\n",
    );
    // kustomize runs its legacy plugins with KUSTOMIZE_PLUGIN_CONFIG_ROOT set.
    let out = run_with_stdin(
        Command::new(BINARY)
            .arg(&config)
            .env("KUSTOMIZE_PLUGIN_CONFIG_ROOT", dir.path()),
        "",
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("under transformers:, not generators:"),
        "{}",
        stderr(&out)
    );
    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\nfunctionConfig:\n  apiVersion: config-hash.dev/v1alpha1\n  kind: ConfigHash\n  metadata: {name: x}\n";
    let out = config_hash(&[], list);
    assert_eq!(out.status.code(), Some(0));
    assert!(
        stderr(&out).contains("listed under generators:"),
        "{}",
        stderr(&out)
    );
}

/// A ConfigHash config given as the only PATH, outside kustomize, with nothing piped in:
/// `-c` was forgotten, and the message says so (it said kustomize had run it as a
/// generator, which it had not).
fn a_config_file_given_as_manifests_says_to_pass_it_with_c() {
    let config = common::repo_root().join("examples/pipes/config-hash.yaml");
    let config = config.to_str().expect("UTF-8");
    let out = run_with_stdin(
        Command::new(BINARY)
            .arg(config)
            .env_remove("KUSTOMIZE_PLUGIN_CONFIG_ROOT")
            .env_remove("KUSTOMIZE_PLUGIN_CONFIG_STRING"),
        "",
    );
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("kustomize"), "{err}");
    assert!(err.contains(&format!("config-hash -c {config} ")), "{err}");
}

/// `--check` and `--in-place` on a kustomize source directory refuse, writing nothing,
/// and name the build to check instead; that command works (with config-hash as the
/// Kustomization's transformer, the build is up to date).
fn a_kustomize_source_is_refused_by_check_and_in_place() {
    let dir = TempDir::copy_of("e2e-diagnostics-kustomize-source", "kustomize");
    let before = dir.snapshot();
    let check = run_with_stdin(Command::new(BINARY).args(["--check", dir.str()]), "");
    let err = stderr(&check);
    assert_eq!(check.status.code(), Some(2), "{err}");
    assert!(check.stdout.is_empty(), "{}", stdout(&check));
    assert!(
        err.contains("kustomization.yaml is a Kustomization"),
        "{err}"
    );
    let in_place = run_with_stdin(Command::new(BINARY).args(["--in-place", dir.str()]), "");
    assert_eq!(in_place.status.code(), Some(2), "{}", stderr(&in_place));
    assert!(stderr(&in_place).contains("install-kustomize-plugin"));
    assert_eq!(dir.snapshot(), before, "--in-place wrote into the sources");

    if !common::harness::Need::tool("kubectl").is_met() {
        return;
    }
    let command = err
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("kubectl kustomize"))
        .unwrap_or_else(|| panic!("no build command:\n{err}"));
    let xdg = TempDir::new("e2e-diagnostics-kustomize-xdg");
    common::run(
        Command::new(BINARY)
            .arg("install-kustomize-plugin")
            .env("XDG_CONFIG_HOME", xdg.path()),
    );
    let built = Command::new("sh")
        .args(["-c", command])
        .env("XDG_CONFIG_HOME", xdg.path())
        .env("PATH", common::path_with_binary())
        .output()
        .expect("run the build command");
    assert!(built.status.success(), "{command}: {}", stderr(&built));
    assert_eq!(stdout(&built), "config-hash: up to date\n");
}

/// A Helm chart given as manifests: refused before its templates fail to parse, with
/// the command that renders it first, for a run as for graph.
fn a_helm_chart_is_refused_with_the_render_command() {
    let chart = common::repo_root().join("examples/helm/chart");
    let chart = chart.to_str().expect("UTF-8");
    for (args, then) in [
        (vec![chart], "| config-hash"),
        (vec!["graph", chart], "| config-hash graph"),
        (vec!["--check", chart], "| config-hash --check"),
    ] {
        let out = run_with_stdin(Command::new(BINARY).args(&args), "");
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("helm template my-release {chart} {then}")),
            "{args:?}: {err}"
        );
    }
    let template = format!("{chart}/templates/deployment.yaml");
    let out = run_with_stdin(Command::new(BINARY).args(["--in-place", &template]), "");
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--post-renderer"), "{}", stderr(&out));
}

/// Objects made at install time (a Helm hook's Secret) can be declared, by flag or in
/// the functionConfig, and are then not reported missing; others still are.
fn objects_made_at_install_time_can_be_declared() {
    let input = format!("{SETTINGS}---\n{DEPLOYMENT}");
    let out = config_hash(&[], &input);
    assert!(stderr(&out).contains("Secret \"db\", which is not in the input"));
    for args in [
        &["--install-time", "Secret/db"][..],
        &["--install-time", "ConfigMap/x,Secret/db"],
    ] {
        let out = config_hash(args, &input);
        assert_eq!(out.status.code(), Some(0));
        assert!(
            stderr(&out).contains(" 0 missing reference(s), 0 warning(s)"),
            "{args:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            stdout(&out),
            stdout(&config_hash(&["--on-missing", "ignore"], &input))
        );
    }
    // Another namespace's object of that name is not this one.
    let out = config_hash(&["--install-time", "Secret/other/db"], &input);
    assert!(
        stderr(&out).contains("1 missing reference(s)"),
        "{}",
        stderr(&out)
    );
    // The functionConfig field, as kpt sends it.
    let list = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n{}functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: f}}\n  data: {{installTime: Secret/db, onMissing: error}}\n",
        input
            .split("---\n")
            .map(|d| format!("- {}", d.trim_end().replace('\n', "\n  ")) + "\n")
            .collect::<String>()
    );
    let out = config_hash(&[], &list);
    assert_eq!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        !stdout(&out).contains("severity: error"),
        "{}",
        stdout(&out)
    );
    // Still strict about what is not declared.
    let out = config_hash(&["--install-time", "Secret/nope"], &list);
    assert_eq!(out.status.code(), Some(1));
}

/// `CONFIG_HASH_ON_MISSING=error` is `--on-missing error` for hosts that pass their
/// environment on; the flag wins.
fn the_environment_sets_on_missing() {
    let input = format!("{SETTINGS}---\n{DEPLOYMENT}");
    let with_env = |value: &str, args: &[&str]| {
        run_with_stdin(
            Command::new(BINARY)
                .args(args)
                .env("CONFIG_HASH_ON_MISSING", value),
            input.as_str(),
        )
    };
    let strict = with_env("error", &[]);
    assert_eq!(strict.status.code(), Some(1));
    assert!(
        stderr(&strict).starts_with("error: Deployment web"),
        "{}",
        stderr(&strict)
    );
    assert_eq!(
        with_env("error", &["--on-missing", "warn"]).status.code(),
        Some(0)
    );
    assert_eq!(with_env("", &[]).status.code(), Some(0));
}

/// `--help` shows every default.
fn help_shows_every_default() {
    let help = stdout(&config_hash(&["--help"], ""));
    for default in [
        "[default: annotation]",
        "[default: config-hash.dev/hash]",
        "[default: CONFIG_HASH]",
        "[default: key]",
        "[default: warn",
        "[default: none]",
    ] {
        assert!(help.contains(default), "--help lacks {default}:\n{help}");
    }
}

/// Completions (bash, zsh, fish) and the manual page, from clap's own crates; the bash
/// script is valid bash.
fn completions_and_man_page() {
    for shell in ["bash", "zsh", "fish"] {
        let out = config_hash(&["completions", shell], "");
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = stdout(&out);
        for word in ["graph", "install-helm-plugin", "on-missing"] {
            assert!(script.contains(word), "{shell} completions lack {word}");
        }
    }
    let bash = stdout(&config_hash(&["completions", "bash"], ""));
    let syntax = run_with_stdin(Command::new("bash").arg("-n"), bash);
    assert!(syntax.status.success(), "{}", stderr(&syntax));

    let man = stdout(&config_hash(&["man"], ""));
    assert!(
        man.starts_with(".ie \\n(.g .ds Aq") || man.contains(".TH config-hash"),
        "{man}"
    );
    assert!(man.contains(".TH config-hash 1"), "{man}");
    assert!(man.contains("on\\-missing"), "the options are in the page");
}

/// `--help` lists each command on one short line (at most 80 columns, clap's own `help`
/// aside), and every command's help ends with examples to copy.
fn help_lists_commands_on_short_lines_and_gives_examples() {
    let help = stdout(&config_hash(&["--help"], ""));
    let commands: Vec<&str> = help
        .lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert!(commands.len() >= 8, "{help}");
    let mut names = Vec::new();
    for line in &commands {
        let name = line.split_whitespace().next().expect("a command name");
        if name != "help" {
            assert!(line.len() <= 80, "a long command entry:\n{line}");
            names.push(name);
        }
    }
    assert!(help.contains("\nExamples:\n  config-hash"), "{help}");
    for name in names {
        for flag in ["-h", "--help"] {
            let out = config_hash(&[name, flag], "");
            assert_eq!(out.status.code(), Some(0), "{name} {flag}");
            let text = stdout(&out);
            let examples = text
                .split_once("\nExamples:\n")
                .unwrap_or_else(|| panic!("{name} {flag}: no Examples section:\n{text}"))
                .1;
            assert!(
                examples.lines().any(|l| l.contains("config-hash")),
                "{name} {flag}: {examples}"
            );
        }
    }
}

/// Every page the manual pages refer to (`config-hash-diff(1)`, ...) is one that
/// `config-hash man --dir` writes, and `config-hash man diff` prints the same page.
fn every_manual_page_the_pages_name_exists() {
    let dir = TempDir::new("e2e-diagnostics-man");
    let out = config_hash(&["man", "--dir", dir.str()], "");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let written: Vec<String> = stdout(&out).lines().map(str::to_string).collect();
    assert!(written.len() >= 9, "{written:?}");
    let mut named = 0;
    for file in &written {
        let page = std::fs::read_to_string(file).expect("a written page");
        for (i, _) in page.match_indices("(1)") {
            let start = page[..i]
                .rfind(|c: char| c.is_whitespace() || c == ',')
                .map_or(0, |s| s + 1);
            let name = page[start..i].replace("\\-", "-");
            if name.starts_with("config-hash") {
                named += 1;
                assert!(
                    dir.path().join(format!("{name}.1")).is_file(),
                    "{file} refers to {name}(1), which `man --dir` did not write"
                );
            }
        }
    }
    assert!(named >= 8, "only {named} pages named");
    let diff = stdout(&config_hash(&["man", "diff"], ""));
    let file = std::fs::read_to_string(dir.path().join("config-hash-diff.1")).expect("page");
    assert_eq!(diff, file);
    assert!(diff.contains(".TH config-hash-diff 1"), "{diff}");
}

/// The installed plugins link to the binary that installed them, so an upgrade of the
/// binary (a new file at the same path) is what kustomize and Helm run next.
fn installed_plugins_follow_the_binary() {
    let dir = TempDir::new("e2e-diagnostics-link");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("mkdir");
    let exe = bin.join("config-hash");
    std::fs::copy(BINARY, &exe).expect("copy the binary");
    let kustomize = common::output_of_fresh_executable(
        Command::new(&exe)
            .args(["install-kustomize-plugin", "--plugin-home"])
            .arg(dir.path().join("kustomize")),
    );
    let helm = common::output_of_fresh_executable(
        Command::new(&exe)
            .args(["install-helm-plugin", "--plugins-dir"])
            .arg(dir.path().join("helm"))
            .env("PATH", "/nonexistent"),
    );
    let installed = [
        stdout(&kustomize).trim().to_string(),
        format!("{}/config-hash", stdout(&helm).trim()),
    ];
    // The upgrade: a new file renamed over the old one, as package managers do.
    let new = bin.join("config-hash.new");
    std::fs::write(&new, b"#!/bin/sh\necho upgraded\n").expect("write");
    std::fs::rename(&new, &exe).expect("rename");
    for plugin in installed {
        let bytes = std::fs::read(&plugin).unwrap_or_else(|e| panic!("{plugin}: {e}"));
        assert!(
            bytes == b"#!/bin/sh\necho upgraded\n",
            "{plugin} is not the upgraded binary (a copy of the old one?)"
        );
    }
}

/// kustomize ignores a KRM function's `results` (measured; see docs/diagnostics.md):
/// for a ResourceList from kustomize (its items carry kustomize's ids), warnings go to
/// stderr too, which kustomize shows. kpt shows results, so a list from kpt gets none.
fn a_resource_list_from_kustomize_gets_its_warnings_on_stderr() {
    let list = |annotation: &str| {
        format!(
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    name: web\n    annotations: {{{annotation}: x}}\n  spec:\n    template:\n      spec:\n        containers:\n        - name: app\n          envFrom: [{{secretRef: {{name: db}}}}]\n"
        )
    };
    let from_kustomize = config_hash(&[], &list("kustomize.config.k8s.io/id"));
    assert_eq!(from_kustomize.status.code(), Some(0));
    assert!(
        stderr(&from_kustomize).starts_with("warning: Deployment web"),
        "{}",
        stderr(&from_kustomize)
    );
    let from_kpt = config_hash(&[], &list("internal.config.kubernetes.io/path"));
    assert_eq!(stderr(&from_kpt), "");
    assert!(stdout(&from_kpt).contains("severity: warning"));
}

/// A test that cannot run here shows as ignored, with what it needs, in cargo test's own
/// summary, and fails when CI is set: this file's own terminal test, run without
/// `script` on PATH.
fn a_test_that_cannot_run_is_ignored_with_its_reason_and_fails_in_ci() {
    let me = std::env::current_exe().expect("this test binary");
    let run_without_script = |ci: Option<&str>| {
        let mut c = Command::new(&me);
        c.args(["stdin_at_a_terminal_gets_a_hint", "--exact"])
            .env("PATH", "/nonexistent")
            .env_remove("CI");
        if let Some(v) = ci {
            c.env("CI", v);
        }
        c.output().expect("run this test binary")
    };
    let out = run_without_script(None);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("stdin_at_a_terminal_gets_a_hint ... ignored (needs script on PATH)"),
        "{text}"
    );
    assert!(text.contains("0 passed; 0 failed; 1 ignored"), "{text}");
    let ci = run_without_script(Some("true"));
    assert!(!ci.status.success(), "{}", stdout(&ci));
    assert!(stdout(&ci).contains("CI is set"), "{}", stdout(&ci));
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(findings_of_a_directory_run_name_their_file_and_line),
        trial!(bad_flag_values_are_usage_errors),
        trial!(quiet_means_quiet),
        trial!(quiet_is_accepted_by_every_command_that_reads_manifests),
        trial!(a_mistyped_subcommand_gets_a_did_you_mean),
        trial!(stdin_at_a_terminal_gets_a_hint, Need::tool("script")),
        trial!(a_kustomization_in_the_input_gets_a_hint),
        trial!(a_config_run_as_a_generator_gets_a_hint),
        trial!(a_config_file_given_as_manifests_says_to_pass_it_with_c),
        trial!(a_kustomize_source_is_refused_by_check_and_in_place),
        trial!(a_helm_chart_is_refused_with_the_render_command),
        trial!(objects_made_at_install_time_can_be_declared),
        trial!(the_environment_sets_on_missing),
        trial!(help_shows_every_default),
        trial!(help_lists_commands_on_short_lines_and_gives_examples),
        trial!(completions_and_man_page, Need::tool("bash")),
        trial!(every_manual_page_the_pages_name_exists),
        trial!(installed_plugins_follow_the_binary),
        trial!(a_resource_list_from_kustomize_gets_its_warnings_on_stderr),
        trial!(a_test_that_cannot_run_is_ignored_with_its_reason_and_fails_in_ci),
    ])
}
