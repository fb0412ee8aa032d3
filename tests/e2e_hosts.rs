//! Where reviewers are, end to end with the real tools: the pre-commit hook
//! (`.pre-commit-hooks.yaml`, run by the real pre-commit from PyPI on a temporary git
//! repository), the GitHub Action's script (`action/diff.sh`, run against two local
//! revisions as the Action runs it on a pull request), and the Argo CD config
//! management plugin (`examples/argocd-cmp/plugin.yaml`, whose init and generate
//! commands run on the example application as the plugin's sidecar runs them).

#[macro_use]
mod common;

use common::harness::Need;
use common::{BINARY, TempDir, path_with_binary, repo_root};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use yaml_serde::Value;

/// A ConfigMap two Deployments read, each through one key. The values are spelled so
/// that a test can see whether any of them leaks into an output.
const MANIFESTS: &str = "\
apiVersion: v1
kind: ConfigMap
metadata:
  name: app-config
data:
  LOG_LEVEL: value-of-log-level-1
  GREETING: value-of-greeting-1
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx
        env:
        - name: LOG_LEVEL
          valueFrom:
            configMapKeyRef: {name: app-config, key: LOG_LEVEL}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: greeter
spec:
  selector:
    matchLabels: {app: greeter}
  template:
    metadata:
      labels: {app: greeter}
    spec:
      containers:
      - name: greeter
        image: nginx
        env:
        - name: GREETING
          valueFrom:
            configMapKeyRef: {name: app-config, key: GREETING}
";

fn git(dir: &Path, args: &[&str]) -> Output {
    common::run(Command::new("git").args(args).current_dir(dir))
}

/// A fresh git repository with a committer, so commits work on any machine.
fn git_repo(label: &str) -> TempDir {
    let dir = TempDir::new(label);
    git(dir.path(), &["init", "--quiet"]);
    git(dir.path(), &["config", "user.email", "test@example.com"]);
    git(dir.path(), &["config", "user.name", "test"]);
    git(dir.path(), &["config", "commit.gpgsign", "false"]);
    dir
}

