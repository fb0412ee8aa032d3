//! Command-line definitions (clap derive only); behaviour lives in the library.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};
use config_hash::model::config::{GitOps, Granularity, Mode, OnMissing, Overrides, RuntimeReload};

/// Stamp a hash of the ConfigMaps and Secrets each pod reads into its pod template.
///
/// With no arguments, config-hash is a KRM function: it reads a ResourceList (YAML or
/// JSON) on stdin and writes it, with `results`, to stdout. Given a plain multi-document
/// manifest stream (on stdin, or as PATHs: files and directories, read as one package)
/// it writes the stream back, stamped, to stdout (or with --in-place, to the files that
/// change), and prints warnings and errors on stderr; on any error it writes nothing.
/// Given one FILE that holds a ConfigHash object, it runs as a kustomize legacy exec
/// plugin (config from the file, stream on stdin).
///
/// Exit status: 0 success (warnings allowed); 1 an error result, or input that cannot
/// be read; 2 a usage error (an unknown flag, a bad flag value); 3 (with --check)
/// something is out of date, a gate of `diff` failed, or `audit --fail` listed a
/// workload.
///
/// Environment: CONFIG_HASH_ON_MISSING (warn, error or ignore) is --on-missing for
/// hosts where flags are hard to reach (CI, a Helm or kustomize plugin); the flag wins.
/// CONFIG_HASH_KEY_FILE and CONFIG_HASH_KEY: see --key-file.
#[derive(Debug, Parser)]
#[command(
    name = "config-hash",
    version,
    about,
    long_about,
    after_help = EXAMPLES_CONFIG_HASH,
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub run: RunArgs,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Install config-hash as kustomize's ConfigHash plugin
    ///
    /// A link to this binary where `kubectl kustomize --enable-alpha-plugins` finds the
    /// exec plugin for `kind: ConfigHash`
    /// ($XDG_CONFIG_HOME/kustomize/plugin/config-hash.dev/v1alpha1/confighash/ConfigHash,
    /// XDG_CONFIG_HOME defaulting to ~/.config); prints the path. An upgrade of the
    /// binary upgrades the plugin.
    #[command(after_help = EXAMPLES_INSTALL_KUSTOMIZE_PLUGIN)]
    InstallKustomizePlugin {
        /// Install under this directory instead of $XDG_CONFIG_HOME/kustomize/plugin.
        #[arg(long, value_name = "DIR")]
        plugin_home: Option<PathBuf>,
    },
    /// Install config-hash as a Helm 4 post-renderer plugin
    ///
    /// A postrenderer/v1 plugin, so `helm template|install|upgrade --post-renderer
    /// config-hash` runs it: writes <DIR>/config-hash/plugin.yaml and a link to this
    /// binary beside it (an upgrade of the binary upgrades the plugin), and prints the
    /// plugin directory. DIR defaults to a directory beside Helm's plugins directory that
    /// no Helm reads by default, since Helm 3 cannot load a Helm 4 plugin and then fails
    /// every plugin command; the installer prints the alias that lets the Helm 4 it found
    /// (helm or helm4 on PATH, or --helm) read it. Helm 3 needs no plugin
    /// (`--post-renderer "$(command -v config-hash)"`): with only Helm 3 on PATH, it
    /// installs nothing and says so.
    #[command(after_help = EXAMPLES_INSTALL_HELM_PLUGIN)]
    InstallHelmPlugin {
        /// Install into DIR, a plugins directory your Helm 4 reads [default: beside
        /// Helm's default one, for Helm 4 alone; $HELM_PLUGINS when set]. Refused when a
        /// Helm 3 on PATH reads DIR.
        #[arg(long, value_name = "DIR")]
        plugins_dir: Option<PathBuf>,
        /// The Helm 4 binary to install for, when it is not on PATH as helm or helm4.
        #[arg(long, value_name = "PATH")]
        helm: Option<PathBuf>,
    },
    /// Show which workloads read which ConfigMaps/Secrets
    ///
    /// Which workloads read which ConfigMaps and Secrets (and keys), and which references
    /// are missing: "what rolls if I change this ConfigMap?". It takes the same
    /// configuration as a run (flags, -c, a kpt package's Kptfile, the ResourceList's
    /// functionConfig), so it resolves every name as stamping does.
    #[command(after_help = EXAMPLES_GRAPH)]
    Graph {
        /// Output format.
        #[arg(long, value_enum, default_value_t = GraphFormat::Table)]
        format: GraphFormat,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// Show what rolls between two renders, and why
    ///
    /// For every workload whose stamp changes: which ConfigMaps and Secrets changed and
    /// which of the keys its pods see (key names, never values); workloads added and
    /// removed; objects renamed; and what says whether the roll happens. Both
    /// sides are stamped first, in memory, with the configuration a run on each would
    /// use (flags, -c, a kpt package's Kptfile, a ResourceList's functionConfig), so
    /// rendered and unrendered manifests compare alike. Exit status: 0 whether or not
    /// anything rolls; 3 when a gate (--max-rolls, protected workloads) fails; 1 when
    /// AFTER cannot be read or stamped; 2 a usage error.
    #[command(after_help = EXAMPLES_DIFF)]
    Diff {
        /// The manifests before the change: a file, a directory, or - for stdin.
        #[arg(value_name = "BEFORE")]
        before: PathBuf,
        /// The manifests after the change: a file, a directory, or - for stdin.
        #[arg(value_name = "AFTER")]
        after: PathBuf,
        /// Output format: table (a terminal, a CI log), markdown (a pull-request comment,
        /// a job summary), json (tools; the schema is in the documentation).
        #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
        format: DiffFormat,
        /// Fail (exit 3) when more than N workloads roll.
        #[arg(long, value_name = "N")]
        max_rolls: Option<usize>,
        /// Let workloads annotated config-hash.dev/protected: "true" roll; without it, a
        /// protected workload that rolls fails the diff (exit 3).
        #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false)]
        allow_protected: bool,
        #[command(flatten)]
        flags: ConfigFlags,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// List workloads with no roll trigger for their config
    ///
    /// The workloads that read a ConfigMap or Secret and have nothing that rolls them
    /// when it changes. A roll trigger is a config-hash stamp, a checksum/* pod-template
    /// annotation, a Reloader or wave annotation, or a hashed name on what it reads.
    /// Reads manifests as they are (a chart's render, a directory; files, directories or
    /// stdin), with the same configuration as a run. Exit status: 0; 3 with --fail when a
    /// workload is listed; 1 when the input cannot be read; 2 a usage error.
    #[command(after_help = EXAMPLES_AUDIT)]
    Audit {
        /// Output format.
        #[arg(long, value_enum, default_value_t = AuditFormat::Table)]
        format: AuditFormat,
        /// Exit 3 when a workload has no roll trigger.
        #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false)]
        fail: bool,
        #[command(flatten)]
        config: ConfigArgs,
        #[command(flatten)]
        quiet: Quiet,
    },
    /// List old hashed ConfigMaps/Secrets safe to delete
    ///
    /// The old hashed ConfigMaps and Secrets that are safe to delete, as a stream
    /// `kubectl delete -f -` reads; nothing is deleted, and no cluster is contacted.
    ///
    /// Safe means all of: a version of a base name the render has (its name is that base
    /// name plus kustomize's hash of its own content, recomputed: a name or an annotation
    /// alone proves nothing); not in the render; named by no live object at any site
    /// renaming rewrites (a Pod, a ReplicaSet of any replica count, so rollbacks keep
    /// working, a ControllerRevision's recorded template, a Job, a CronJob, ...; an object
    /// of a custom kind is also read by shape); owned by no other object; and not among
    /// the newest --keep N old versions of its base name (by creationTimestamp). A dump
    /// that cannot show every reader (the render's Deployment without its ReplicaSets, a
    /// Pod without its owner, a CronJob's running Job, ...) is refused, naming each kind
    /// it lacks and the kubectl get to run. Dump after applying the render.
    #[command(after_help = EXAMPLES_PRUNE)]
    Prune(PruneArgs),
    /// Print a shell completion script
    #[command(after_help = EXAMPLES_COMPLETIONS)]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: Shell,
    },
    /// Print the manual pages (one per command)
    ///
    /// The manual page of config-hash, or of one of its commands (roff, from the same
    /// definitions as --help); with --dir, every page written as a file:
    /// config-hash.1, config-hash-diff.1, and so on.
    #[command(after_help = EXAMPLES_MAN)]
    Man {
        /// The command whose page to print (diff, graph, ...) [default: config-hash's own].
        #[arg(value_name = "COMMAND")]
        command: Option<String>,
        /// Write every page into DIR (created if missing), and print the files' paths.
        #[arg(long, value_name = "DIR", conflicts_with = "command")]
        dir: Option<PathBuf>,
    },
}

