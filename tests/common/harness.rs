//! The test harness of the test files that need something from the machine (kpt,
//! kubectl, Helm, podman, the shared corpus): each test declares what it needs, and a test
//! whose needs are not met shows as `ignored (needs ...)` in cargo test's own summary,
//! or fails when `CI` is set, where everything must run. Built on libtest-mimic, so the
//! usual libtest flags (a name filter, `--nocapture`, `--ignored`, `--list`) work.
//!
//! A file that uses it is declared with `harness = false` in Cargo.toml and ends with
//!
//! ```ignore
//! fn main() -> std::process::ExitCode {
//!     common::harness::run(vec![
//!         trial!(some_test, Need::tool("kpt")),
//!         trial!(needs_nothing),
//!     ])
//! }
//! ```
//!
//! A `#[test]` function in such a file would never run; `tests/repository.rs` fails when
//! one is there.
//!
//! Slow tests (a container image build, a `cargo install` by pre-commit, anything that
//! builds a release binary) are a tier of their own: `trial!(...).slow()` shows as
//! `[slow] name ... ignored` in `cargo test`, and `cargo test -- --ignored` runs the slow
//! tier alone (`--include-ignored` runs everything). What they need is checked when they
//! run, as for any test.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use libtest_mimic::{Arguments, Completion, Failed, Trial};

/// Something a test needs from the machine.
#[derive(Debug, Clone)]
pub enum Need {
    /// A program on PATH, and how to get it.
    Tool(&'static str, &'static str),
    /// A file that must exist (a tool kept outside PATH), and how to get it.
    File(PathBuf, String),
    /// A directory that must exist (test input outside the repository), and how to get it.
    Dir(PathBuf, &'static str),
    /// podman, buildah and runc on PATH, with the configuration `container/setup-podman.sh`
    /// writes: without it a function container may fail to start ("error setting rlimit
    /// type 7: operation not permitted"), which says nothing of the setup step.
    Podman,
}

impl Need {
    /// A program on PATH.
    pub fn tool(name: &'static str) -> Need {
        let hint = match name {
            "podman" | "buildah" | "runc" => "run .ci/setup-container.sh as root",
            "kpt" => "kpt 1.0 from its releases",
            "kubectl" => "kubectl, which has kustomize built in",
            _ => "",
        };
        Need::Tool(name, hint)
    }

    /// The Helm binary of one major version: `CONFIG_HASH_HELM<major>`, else
    /// `target/tools/helm<major>/helm` (where `.ci/setup-helm.sh` puts it).
    pub fn helm(major: u8) -> Need {
        Need::File(
            helm_path(major),
            format!("Helm {major}; run .ci/setup-helm.sh, or set CONFIG_HASH_HELM{major}"),
        )
    }

    /// podman set up as the container guide says (see [`Need::Podman`]).
    pub fn podman() -> Need {
        Need::Podman
    }

    /// Whether the machine has it.
    pub fn is_met(&self) -> bool {
        match self {
            Need::Tool(name, _) => super::which(name).is_some(),
            Need::File(path, _) => path.is_file(),
            Need::Dir(path, _) => path.is_dir(),
            Need::Podman => {
                ["podman", "buildah", "runc"]
                    .iter()
                    .all(|t| super::which(t).is_some())
                    && podman_configured(&containers_conf())
            }
        }
    }

    /// What is missing, and how to get it.
    pub fn describe(&self) -> String {
        let (what, hint) = match self {
            Need::Tool(name, hint) => (format!("{name} on PATH"), hint.to_string()),
            Need::File(path, hint) => (path.display().to_string(), hint.clone()),
            Need::Dir(path, hint) => (path.display().to_string(), hint.to_string()),
            Need::Podman => (
                format!(
                    "podman, buildah and runc, with {} as container/setup-podman.sh writes it",
                    containers_conf().display()
                ),
                "run sudo container/setup-podman.sh (CI: .ci/setup-container.sh)".to_string(),
            ),
        };
        if hint.is_empty() {
            what
        } else {
            format!("{what}: {hint}")
        }
    }
}

/// The containers.conf podman reads: `CONTAINERS_CONF`, else the machine's.
pub fn containers_conf() -> PathBuf {
    std::env::var_os("CONTAINERS_CONF")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/etc/containers/containers.conf"))
}

/// Whether `conf` holds every line of the configuration `container/setup-podman.sh`
/// writes (its `wanted='...'` block).
pub fn podman_configured(conf: &Path) -> bool {
    let Ok(text) = std::fs::read_to_string(conf) else {
        return false;
    };
    let has: Vec<&str> = text.lines().map(str::trim).collect();
    podman_setup_lines().iter().all(|l| has.contains(l))
}

/// The lines of the configuration `container/setup-podman.sh` writes.
pub fn podman_setup_lines() -> Vec<&'static str> {
    let script = include_str!("../../container/setup-podman.sh");
    let block = script
        .split_once("wanted='")
        .and_then(|(_, rest)| rest.split_once('\''))
        .map(|(block, _)| block)
        .expect("container/setup-podman.sh sets wanted='...'");
    block
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect()
}

/// Where the tests find Helm `major` (see [`Need::helm`]).
pub fn helm_path(major: u8) -> PathBuf {
    std::env::var_os(format!("CONFIG_HASH_HELM{major}"))
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("target/tools")
                .join(format!("helm{major}"))
                .join("helm")
        })
}

/// True when tests must not be ignored for want of a tool: CI sets `CI`.
pub fn in_ci() -> bool {
    std::env::var_os("CI").is_some_and(|v| !v.is_empty() && v != "false" && v != "0")
}

/// The kind a slow test shows in cargo test's output: `test [slow] name ... ignored`.
pub const SLOW: &str = "slow";

/// One test: a function that panics on failure, what it needs, and its tier.
pub struct Test {
    name: &'static str,
    run: fn(),
    needs: Vec<Need>,
    slow: bool,
}

impl Test {
    pub fn new(name: &'static str, run: fn(), needs: Vec<Need>) -> Test {
        Test {
            name,
            run,
            needs,
            slow: false,
        }
    }

    /// In the slow tier: run by `cargo test -- --ignored` (and `--include-ignored`),
    /// not by a plain `cargo test`.
    pub fn slow(mut self) -> Test {
        self.slow = true;
        self
    }

    fn into_trial(self) -> Trial {
        let Test {
            name,
            run,
            needs,
            slow,
        } = self;
        let trial = Trial::ignorable_test(name, move || {
            let missing: Vec<String> = needs
                .iter()
                .filter(|n| !n.is_met())
                .map(Need::describe)
                .collect();
            if missing.is_empty() {
                run();
                return Ok(Completion::Completed);
            }
            let missing = missing.join("; ");
            if in_ci() {
                return Err(Failed::from(format!(
                    "needs {missing}, and CI is set: every test must run in CI"
                )));
            }
            Ok(Completion::ignored_with(format!("needs {missing}")))
        });
        if slow {
            trial.with_kind(SLOW).with_ignored_flag(true)
        } else {
            trial
        }
    }
}

/// `trial!(function, needs...)`: a [`Test`] named after its function.
#[macro_export]
macro_rules! trial {
    ($f:ident $(, $need:expr)* $(,)?) => {
        $crate::common::harness::Test::new(stringify!($f), $f, vec![$($need),*])
    };
}

/// Runs `tests` as libtest would (reading the usual flags from the command line).
pub fn run(tests: Vec<Test>) -> ExitCode {
    let args = Arguments::from_args();
    let trials = tests.into_iter().map(Test::into_trial).collect();
    libtest_mimic::run(&args, trials).exit_code()
}