fn commit_all(dir: &Path, message: &str) {
    git(dir, &["add", "--all"]);
    git(dir, &["commit", "--quiet", "-m", message]);
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn pre_commit() -> PathBuf {
    repo_root().join("target/tools/pre-commit/bin/pre-commit")
}

/// `pre-commit try-repo <this repository> HOOK --files FILE` in `dir`:
/// the hook as a user's `.pre-commit-config.yaml` runs it, built by pre-commit with
/// cargo (`language: rust`). pre-commit's cache and cargo's build directory are kept
/// under target/, so only the first run on a machine builds from scratch.
fn run_hook(dir: &Path, hook: &str, file: &str) -> Output {
    Command::new(pre_commit())
        .args(["try-repo", repo_root().to_str().unwrap(), hook])
        .args(["--files", file])
        .current_dir(dir)
        .env(
            "PRE_COMMIT_HOME",
            repo_root().join("target/tools/pre-commit-home"),
        )
        .env(
            "CARGO_TARGET_DIR",
            repo_root().join("target/pre-commit-build"),
        )
        .env_remove("CONFIG_HASH_KEY")
        .env_remove("CONFIG_HASH_KEY_FILE")
        .output()
        .expect("run pre-commit")
}

fn pre_commit_hook_fails_on_a_stale_manifest_and_passes_once_stamped() {
    let repo = git_repo("pre-commit");
    repo.write("app.yaml", MANIFESTS);
    git(repo.path(), &["add", "app.yaml"]);

    let stale = run_hook(repo.path(), "config-hash-check-files", "app.yaml");
    assert_eq!(stale.status.code(), Some(1), "{}", text(&stale));
    assert!(
        text(&stale).contains("out of date: Deployment web"),
        "{}",
        text(&stale)
    );

    common::run(
        Command::new(BINARY)
            .args(["--in-place", "app.yaml"])
            .current_dir(repo.path()),
    );
    let stamped = run_hook(repo.path(), "config-hash-check-files", "app.yaml");
    assert!(stamped.status.success(), "{}", text(&stamped));
    assert!(text(&stamped).contains("Passed"), "{}", text(&stamped));

    // A value a pod reads changes: the manifest is stale again.
    repo.edit("app.yaml", "value-of-log-level-1", "value-of-log-level-2");
    let edited = run_hook(repo.path(), "config-hash-check-files", "app.yaml");
    assert_eq!(edited.status.code(), Some(1), "{}", text(&edited));
    assert!(
        text(&edited).contains("out of date: Deployment web"),
        "{}",
        text(&edited)
    );
}

/// The manifests of [`MANIFESTS`] in two files: the ConfigMap alone in one, as many
/// repositories keep them, stamped and committed.
fn split_package(label: &str) -> TempDir {
    let repo = git_repo(label);
    let (config, workloads) = MANIFESTS.split_once("---\n").expect("two parts");
    fs::create_dir(repo.path().join("deploy")).expect("create deploy/");
    repo.write("deploy/configmap.yaml", config);
    repo.write("deploy/workloads.yaml", workloads);
    common::run(
        Command::new(BINARY)
            .args(["--in-place", "deploy"])
            .current_dir(repo.path()),
    );
    commit_all(repo.path(), "stamped");
    repo
}

/// The hooks of `.pre-commit-hooks.yaml` run as pre-commit runs them, without
/// pre-commit: `entry`, then `args`, then the changed files unless `pass_filenames` is
/// false. A commit that changes only the ConfigMap leaves the Deployment in the other
/// file stale: the default hook fails on it, the per-file hook cannot see it.
fn pre_commit_default_hook_checks_the_package_not_only_the_changed_files() {
    let hooks: Value = yaml_serde::from_str(
        &fs::read_to_string(repo_root().join(".pre-commit-hooks.yaml")).expect("read hooks"),
    )
    .expect("the hooks are YAML");
    let repo = split_package("hooks-package");
    repo.edit(
        "deploy/configmap.yaml",
        "value-of-log-level-1",
        "value-of-log-level-2",
    );
    let changed = "deploy/configmap.yaml";
    let run_as_pre_commit = |id: &str| {
        let hook = hooks
            .as_sequence()
            .expect("a list of hooks")
            .iter()
            .find(|h| h["id"] == id)
            .unwrap_or_else(|| panic!("hook {id}"));
        let entry: Vec<&str> = hook["entry"].as_str().expect("entry").split(' ').collect();
        assert_eq!(entry[0], "config-hash", "{id}");
        let mut command = Command::new(BINARY);
        command.args(&entry[1..]).current_dir(repo.path());
        if let Some(args) = hook["args"].as_sequence() {
            command.args(args.iter().map(|a| a.as_str().expect("an arg")));
        }
        if hook["pass_filenames"].as_bool() != Some(false) {
            command.arg(changed);
        }
        command.output().expect("run the hook's command")
    };
    let out = run_as_pre_commit("config-hash-check");
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    assert!(
        text(&out).contains("out of date: Deployment web"),
        "{}",
        text(&out)
    );
    let out = run_as_pre_commit("config-hash-check-files");
    assert!(
        out.status.success(),
        "the per-file hook sees no workload: {}",
        text(&out)
    );
}

/// The same with the real pre-commit, which builds the hook with cargo.
fn pre_commit_hook_fails_when_only_the_config_map_changes() {
    let repo = split_package("pre-commit-package");
    repo.edit(
        "deploy/configmap.yaml",
        "value-of-log-level-1",
        "value-of-log-level-2",
    );
    git(repo.path(), &["add", "--all"]);
    let stale = run_hook(repo.path(), "config-hash-check", "deploy/configmap.yaml");
    assert_eq!(stale.status.code(), Some(1), "{}", text(&stale));
    assert!(
        text(&stale).contains("out of date: Deployment web"),
        "{}",
        text(&stale)
    );
}

/// `action/diff.sh` in `repo` against `base`, as action.yml runs it.
fn run_action(repo: &TempDir, env: &[(&str, &str)]) -> (Output, String, Option<serde_json::Value>) {
    let runner = TempDir::new("action-runner");
    let summary = runner.path().join("summary.md");
    let outputs = runner.path().join("outputs");
    let output = Command::new("bash")
        .arg(repo_root().join("action/diff.sh"))
        .current_dir(repo.path())
        .env("PATH", path_with_binary())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs)
        .env("RUNNER_TEMP", runner.path())
        .env_remove("CONFIG_HASH_KEY")
        .env_remove("CONFIG_HASH_KEY_FILE")
        .envs(env.iter().copied())
        .output()
        .expect("run action/diff.sh");
    let summary = fs::read_to_string(&summary).unwrap_or_default();
    let json = fs::read_to_string(&outputs).ok().and_then(|o| {
        let path = o.lines().find_map(|l| l.strip_prefix("json="))?.to_string();
        Some(
            serde_json::from_str(&fs::read_to_string(path).ok()?).expect("the JSON output is JSON"),
        )
    });
    (output, summary, json)
}