/// The Examples section of each command's help: commands to copy, one per line.
const EXAMPLES_CONFIG_HASH: &str = "\
Examples:
  config-hash < resource-list.yaml                  # a KRM function: a ResourceList in, stamped, out
  kubectl kustomize overlay | config-hash | kubectl apply -f -
  config-hash --in-place manifests/                 # stamp files where they are
  config-hash --check manifests/                    # CI: exit 3 when something is out of date
  config-hash -c config-hash.yaml --mode env manifests/ > stamped.yaml";

const EXAMPLES_INSTALL_KUSTOMIZE_PLUGIN: &str = "\
Examples:
  config-hash install-kustomize-plugin
  kubectl kustomize --enable-alpha-plugins examples/kustomize   # a ConfigHash listed under transformers:";

const EXAMPLES_INSTALL_HELM_PLUGIN: &str = "\
Examples:
  config-hash install-helm-plugin                  # then add the alias it prints
  helm template my-release ./chart --post-renderer config-hash
  config-hash install-helm-plugin --helm ~/bin/helm4   # a Helm 4 that is not on PATH";

const EXAMPLES_GRAPH: &str = "\
Examples:
  config-hash graph manifests/
  kubectl kustomize overlay | config-hash graph
  config-hash graph --format dot manifests/ | dot -Tsvg > graph.svg
  config-hash graph --format json manifests/ | jq '.edges[] | select(.status == \"missing\")'";

