//! Hints for misuse a newcomer runs into: nothing piped in at a terminal, a subcommand
//! spelled wrong, a ConfigHash config that kustomize runs as a generator (or that was
//! given as a manifest, `-c` forgotten), sources given where renders are needed (a
//! Helm chart, a kustomize directory under `--check` or `--in-place`). (A
//! Kustomization or chart among the input is found by `input.rs`, which knows the
//! files.)

use std::io::{self, IsTerminal as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::CommandFactory as _;

use super::args;
use super::exit::{EXIT_USAGE, usage};

/// What a command does with what it reads, for advice on a source given where a render
/// is needed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// A run that writes the stamped stream to stdout.
    Stamp,
    /// `--check`.
    Check,
    /// `--in-place`.
    InPlace,
    /// A report on what is read: `graph`, `audit`, a side of `diff`.
    View(&'static str),
}

impl Use {
    /// The config-hash command line that reads a render on stdin for this use.
    fn reading_stdin(self) -> String {
        match self {
            Use::Stamp | Use::InPlace => "config-hash".into(),
            Use::Check => "config-hash --check".into(),
            Use::View("diff") => "config-hash diff BEFORE - (or render to a file)".into(),
            Use::View(command) => format!("config-hash {command}"),
        }
    }
}

/// A refusal that names what to run instead: a usage error (exit 2), worded whole.
fn refuse(message: String) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(EXIT_USAGE)
}

/// `chart` (a directory holding Chart.yaml) among the PATHs: its templates are not
/// manifests, and config-hash stamps a chart's manifests when Helm renders them.
pub fn chart_source(chart: &Path, using: Use) -> ExitCode {
    let dir = chart.display();
    let render = format!("helm template my-release {dir}");
    refuse(match using {
        Use::InPlace => format!(
            "{dir} is a Helm chart: its templates are not manifests, and config-hash never writes \
             hashes into them. Helm runs config-hash on what it renders, as its post-renderer:\n\n  \
             {render} --post-renderer \"$(command -v config-hash)\"    # Helm 3\n  \
             config-hash install-helm-plugin    # Helm 4, once; then --post-renderer config-hash"
        ),
        Use::Check => format!(
            "{dir} is a Helm chart: --check judges manifests, and a chart's exist only once Helm \
             renders them (config-hash stamps them then, as Helm's post-renderer). Check the \
             render:\n\n  {render} | {}",
            using.reading_stdin()
        ),
        Use::Stamp | Use::View(_) => format!(
            "{dir} is a Helm chart: its templates are not manifests until Helm renders them. \
             Render it first:\n\n  {render} | {}",
            using.reading_stdin()
        ),
    })
}

/// A Kustomization among the input of `--check` or `--in-place`: its files are sources,
/// without what kustomize generates or patches, so their hashes would be wrong.
pub fn kustomize_source(kustomization: &Path, text: &str, using: Use) -> ExitCode {
    let dir = kustomization
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .display();
    // A Kustomization that runs plugins (config-hash among them) builds only with them on.
    let plugins = if text.contains("transformers:") || text.contains("generators:") {
        " --enable-alpha-plugins"
    } else {
        ""
    };
    let build = format!("kubectl kustomize{plugins} {dir}");
    let what = "without what kustomize generates (configMapGenerator, secretGenerator) or patches";
    refuse(if using == Use::InPlace {
        format!(
            "{} is a Kustomization: --in-place would write into its source files hashes computed \
             {what}. Stamp what kustomize builds, as it builds it (config-hash as a transformer: \
             config-hash install-kustomize-plugin, and a ConfigHash listed under transformers:), or \
             stamp the build:\n\n  {build} | config-hash > rendered.yaml",
            kustomization.display()
        )
    } else {
        format!(
            "{} is a Kustomization: --check would judge its source files, {what}. Check what \
             kustomize builds:\n\n  {build} | {}",
            kustomization.display(),
            using.reading_stdin()
        )
    })
}

/// A ConfigHash config given as the only PATH outside kustomize (which sets
/// KUSTOMIZE_PLUGIN_CONFIG_ROOT for its plugins), with nothing on stdin: `-c` forgotten.
pub fn config_given_as_manifests(file: &Path) -> ExitCode {
    let file = file.display();
    usage(format!(
        "{file} is a ConfigHash config, not manifests: pass it with -c, and the manifests as \
         PATHs or on stdin (config-hash -c {file} manifests/, or ... | config-hash -c {file})"
    ))
}

/// Whether kustomize runs this process as its legacy exec plugin: it sets these for a
/// plugin (seen with kubectl kustomize v5).
pub fn under_kustomize() -> bool {
    [
        "KUSTOMIZE_PLUGIN_CONFIG_ROOT",
        "KUSTOMIZE_PLUGIN_CONFIG_STRING",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// Before reading stdin: a terminal there means nobody piped anything in, and reading
/// would wait for the user to type manifests.
pub fn stdin_is_a_terminal(paths: &[PathBuf]) -> Option<ExitCode> {
    (paths.is_empty() && io::stdin().is_terminal()).then(|| {
        usage(
            "config-hash reads manifests or a ResourceList on stdin, and stdin is a terminal: \
             pipe them in (kubectl kustomize DIR | config-hash), or name files or directories \
             (config-hash manifests/)",
        )
    })
}

/// A PATH that does not exist but is spelled like a subcommand (`grpah`): say so.
pub fn mistyped_subcommand(paths: &[PathBuf]) -> Option<ExitCode> {
    let first = paths.first()?;
    let word = first.to_str()?;
    if first.exists() || word.contains(['/', '.', '\\']) {
        return None;
    }
    let command = args::Cli::command();
    let best = command
        .get_subcommands()
        .map(|s| s.get_name())
        .map(|name| (strsim::jaro(word, name), name))
        .filter(|(score, _)| *score > 0.7)
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    Some(usage(format!(
        "no subcommand or file '{word}'\n\n  tip: a similar subcommand exists: '{}'",
        best.1
    )))
}

/// A ResourceList from kustomize (its items carry kustomize's resource ids): kustomize
/// ignores `results`.
pub fn kustomize_function(text: &str) -> bool {
    text.contains("kustomize.config.k8s.io/id")
}

/// A ResourceList with no items whose functionConfig is a ConfigHash: what kustomize
/// sends a KRM function listed under `generators:`.
pub fn generator_list(text: &str) -> bool {
    // Such a list is small; a large input is never read again for this.
    if text.len() > 1 << 16 || !text.contains("ConfigHash") {
        return false;
    }
    let Ok(tree) = config_hash::yaml::parse(text.trim_start_matches('\u{feff}')) else {
        return false;
    };
    let Some(root) = tree.documents().first().map(|d| d.root()) else {
        return false;
    };
    let str_at = |path: &[&str]| tree.get_path(root, path).and_then(|n| tree.str(n));
    let no_items = tree
        .get(root, "items")
        .is_none_or(|i| tree.is_null(i) || (tree.is_seq(i) && tree.items(i).next().is_none()));
    str_at(&["kind"]) == Some("ResourceList")
        && no_items
        && str_at(&["functionConfig", "kind"]) == Some(config_hash::model::config::CONFIG_KIND)
}