fn action_script_shows_what_rolls_between_two_revisions_and_gates() {
    let repo = git_repo("action");
    fs::create_dir(repo.path().join("deploy")).expect("create deploy/");
    repo.write("deploy/app.yaml", MANIFESTS);
    commit_all(repo.path(), "base");
    repo.edit(
        "deploy/app.yaml",
        "value-of-log-level-1",
        "value-of-log-level-2",
    );
    commit_all(repo.path(), "head: one key of the ConfigMap changes");

    // Read as files, and rendered by a command: the same answer.
    for env in [
        vec![("INPUT_BASE", "HEAD~1"), ("INPUT_PATH", "deploy")],
        vec![
            ("INPUT_BASE", "HEAD~1"),
            ("INPUT_RENDER", "cat deploy/app.yaml"),
        ],
    ] {
        let (output, summary, json) = run_action(&repo, &env);
        assert!(output.status.success(), "{env:?}: {}", text(&output));
        assert!(summary.contains("web"), "{env:?}: {summary}");
        assert!(summary.contains("LOG_LEVEL"), "{env:?}: {summary}");
        assert!(summary.contains("app-config"), "{env:?}: {summary}");
        // Only the workload that sees the changed key rolls.
        assert!(!summary.contains("greeter"), "{env:?}: {summary}");
        let json = json
            .expect("the JSON's path is in GITHUB_OUTPUT")
            .to_string();
        assert!(json.contains("LOG_LEVEL"), "{json}");
        for leaked in ["value-of-log-level", "value-of-greeting"] {
            for (what, out) in [
                ("summary", &summary),
                ("json", &json),
                ("log", &text(&output)),
            ] {
                assert!(
                    !out.contains(leaked),
                    "{env:?}: a value is in the {what}: {out}"
                );
            }
        }
    }

    // The gate fails the step, and the summary still says why.
    let (output, summary, _) = run_action(
        &repo,
        &[
            ("INPUT_BASE", "HEAD~1"),
            ("INPUT_PATH", "deploy"),
            ("INPUT_ARGS", "--max-rolls 0"),
        ],
    );
    assert_eq!(output.status.code(), Some(3), "{}", text(&output));
    assert!(summary.contains("web"), "{summary}");

    // The working tree is left as it was: no worktree stays behind.
    let worktrees =
        String::from_utf8_lossy(&git(repo.path(), &["worktree", "list"]).stdout).into_owned();
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
}

