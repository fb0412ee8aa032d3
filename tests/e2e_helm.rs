//! End to end with real Helm: `helm template` on `examples/helm/chart` with config-hash
//! as the post-renderer, under Helm 3 (an executable: `--post-renderer PATH`) and Helm 4
//! (a `postrenderer/v1` plugin: `--post-renderer config-hash`).
//!
//! The Helm binaries come from `.ci/setup-helm.sh` (pip only), at
//! `target/tools/helm{3,4}/helm`, or wherever `CONFIG_HASH_HELM3` / `CONFIG_HASH_HELM4`
//! point. Without them the tests show as ignored, and fail under CI.

#[macro_use]
mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::harness::Need;
use common::{BINARY, TempDir, assert_success, example_dir, is_hash, path_with_binary};
use yaml_serde::Value;

const ANNOTATION_KEY: &str = "config-hash.dev/hash";

/// Helm with its own config, data, cache and plugin dirs, so tests never share state
/// (or read the user's).
struct Helm {
    bin: PathBuf,
    home: TempDir,
}

impl Helm {
    fn new(major: u8) -> Self {
        Helm {
            bin: common::harness::helm_path(major),
            home: TempDir::new(&format!("e2e-helm{major}")),
        }
    }

    /// Helm's default under HELM_DATA_HOME, set explicitly as well: Helm 4's `plugin
    /// install` of a local directory links it under HELM_DATA_HOME/plugins whatever
    /// HELM_PLUGINS says (seen with v4.1.4).
    fn plugins(&self) -> PathBuf {
        self.home.path().join("data").join("plugins")
    }

    fn command(&self) -> Command {
        let mut c = Command::new(&self.bin);
        let home = self.home.path();
        c.env("HELM_CONFIG_HOME", home.join("config"))
            .env("HELM_DATA_HOME", home.join("data"))
            .env("HELM_CACHE_HOME", home.join("cache"))
            .env("HELM_PLUGINS", self.plugins())
            .env("PATH", path_with_binary());
        c
    }

    /// `helm template r CHART <post-renderer args>`.
    fn template_chart(&self, chart: &Path, post_renderer: &[&str]) -> Output {
        self.command()
            .args(["template", "r"])
            .arg(chart)
            .args(post_renderer)
            .output()
            .expect("run helm")
    }

    /// `helm template r examples/helm/chart <post-renderer args> <extra>`.
    fn template(&self, post_renderer: &[&str], extra: &[&str]) -> Output {
        self.command()
            .args(["template", "r"])
            .arg(example_dir("helm").join("chart"))
            .args(post_renderer)
            .args(extra)
            .output()
            .expect("run helm")
    }
}

fn docs(stdout: &[u8]) -> Vec<Value> {
    let text = std::str::from_utf8(stdout).expect("UTF-8 output");
    text.split("\n---")
        .filter(|d| !d.trim().is_empty() && d.trim() != "---")
        .map(|d| yaml_serde::from_str::<Value>(d).expect("helm output is YAML"))
        .filter(|v| !v.is_null())
        .collect()
}

fn deployment(output: &Output) -> Value {
    assert_success(output, "helm template");
    docs(&output.stdout)
        .into_iter()
        .find(|d| d["kind"].as_str() == Some("Deployment"))
        .expect("a Deployment in helm's output")
}

/// The hash in the Deployment's pod template, asserting it is there.
fn hash_of(output: &Output) -> String {
    let d = deployment(output);
    let hash = d["spec"]["template"]["metadata"]["annotations"][ANNOTATION_KEY]
        .as_str()
        .unwrap_or_else(|| panic!("no {ANNOTATION_KEY} in the pod template:\n{d:?}"))
        .to_owned();
    assert!(is_hash(&hash), "{hash}");
    hash
}

/// The checks every post-renderer route must pass: a hash appears, changes when a value
/// the pod reads changes (ConfigMap and Secret), and stays when an unrelated value
/// changes (which does change the output).
fn rolls_only_on_config(run: impl Fn(&[&str]) -> Output) {
    let base = hash_of(&run(&[]));
    let log_level = hash_of(&run(&["--set", "logLevel=debug"]));
    assert_ne!(base, log_level, "a ConfigMap value the pod reads changed");
    let password = hash_of(&run(&["--set", "dbPassword=correct-horse"]));
    assert_ne!(base, password, "a Secret value the pod reads changed");
    assert_ne!(log_level, password);
    let scaled = run(&["--set", "replicas=5", "--set", "image=example.com/web:2"]);
    assert_eq!(deployment(&scaled)["spec"]["replicas"].as_u64(), Some(5));
    assert_eq!(
        base,
        hash_of(&scaled),
        "values the pod's config does not read"
    );
    assert_eq!(
        base,
        hash_of(&run(&[])),
        "the same values give the same hash"
    );
}