const EXAMPLES_DIFF: &str = "\
Examples:
  config-hash diff base/ head/
  config-hash diff base/ head/ --format markdown > comment.md   # a pull-request comment
  config-hash diff base/ head/ --max-rolls 5                     # exit 3 when more than 5 roll
  helm template r chart/ | config-hash diff before.yaml -";

const EXAMPLES_AUDIT: &str = "\
Examples:
  helm template r chart/ | config-hash audit
  config-hash audit --fail manifests/               # CI: exit 3 when a workload is listed";

const EXAMPLES_PRUNE: &str = "\
Examples:
  kubectl get configmaps,secrets,replicasets,controllerrevisions,pods,jobs,cronjobs -A -o yaml > live.yaml
  config-hash prune --live live.yaml rendered/ | kubectl delete -f -
  config-hash prune --live live.yaml --format table rendered/   # what is kept, and why";

const EXAMPLES_COMPLETIONS: &str = "\
Examples:
  config-hash completions bash > ~/.local/share/bash-completion/completions/config-hash
  config-hash completions zsh > \"${fpath[1]}/_config-hash\"
  config-hash completions fish > ~/.config/fish/completions/config-hash.fish";

const EXAMPLES_MAN: &str = "\
Examples:
  config-hash man --dir ~/.local/share/man/man1     # then: man config-hash, man config-hash-diff, ...
  config-hash man diff > config-hash-diff.1 && man ./config-hash-diff.1";

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum DiffFormat {
    /// A readable table.
    Table,
    /// Markdown, for a pull-request comment or a CI job summary.
    Markdown,
    /// JSON: {"version": 1, "rolls": [...], ...}.
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum AuditFormat {
    /// A readable table.
    Table,
    /// JSON: {"version": 1, "untriggered": [...], "reading": N}.
    Json,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GraphFormat {
    /// A readable table.
    Table,
    /// JSON: {"edges": [...]}.
    Json,
    /// Graphviz DOT (`| dot -Tsvg`); missing references drawn red and dashed.
    Dot,
}

/// What a run reads and how it is configured: shared by a run, `graph` and `audit`, so
/// they resolve names the same way.
#[derive(Debug, Args)]
pub struct ConfigArgs {
    /// Manifest files or directories to read instead of stdin (a directory: every
    /// *.yaml, *.yml and *.json below it, sorted, hidden ones skipped). They are read as
    /// one package, so references across files resolve, and written to stdout as one
    /// stream (or back to themselves with --in-place). A directory holding a Kptfile whose
    /// pipeline runs config-hash gives its configuration (configMap: or configPath:).
    #[arg(value_name = "PATH")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub flags: ConfigFlags,
}

/// How a run is configured, besides what it reads: the same for every command.
#[derive(Debug, Args)]
pub struct ConfigFlags {
    /// A functionConfig file: `kind: ConfigHash` (fields under spec) or a ConfigMap
    /// (fields under data).
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Write the hash as an annotation, an env var, or both [default: annotation].
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Annotation key for the hash [default: config-hash.dev/hash].
    #[arg(long, value_name = "KEY")]
    pub annotation_key: Option<String>,
    /// Env var name for the hash [default: CONFIG_HASH].
    #[arg(long, value_name = "NAME")]
    pub env_name: Option<String>,
    /// Hash only the keys each pod sees (key) or whole objects (object) [default: key].
    #[arg(long, value_enum)]
    pub granularity: Option<GranularityArg>,
    /// What a non-optional reference to a missing object or key gets [default: warn; env
    /// CONFIG_HASH_ON_MISSING].
    #[arg(long, value_enum)]
    pub on_missing: Option<OnMissingArg>,
    /// Give ConfigMaps and Secrets kustomize-compatible hashed names
    /// (--name-suffix=false turns off a config file's nameSuffix: true) [default: false].
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub name_suffix: Option<bool>,
    /// With --name-suffix, mark suffixed objects immutable (needs --name-suffix, or
    /// --name-suffix=false for objects that opt in one by one) [default: false].
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", requires = "name_suffix")]
    pub immutable: Option<bool>,
    /// For sources whose content changes outside git (ExternalSecret targets,
    /// SecretProviderClasses): none, or reloader to also write Reloader's explicit
    /// reload annotations listing exactly those [default: none].
    #[arg(long, value_enum)]
    pub runtime_reload: Option<RuntimeReloadArg>,
    /// Objects made at install time (by a Helm hook Job, an operator), which the input
    /// cannot hold: KIND/NAME or KIND/NAMESPACE/NAME, KIND being ConfigMap or Secret;
    /// repeat the flag or separate with commas. References to them are not reported
    /// missing.
    #[arg(long, value_name = "KIND/NAME", value_parser = install_time)]
    pub install_time: Vec<String>,
    /// The namespace objects written without one are installed into (Helm's release
    /// namespace, `kubectl apply -n NAME`): references are resolved as there. As a Helm
    /// post-renderer, pass the release's (--post-renderer-args --namespace=NAME)
    /// [default: none].
    #[arg(long, value_name = "NAME")]
    pub namespace: Option<String>,
    /// The GitOps tool that applies the output: every object given a hashed name gets
    /// what it needs to leave the old copies to `config-hash prune` (argocd: sync-options
    /// Prune=false and compare-options IgnoreExtraneous; flux: prune disabled)
    /// [default: none].
    #[arg(long, value_enum)]
    pub gitops: Option<GitOpsArg>,
    /// Stamp keyed hashes (HMAC-SHA256, `hmac-sha256:...`) with the key in FILE (one
    /// trailing newline is ignored). Also: env CONFIG_HASH_KEY_FILE, or the key itself in
    /// env CONFIG_HASH_KEY. Never put the key in the functionConfig.
    #[arg(long, value_name = "FILE")]
    pub key_file: Option<PathBuf>,
    /// The most all inputs together may hold (stdin, files, -c, the key file), in bytes
    /// or with K, M or G: a larger input is refused before it is read whole [default:
    /// 256M].
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::input::parse_size)]
    pub max_input_size: Option<u64>,
}