/// The action's script with hostile or unusual inputs: the report reaches a stdout that
/// is a file whole; a base that starts with `-`, a render command that fails and an
/// `args` that holds a glob pattern are worded or passed as written; nothing is left in
/// the temp directory but the JSON, and no worktree.
fn action_script_is_safe_with_its_inputs() {
    let repo = git_repo("action-inputs");
    fs::create_dir(repo.path().join("deploy")).expect("create deploy/");
    repo.write("deploy/app.yaml", MANIFESTS);
    commit_all(repo.path(), "base");
    repo.edit(
        "deploy/app.yaml",
        "value-of-log-level-1",
        "value-of-log-level-2",
    );
    commit_all(repo.path(), "head");
    let runner = TempDir::new("action-inputs-runner");
    let script = repo_root().join("action/diff.sh");
    let run = |env: &[(&str, &str)], shell: &str| {
        Command::new("bash")
            .args(["-c", shell, "bash", script.to_str().expect("UTF-8 path")])
            .current_dir(repo.path())
            .env("PATH", path_with_binary())
            .env("RUNNER_TEMP", runner.path())
            .env_remove("GITHUB_STEP_SUMMARY")
            .env_remove("GITHUB_OUTPUT")
            .env_remove("CONFIG_HASH_KEY")
            .env_remove("CONFIG_HASH_KEY_FILE")
            .envs(env.iter().copied())
            .output()
            .expect("run action/diff.sh")
    };
    let base = [("INPUT_BASE", "HEAD~1"), ("INPUT_PATH", "deploy")];

    // No job summary, stdout a file written before and after the script: the report
    // is all there, between the two.
    let log = runner.path().join("log.txt");
    let shell = format!(
        "{{ echo before; bash \"$1\"; echo after; }} > '{}'",
        log.display()
    );
    let out = run(&base, &shell);
    assert!(out.status.success(), "{}", text(&out));
    let log = fs::read_to_string(&log).expect("read the log");
    assert!(
        log.starts_with("before\n") && log.ends_with("after\n"),
        "{log}"
    );
    assert!(
        log.lines().nth(1)
            == Some("### config-hash: 1 workload(s) roll, 0 added, 0 removed, 1 unchanged"),
        "the report's head: {log}"
    );
    assert!(log.contains("LOG_LEVEL"), "{log}");

    // A base that starts with `-` is not an option, and is refused as no commit.
    let out = run(
        &[("INPUT_BASE", "--orphan=x"), ("INPUT_PATH", "deploy")],
        "bash \"$1\"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("INPUT_BASE '--orphan=x' is not a commit"),
        "{}",
        text(&out)
    );

    // A render command that fails says so.
    let out = run(
        &[("INPUT_BASE", "HEAD~1"), ("INPUT_RENDER", "false")],
        "bash \"$1\"",
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("the render command failed"),
        "{}",
        text(&out)
    );

    // `args` is split, never glob-expanded: `[0]` stays `[0]` (an invalid --max-rolls,
    // exit 2), though a file named 0 would match it (--max-rolls 0: the gate, exit 3).
    repo.write("0", "");
    let out = run(
        &[
            ("INPUT_BASE", "HEAD~1"),
            ("INPUT_PATH", "deploy"),
            ("INPUT_ARGS", "--max-rolls [0]"),
        ],
        "bash \"$1\"",
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));

    // Each run removed its work directory and worktree.
    let left: Vec<String> = fs::read_dir(runner.path())
        .expect("list the temp dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("config-hash-diff."))
        .collect();
    assert_eq!(left, Vec::<String>::new(), "left in the temp dir");
    let worktrees =
        String::from_utf8_lossy(&git(repo.path(), &["worktree", "list"]).stdout).into_owned();
    assert_eq!(worktrees.lines().count(), 1, "{worktrees}");
}

/// The command and arguments of `spec.<step>` in the plugin's plugin.yaml.
fn plugin_step(step: &str) -> Vec<String> {
    let path = repo_root().join("examples/argocd-cmp/plugin.yaml");
    let plugin: Value = yaml_serde::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_sequence()
            .unwrap_or_else(|| panic!("spec.{step} of plugin.yaml"))
            .iter()
            .map(|s| s.as_str().expect("a string").to_string())
            .collect()
    };
    let mut words = strings(&plugin["spec"][step]["command"]);
    words.extend(strings(&plugin["spec"][step]["args"]));
    words
}