fn helm3_runs_config_hash_as_a_post_renderer_executable() {
    let helm = Helm::new(3);
    rolls_only_on_config(|extra| helm.template(&["--post-renderer", BINARY], extra));
}

fn helm3_passes_post_renderer_args() {
    let helm = Helm::new(3);
    let out = helm.template(
        &[
            "--post-renderer",
            BINARY,
            "--post-renderer-args",
            "--mode=env",
        ],
        &[],
    );
    let d = deployment(&out);
    let container = &d["spec"]["template"]["spec"]["containers"][0];
    let env = container["env"].as_sequence().expect("env list");
    let stamped = env
        .iter()
        .find(|e| e["name"].as_str() == Some("CONFIG_HASH"))
        .expect("CONFIG_HASH env var");
    assert!(is_hash(stamped["value"].as_str().expect("value")));
    assert!(d["spec"]["template"]["metadata"]["annotations"].is_null());
}

/// `--annotation-key checksum/config`: for charts that keep the name their pods already
/// use.
fn helm3_keeps_a_checksum_config_name() {
    let helm = Helm::new(3);
    let out = helm.template(
        &[
            "--post-renderer",
            BINARY,
            "--post-renderer-args",
            "--annotation-key=checksum/config",
        ],
        &[],
    );
    let d = deployment(&out);
    let annotations = &d["spec"]["template"]["metadata"]["annotations"];
    assert!(is_hash(
        annotations["checksum/config"]
            .as_str()
            .expect("checksum/config")
    ));
    assert!(annotations[ANNOTATION_KEY].is_null());
}