#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub config: ConfigArgs,
    /// Change nothing: list what is out of date and exit 3 if anything is.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false)]
    pub check: bool,
    /// Say on stderr where the input was read in bigger chunks than one item, and why.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false)]
    pub debug: bool,
    /// Write the stamped files back to themselves (only those that change) instead of to
    /// stdout, and print each file written: all of them or none (each is written to a
    /// temporary file beside it, and renamed over it once every one is written), keeping
    /// each file's mode and owner; a symbolic link is followed and stays a link.
    #[arg(long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false, requires = "files", conflicts_with = "check")]
    pub in_place: bool,
    #[command(flatten)]
    pub quiet: Quiet,
}

/// `-q`, the same for every command that reads manifests.
#[derive(Debug, Args)]
pub struct Quiet {
    /// Quiet: no summary line (on stderr, or the one a report opens or closes with) and
    /// no "up to date" from --check; warnings, errors and the output itself are still
    /// printed.
    #[arg(short, long, value_name = "BOOL", num_args = 0..=1, require_equals = true, default_missing_value = "true", default_value_t = false)]
    pub quiet: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum ModeArg {
    Annotation,
    Env,
    Both,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GranularityArg {
    Key,
    Object,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum RuntimeReloadArg {
    None,
    Reloader,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum GitOpsArg {
    Argocd,
    Flux,
    None,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum OnMissingArg {
    Warn,
    Error,
    Ignore,
}

/// `--install-time`, checked as a functionConfig's installTime is.
fn install_time(value: &str) -> Result<String, String> {
    config_hash::model::config::InstallTime::parse_list(value).map(|_| value.to_string())
}

impl ConfigFlags {
    /// The flags as typed configuration overrides.
    pub fn overrides(&self) -> Overrides {
        Overrides {
            mode: self.mode.map(|m| match m {
                ModeArg::Annotation => Mode::Annotation,
                ModeArg::Env => Mode::Env,
                ModeArg::Both => Mode::Both,
            }),
            annotation_key: self.annotation_key.clone(),
            env_name: self.env_name.clone(),
            granularity: self.granularity.map(|g| match g {
                GranularityArg::Key => Granularity::Key,
                GranularityArg::Object => Granularity::Object,
            }),
            on_missing: self.on_missing.map(|o| match o {
                OnMissingArg::Warn => OnMissing::Warn,
                OnMissingArg::Error => OnMissing::Error,
                OnMissingArg::Ignore => OnMissing::Ignore,
            }),
            name_suffix: self.name_suffix,
            immutable: self.immutable,
            namespace: self.namespace.clone(),
            install_time: (!self.install_time.is_empty()).then(|| {
                config_hash::model::config::InstallTime::parse_list(&self.install_time.join(","))
                    .expect("checked by clap")
            }),
            runtime_reload: self.runtime_reload.map(|r| match r {
                RuntimeReloadArg::None => RuntimeReload::None,
                RuntimeReloadArg::Reloader => RuntimeReload::Reloader,
            }),
            gitops: self.gitops.map(|g| match g {
                GitOpsArg::Argocd => Some(GitOps::ArgoCd),
                GitOpsArg::Flux => Some(GitOps::Flux),
                GitOpsArg::None => None,
            }),
        }
    }
}

/// What `prune` reads (see its help above).
#[derive(Debug, Args)]
pub struct PruneArgs {
    /// What is being applied now: files or directories (as a run reads them), or - for
    /// stdin. It is read as it is, not stamped: give the rendered output.
    #[arg(value_name = "RENDER", required = true)]
    pub render: Vec<PathBuf>,
    /// The live objects: `kubectl get ... -o yaml` (a List) or a stream, a file or -.
    #[arg(long, value_name = "DUMP")]
    pub live: PathBuf,
    /// Keep this many of the newest old versions of each base name.
    #[arg(long, value_name = "N", default_value_t = 2)]
    pub keep: usize,
    /// Output format: yaml and json are for `kubectl delete -f -`; table lists every
    /// old hashed object, deleted or kept, and why.
    #[arg(long, value_enum, default_value_t = PruneFormat::Yaml)]
    pub format: PruneFormat,
    /// A functionConfig file: its catalog rows (podReferences, references, ...) are
    /// reference sites too, and its namespace applies.
    #[arg(short, long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The namespace render objects written without one are applied to [default: an
    /// object of that name in any namespace].
    #[arg(long, value_name = "NAME")]
    pub namespace: Option<String>,
    #[command(flatten)]
    pub quiet: Quiet,
    /// The most all inputs together may hold (RENDER, --live, -c), in bytes or with K,
    /// M or G [default: 256M].
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::input::parse_size)]
    pub max_input_size: Option<u64>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PruneFormat {
    Yaml,
    Json,
    Table,
}