/// Runs the plugin's init then generate in `app`, with the environment Argo CD gives
/// a plugin (the application's name and destination namespace).
fn run_plugin(app: &Path) -> Output {
    let run = |words: Vec<String>| {
        Command::new(&words[0])
            .args(&words[1..])
            .current_dir(app)
            .env("PATH", path_with_binary())
            .env("ARGOCD_APP_NAME", "web")
            .env("ARGOCD_APP_NAMESPACE", "shop")
            .env_remove("CONFIG_HASH_KEY")
            .env_remove("CONFIG_HASH_KEY_FILE")
            .output()
            .expect("run the plugin's command")
    };
    let init = run(plugin_step("init"));
    common::assert_success(&init, "the plugin's init");
    run(plugin_step("generate"))
}

fn web_hash(render: &Output) -> String {
    let stream = String::from_utf8_lossy(&render.stdout).into_owned();
    let web = stream
        .split("\n---\n")
        .map(|doc| yaml_serde::from_str::<Value>(doc).expect("the render is YAML"))
        .find(|doc| doc["kind"] == "Deployment")
        .expect("the render holds the Deployment");
    common::pod_template(&web)["metadata"]["annotations"]["config-hash.dev/hash"]
        .as_str()
        .expect("the Deployment is stamped")
        .to_string()
}

fn argocd_plugin_generates_stamped_manifests_for_the_example_application() {
    let app = TempDir::new("argocd-cmp");
    common::copy_dir(&repo_root().join("examples/argocd-cmp/app"), app.path());

    let render = run_plugin(app.path());
    common::assert_success(&render, "the plugin's generate");
    let hash = web_hash(&render);
    // What Argo CD applies is up to date for config-hash --check.
    let check = common::run_with_stdin(Command::new(BINARY).arg("--check"), render.stdout.clone());
    assert!(check.status.success(), "{}", text(&check));

    // A key the pod reads rolls it; one it does not read does not.
    app.edit("configmap.yaml", "GREETING: hello", "GREETING: bonjour");
    assert_eq!(web_hash(&run_plugin(app.path())), hash);
    app.edit("configmap.yaml", "LOG_LEVEL: info", "LOG_LEVEL: debug");
    assert_ne!(web_hash(&run_plugin(app.path())), hash);

    // The application's .config-hash.yaml says onMissing: error, so a missing
    // ConfigMap fails the sync, naming it.
    app.edit("kustomization.yaml", "- configmap.yaml\n", "");
    let missing = run_plugin(app.path());
    assert!(!missing.status.success(), "{}", text(&missing));
    assert!(text(&missing).contains("web-config"), "{}", text(&missing));

    // A render that fails fails the plugin: Argo CD never gets an empty render.
    app.edit(
        "kustomization.yaml",
        "- deployment.yaml\n",
        "- deployment.yaml\n- gone.yaml\n",
    );
    let broken = run_plugin(app.path());
    assert!(!broken.status.success(), "{}", text(&broken));
    assert!(broken.stdout.is_empty(), "{}", text(&broken));
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        // pre-commit builds the hook with `cargo install` (a release build): slow tier.
        trial!(
            pre_commit_hook_fails_on_a_stale_manifest_and_passes_once_stamped,
            Need::File(
                pre_commit(),
                "pre-commit; run .ci/setup-pre-commit.sh".to_string()
            ),
            Need::tool("git"),
            Need::tool("cargo")
        )
        .slow(),
        trial!(
            pre_commit_hook_fails_when_only_the_config_map_changes,
            Need::File(
                pre_commit(),
                "pre-commit; run .ci/setup-pre-commit.sh".to_string()
            ),
            Need::tool("git"),
            Need::tool("cargo")
        ),
        trial!(
            pre_commit_default_hook_checks_the_package_not_only_the_changed_files,
            Need::tool("git")
        ),
        trial!(
            action_script_shows_what_rolls_between_two_revisions_and_gates,
            Need::tool("git")
        ),
        trial!(action_script_is_safe_with_its_inputs, Need::tool("git")),
        trial!(
            argocd_plugin_generates_stamped_manifests_for_the_example_application,
            Need::tool("kubectl")
        ),
    ])
}