/// An error in config-hash fails the Helm command: nothing unstamped gets rendered.
fn helm3_fails_when_config_hash_fails() {
    let helm = Helm::new(3);
    let out = helm.template(
        &[
            "--post-renderer",
            BINARY,
            "--post-renderer-args",
            "--annotation-key=Not A Key",
        ],
        &[],
    );
    assert!(!out.status.success(), "helm must fail");
    assert!(
        out.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

fn helm4_runs_the_plugin_install_helm_plugin_writes() {
    let helm = Helm::new(4);
    // No Helm on PATH: a Helm 3 there reading the same directory would be refused.
    let installed = Command::new(BINARY)
        .arg("install-helm-plugin")
        .env("HELM_PLUGINS", helm.plugins())
        .env("PATH", Path::new(BINARY).parent().expect("a directory"))
        .output()
        .expect("run config-hash install-helm-plugin");
    assert_success(&installed, "config-hash install-helm-plugin");
    assert_eq!(
        String::from_utf8_lossy(&installed.stdout).trim(),
        helm.plugins().join("config-hash").to_str().unwrap()
    );
    let list = helm
        .command()
        .args(["plugin", "list"])
        .output()
        .expect("helm plugin list");
    assert_success(&list, "helm plugin list");
    let list = String::from_utf8_lossy(&list.stdout);
    assert!(
        list.lines()
            .any(|l| l.starts_with("config-hash") && l.contains("postrenderer/v1")),
        "{list}"
    );
    // The plugin runs its own copy of the binary: PATH without config-hash still works.
    rolls_only_on_config(|extra| {
        let mut c = helm.command();
        c.env("PATH", "/usr/bin:/bin");
        c.args(["template", "r"])
            .arg(example_dir("helm").join("chart"))
            .args(["--post-renderer", "config-hash"])
            .args(extra)
            .output()
            .expect("run helm")
    });
}

/// `helm plugin install examples/helm/plugin`: the plugin runs `config-hash` from PATH,
/// and `--post-renderer-args` reach it.
fn helm4_runs_the_example_plugin_with_args() {
    let helm = Helm::new(4);
    let installed = helm
        .command()
        .args(["plugin", "install"])
        .arg(example_dir("helm").join("plugin"))
        .output()
        .expect("helm plugin install");
    assert_success(&installed, "helm plugin install examples/helm/plugin");
    rolls_only_on_config(|extra| helm.template(&["--post-renderer", "config-hash"], extra));
    let out = helm.template(
        &[
            "--post-renderer",
            "config-hash",
            "--post-renderer-args",
            "--annotation-key=checksum/config",
        ],
        &[],
    );
    let d = deployment(&out);
    let annotations = &d["spec"]["template"]["metadata"]["annotations"];
    assert!(is_hash(
        annotations["checksum/config"]
            .as_str()
            .expect("checksum/config")
    ));
    let failed = helm.template(
        &[
            "--post-renderer",
            "config-hash",
            "--post-renderer-args",
            "--annotation-key=Not A Key",
        ],
        &[],
    );
    assert!(!failed.status.success(), "helm must fail");
}

/// `examples/helm/chart` with the Deployment reading a Secret a hook would make at
/// install time: not in the render.
fn chart_with_a_missing_secret() -> TempDir {
    let dir = TempDir::new("e2e-helm-chart");
    common::copy_dir(&example_dir("helm").join("chart"), dir.path());
    dir.edit(
        "templates/deployment.yaml",
        "name: {{ .Release.Name }}-db\n",
        "name: {{ .Release.Name }}-db-made-by-a-hook\n",
    );
    dir
}

const MISSING: &str = "Secret \"r-db-made-by-a-hook\", which is not in the input";

impl Helm {
    /// `helm template r CHART POST_RENDERER...` run in a terminal, with stdout and
    /// stderr sent to files: what the terminal showed, then stdout, then stderr.
    fn template_in_a_terminal(
        &self,
        chart: &Path,
        post_renderer: &str,
        env: &[(&str, &str)],
    ) -> (String, String, String) {
        let out = self.home.path().join("out.yaml");
        let err = self.home.path().join("err.txt");
        let mut command = String::new();
        for (k, v) in env {
            command.push_str(&format!("{k}={v} "));
        }
        command.push_str(&format!(
            "{} template r {} --post-renderer {post_renderer} > {} 2> {}; echo \"exit $?\"",
            self.bin.display(),
            chart.display(),
            out.display(),
            err.display()
        ));
        let home = self.home.path();
        let path = path_with_binary();
        let envs = [
            ("HELM_CONFIG_HOME", home.join("config").into_os_string()),
            ("HELM_DATA_HOME", home.join("data").into_os_string()),
            ("HELM_CACHE_HOME", home.join("cache").into_os_string()),
            ("HELM_PLUGINS", self.plugins().into_os_string()),
            ("PATH", path),
        ];
        let envs: Vec<(&str, &std::ffi::OsStr)> =
            envs.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        let shown = common::in_terminal(&command, &envs);
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        (shown, read(&out), read(&err))
    }
}

/// Helm 3 shows a post-renderer's stderr only when it fails. With the default
/// `onMissing: warn`, the warning reaches the terminal and, as a comment naming the
/// object, the rendered output; the build succeeds. With `CONFIG_HASH_ON_MISSING=error`
/// (CI) it fails, and Helm 3 shows why.
fn helm3_shows_a_missing_secret_and_still_builds() {
    let helm = Helm::new(3);
    let chart = chart_with_a_missing_secret();
    let (shown, out, err) = helm.template_in_a_terminal(chart.path(), BINARY, &[]);
    assert!(shown.contains("exit 0"), "{shown}\n{err}");
    assert!(
        shown.lines().any(|l| l.starts_with("config-hash: warning: Deployment r-web") && l.contains(MISSING)),
        "the terminal:\n{shown}"
    );
    assert!(
        out.lines().any(
            |l| l.starts_with("# config-hash: warning: Deployment r-web") && l.contains(MISSING)
        ),
        "the output:\n{out}"
    );
    assert!(!err.contains("config-hash"), "{err}");
    hash_of(&helm.template_chart(chart.path(), &["--post-renderer", BINARY]));

    let strict =
        helm.template_in_a_terminal(chart.path(), BINARY, &[("CONFIG_HASH_ON_MISSING", "error")]);
    assert!(
        !strict.0.contains("exit 0"),
        "strict mode must fail: {}",
        strict.0
    );
    assert!(
        strict.2.contains(MISSING),
        "Helm 3 shows a failing post-renderer's stderr:\n{}",
        strict.2
    );
}

/// Helm 4 shows a plugin's stderr never, not even when it fails, and drops comments
/// a post-renderer adds: the terminal is where the warning and the error go.
fn helm4_shows_a_missing_secret_on_the_terminal_and_still_builds() {
    let helm = Helm::new(4);
    let installed = Command::new(BINARY)
        .arg("install-helm-plugin")
        .env("HELM_PLUGINS", helm.plugins())
        .env("PATH", Path::new(BINARY).parent().expect("a directory"))
        .output()
        .expect("run config-hash install-helm-plugin");
    assert_success(&installed, "config-hash install-helm-plugin");
    let chart = chart_with_a_missing_secret();
    let (shown, out, err) = helm.template_in_a_terminal(chart.path(), "config-hash", &[]);
    assert!(shown.contains("exit 0"), "{shown}\n{err}");
    assert!(
        shown.lines().any(|l| l.starts_with("config-hash: warning: Deployment r-web") && l.contains(MISSING)),
        "the terminal:\n{shown}"
    );
    assert!(out.contains("config-hash.dev/hash"), "stamped:\n{out}");

    let (shown, _, err) = helm.template_in_a_terminal(
        chart.path(),
        "config-hash",
        &[("CONFIG_HASH_ON_MISSING", "error")],
    );
    assert!(!shown.contains("exit 0"), "strict mode must fail: {shown}");
    assert!(
        shown
            .lines()
            .any(|l| l.starts_with("config-hash: error: Deployment r-web") && l.contains(MISSING)),
        "the terminal:\n{shown}\nstderr:\n{err}"
    );
}

/// A machine as a user has it: a home of its own, and PATH holding only `config-hash`
/// and the Helm binaries given (each a link to the real Helm 3 or Helm 4 under a name
/// such as `helm` or `helm4`). Commands run with nothing else of this process's
/// environment, and in a directory holding `./chart` (the example chart), so the
/// README's Helm commands run as written.
struct Machine {
    root: TempDir,
}

impl Machine {
    fn new(label: &str, helms: &[(&str, u8)]) -> Machine {
        let root = TempDir::new(&format!("e2e-helm-{label}"));
        for dir in ["bin", "home", "work"] {
            std::fs::create_dir_all(root.path().join(dir)).expect("mkdir");
        }
        let bin = root.path().join("bin");
        std::os::unix::fs::symlink(BINARY, bin.join("config-hash")).expect("link config-hash");
        for (name, major) in helms {
            std::os::unix::fs::symlink(common::harness::helm_path(*major), bin.join(name))
                .expect("link helm");
        }
        common::copy_dir(
            &example_dir("helm").join("chart"),
            &root.path().join("work/chart"),
        );
        Machine { root }
    }

    fn home(&self) -> PathBuf {
        self.root.path().join("home")
    }

    /// Helm's default plugins directory here, which Helm 3 and Helm 4 both read.
    fn shared_plugins(&self) -> PathBuf {
        self.home().join(".local/share/helm/plugins")
    }

    fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut c = Command::new(program);
        c.env_clear()
            .env("HOME", self.home())
            .env("PATH", self.root.path().join("bin"))
            .current_dir(self.root.path().join("work"));
        c
    }

    fn install(&self) -> Output {
        self.command(BINARY)
            .arg("install-helm-plugin")
            .output()
            .expect("run config-hash install-helm-plugin")
    }

    /// `script` in bash, aliases on (as in an interactive shell), after `setup`.
    fn shell(&self, setup: &str, script: &str) -> Output {
        self.command("/bin/bash")
            .arg("-c")
            .arg(format!("shopt -s expand_aliases\n{setup}\n{script}\n"))
            .output()
            .expect("run bash")
    }

    /// Helm 3 works on this machine, run by its path (on PATH or not): it lists its
    /// plugins (it fails on all of them when a Helm 4 plugin is where it reads), and runs
    /// config-hash as its post-renderer.
    fn assert_helm3_works(&self) {
        let helm3 = common::harness::helm_path(3);
        let list = self
            .command(&helm3)
            .args(["plugin", "list"])
            .output()
            .expect("helm 3 plugin list");
        assert_success(&list, "Helm 3 plugin list");
        let rendered = self
            .command(&helm3)
            .args(["template", "my-release", "./chart", "--post-renderer"])
            .arg(self.root.path().join("bin/config-hash"))
            .output()
            .expect("helm 3 template");
        hash_of(&rendered);
    }
}

/// The advice install-helm-plugin gives on stderr: the line that starts with `alias `.
fn alias_advice(installed: &Output) -> String {
    let err = String::from_utf8_lossy(&installed.stderr);
    err.lines()
        .map(str::trim)
        .find(|l| l.starts_with("alias "))
        .unwrap_or_else(|| panic!("no alias line in the installer's advice:\n{err}"))
        .to_string()
}

/// The README's Helm commands, as written: (Helm 3's, Helm 4's) `helm template` lines.
fn readme_helm_commands() -> (String, String) {
    let readme = std::fs::read_to_string(common::repo_root().join("README.md")).expect("README");
    let line = |major: &str| {
        readme
            .lines()
            .find(|l| l.starts_with("helm template") && l.trim_end().ends_with(major))
            .and_then(|l| l.split(" #").next())
            .unwrap_or_else(|| panic!("no `helm template ... {major}` line in the README"))
            .trim()
            .to_string()
    };
    (line("# Helm 3"), line("# Helm 4"))
}

/// Helm 4 installed as `helm`, and no Helm 3 on PATH: a Helm 3 the installer cannot
/// see (run by its path, installed later) still works afterwards, and after the
/// installer's advice the README's Helm 4 command runs as written.
fn helm4_as_helm_with_no_helm3_on_path_leaves_helm3_working() {
    let machine = Machine::new("helm4-alone", &[("helm", 4)]);
    let installed = machine.install();
    assert_success(&installed, "install-helm-plugin");
    let plugin = String::from_utf8_lossy(&installed.stdout)
        .trim()
        .to_string();
    assert!(
        !Path::new(&plugin).starts_with(machine.shared_plugins()),
        "the Helm 4 plugin went where Helm 3 reads plugins: {plugin}"
    );
    let advice = alias_advice(&installed);
    assert!(advice.starts_with("alias helm="), "{advice}");
    let (_, helm4_command) = readme_helm_commands();
    hash_of(&machine.shell(&advice, &helm4_command));
    machine.assert_helm3_works();
}

/// Helm 3 as `helm`, Helm 4 as `helm4`: the advice is for `helm4`, Helm 3 keeps working,
/// and both README commands run (Helm 4's under the name `helm4`).
fn helm3_as_helm_and_helm4_as_helm4_both_work() {
    let machine = Machine::new("helm3-helm4", &[("helm", 3), ("helm4", 4)]);
    let installed = machine.install();
    assert_success(&installed, "install-helm-plugin");
    let advice = alias_advice(&installed);
    assert!(advice.starts_with("alias helm4="), "{advice}");
    let (helm3_command, helm4_command) = readme_helm_commands();
    hash_of(&machine.shell("", &helm3_command));
    let helm4_command = helm4_command.replacen("helm ", "helm4 ", 1);
    hash_of(&machine.shell(&advice, &helm4_command));
    machine.assert_helm3_works();
}

/// Helm 4 as `helm`, Helm 3 as `helm3`: the advice is for `helm` (not `helm4`, which
/// is not there), and both work.
fn helm4_as_helm_and_helm3_as_helm3_both_work() {
    let machine = Machine::new("helm4-helm3", &[("helm", 4), ("helm3", 3)]);
    let installed = machine.install();
    assert_success(&installed, "install-helm-plugin");
    let advice = alias_advice(&installed);
    assert!(advice.starts_with("alias helm="), "{advice}");
    let (helm3_command, helm4_command) = readme_helm_commands();
    hash_of(&machine.shell(&advice, &helm4_command));
    let helm3_command = helm3_command.replacen("helm ", "helm3 ", 1);
    hash_of(&machine.shell("", &helm3_command));
    machine.assert_helm3_works();
}

/// Only Helm 3: it needs no plugin, so the installer installs nothing and gives the
/// command that works, which does.
fn helm3_alone_gets_the_command_that_needs_no_plugin() {
    let machine = Machine::new("helm3-alone", &[("helm", 3)]);
    let installed = machine.install();
    assert_eq!(installed.status.code(), Some(1), "{installed:?}");
    let err = String::from_utf8_lossy(&installed.stderr);
    let (helm3_command, _) = readme_helm_commands();
    assert!(err.contains(&helm3_command), "{err}");
    assert!(installed.stdout.is_empty(), "{installed:?}");
    assert!(
        !machine.home().join(".local/share/helm").exists(),
        "the installer wrote a plugin"
    );
    hash_of(&machine.shell("", &helm3_command));
    machine.assert_helm3_works();
}

/// A Helm 4 that is not on PATH, named with --helm: the alias runs it by its path.
fn helm4_off_path_is_named_with_helm() {
    let machine = Machine::new("helm4-off-path", &[]);
    let installed = machine
        .command(BINARY)
        .arg("install-helm-plugin")
        .arg("--helm")
        .arg(common::harness::helm_path(4))
        .output()
        .expect("install-helm-plugin --helm");
    assert_success(&installed, "install-helm-plugin --helm");
    let advice = alias_advice(&installed);
    assert!(advice.starts_with("alias helm4="), "{advice}");
    let (_, helm4_command) = readme_helm_commands();
    hash_of(&machine.shell(&advice, &helm4_command.replacen("helm ", "helm4 ", 1)));
    machine.assert_helm3_works();
}

/// A chart given to config-hash as manifests is refused with the command that renders
/// it first, and that command works as printed.
fn a_chart_given_as_manifests_gets_a_render_command_that_works() {
    let machine = Machine::new("chart-as-manifests", &[("helm", 3)]);
    let refused = machine
        .command(BINARY)
        .arg("./chart")
        .output()
        .expect("run config-hash");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    let command = err
        .lines()
        .map(str::trim)
        .find(|l| l.starts_with("helm template"))
        .unwrap_or_else(|| panic!("no render command:\n{err}"));
    assert_eq!(command, "helm template my-release ./chart | config-hash");
    let rendered = machine.shell("", command);
    assert_success(&rendered, command);
    assert!(
        String::from_utf8_lossy(&rendered.stdout).contains(ANNOTATION_KEY),
        "not stamped"
    );
}

/// The example plugin's comment says what the installer writes: a link to the binary
/// (it said a copy), in a directory Helm 3 does not read.
fn the_example_plugin_says_what_the_installer_writes() {
    let text = std::fs::read_to_string(example_dir("helm").join("plugin/plugin.yaml"))
        .expect("examples/helm/plugin/plugin.yaml");
    let comment: String = text
        .lines()
        .filter(|l| l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    assert!(!comment.contains("copy"), "{comment}");
    assert!(comment.contains("link to the binary"), "{comment}");
}

/// No Helm on PATH: the installer says where to get Helm, and how to name a Helm 4
/// that is not on PATH.
fn no_helm_on_path_gets_where_to_install_it() {
    let machine = Machine::new("no-helm", &[]);
    let installed = machine.install();
    assert_eq!(installed.status.code(), Some(1), "{installed:?}");
    let err = String::from_utf8_lossy(&installed.stderr);
    assert!(err.contains("https://helm.sh/docs/intro/install/"), "{err}");
    assert!(err.contains("--helm"), "{err}");
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![
        trial!(
            helm3_runs_config_hash_as_a_post_renderer_executable,
            Need::helm(3)
        ),
        trial!(helm3_passes_post_renderer_args, Need::helm(3)),
        trial!(helm3_keeps_a_checksum_config_name, Need::helm(3)),
        trial!(helm3_fails_when_config_hash_fails, Need::helm(3)),
        trial!(
            helm4_runs_the_plugin_install_helm_plugin_writes,
            Need::helm(4)
        ),
        trial!(helm4_runs_the_example_plugin_with_args, Need::helm(4)),
        trial!(
            helm3_shows_a_missing_secret_and_still_builds,
            Need::helm(3),
            Need::tool("script")
        ),
        trial!(
            helm4_shows_a_missing_secret_on_the_terminal_and_still_builds,
            Need::helm(4),
            Need::tool("script")
        ),
        trial!(
            helm4_as_helm_with_no_helm3_on_path_leaves_helm3_working,
            Need::helm(3),
            Need::helm(4)
        ),
        trial!(
            helm3_as_helm_and_helm4_as_helm4_both_work,
            Need::helm(3),
            Need::helm(4)
        ),
        trial!(
            helm4_as_helm_and_helm3_as_helm3_both_work,
            Need::helm(3),
            Need::helm(4)
        ),
        trial!(
            helm3_alone_gets_the_command_that_needs_no_plugin,
            Need::helm(3)
        ),
        trial!(no_helm_on_path_gets_where_to_install_it),
        trial!(the_example_plugin_says_what_the_installer_writes),
        trial!(
            a_chart_given_as_manifests_gets_a_render_command_that_works,
            Need::helm(3)
        ),
        trial!(
            helm4_off_path_is_named_with_helm,
            Need::helm(3),
            Need::helm(4)
        ),
    ])
}
