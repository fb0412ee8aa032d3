//! The binary: parse argv, read stdin, files or directories (`input.rs`), run the
//! library, write stdout, stderr or the files back, set the exit status. What config-hash
//! does to manifests lives in the library; this is only the edge.

mod cli;
mod host;
mod input;
mod install;

use std::io::{self, IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser as _};
use config_hash::config::OnMissing;
use config_hash::findings::{self, Finding};
use config_hash::hashing::HashKey;
use config_hash::krm::Severity;
use config_hash::{Options, Prepared};
use host::Host;

/// `--check` found something out of date.
const EXIT_STALE: u8 = 3;
/// A usage error: what clap exits with for an unknown flag or a bad value.
const EXIT_USAGE: u8 = 2;

/// `--on-missing` for hosts where flags are hard to reach: kustomize and Helm pass their
/// environment to the function, kpt `--env`, kustomize's `envs:`.
const ON_MISSING_ENV: &str = "CONFIG_HASH_ON_MISSING";

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli.command {
        Some(cli::Command::InstallKustomizePlugin { plugin_home }) => install_plugin(plugin_home),
        Some(cli::Command::InstallHelmPlugin { plugins_dir }) => install_helm_plugin(plugins_dir),
        Some(cli::Command::Graph {
            format,
            files,
            config,
            name_suffix,
        }) => graph(format, &files, config.as_deref(), name_suffix),
        Some(cli::Command::Completions { shell }) => completions(shell),
        Some(cli::Command::Man) => man(),
        None => run(&cli.run),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// A usage error (exit 2), worded as clap words its own.
fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}\n\nFor more information, try '--help'.");
    ExitCode::from(EXIT_USAGE)
}

/// Before reading stdin: a terminal there means nobody piped anything in, and reading
/// would wait for the user to type manifests.
fn stdin_is_a_terminal(paths: &[PathBuf]) -> Option<ExitCode> {
    (paths.is_empty() && io::stdin().is_terminal()).then(|| {
        usage(
            "config-hash reads manifests or a ResourceList on stdin, and stdin is a terminal: \
             pipe them in (kubectl kustomize DIR | config-hash), or name files or directories \
             (config-hash manifests/)",
        )
    })
}

/// A PATH that does not exist but is spelled like a subcommand (`grpah`): say so.
fn mistyped_subcommand(paths: &[PathBuf]) -> Option<ExitCode> {
    let first = paths.first()?;
    let word = first.to_str()?;
    if first.exists() || word.contains(['/', '.', '\\']) {
        return None;
    }
    let command = cli::Cli::command();
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

/// The `--on-missing` of the environment (`CONFIG_HASH_ON_MISSING`), for a run whose
/// flags do not set it.
fn on_missing_from_env() -> Result<Option<OnMissing>, String> {
    let Some(value) = std::env::var_os(ON_MISSING_ENV) else {
        return Ok(None);
    };
    match value.to_str() {
        Some("warn") => Ok(Some(OnMissing::Warn)),
        Some("error") => Ok(Some(OnMissing::Error)),
        Some("ignore") => Ok(Some(OnMissing::Ignore)),
        Some("") => Ok(None),
        _ => Err(format!(
            "{ON_MISSING_ENV}={value:?} is not one of warn, error, ignore"
        )),
    }
}

fn write_stdout(text: &str) -> Result<(), ExitCode> {
    match io::stdout().lock().write_all(text.as_bytes()) {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => Err(fail(format!("cannot write stdout: {e}"))),
    }
}

/// The HMAC key: `--key-file`, else env `CONFIG_HASH_KEY_FILE`, else env
/// `CONFIG_HASH_KEY`; `None` when none is set. Messages never show key bytes.
fn read_key(key_file: Option<&Path>) -> Result<Option<HashKey>, String> {
    let file = key_file
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("CONFIG_HASH_KEY_FILE").map(PathBuf::from));
    let (bytes, from) = match file {
        Some(path) => {
            let mut bytes = std::fs::read(&path)
                .map_err(|e| format!("cannot read the key file {}: {e}", path.display()))?;
            // `echo key > file` and most secret mounts end in a newline that is not key.
            if bytes.ends_with(b"\n") {
                bytes.pop();
                if bytes.ends_with(b"\r") {
                    bytes.pop();
                }
            }
            (bytes, format!("the key file {}", path.display()))
        }
        None => match std::env::var_os("CONFIG_HASH_KEY") {
            Some(v) => (v.into_encoded_bytes(), "CONFIG_HASH_KEY".to_string()),
            None => return Ok(None),
        },
    };
    HashKey::new(bytes)
        .map(Some)
        .ok_or_else(|| format!("{from} is empty: an empty key protects nothing (give a key, or unset it for unkeyed hashes)"))
}

fn unreadable(package: &input::Package, e: &config_hash::krm::InputError) -> ExitCode {
    let place = if package.is_one_text() && package.sources[0].path.is_none() {
        format!("line {} column {}", e.line, e.column)
    } else {
        package.locate(e.line, e.column)
    };
    fail(format!(
        "input is not a readable ResourceList or manifest stream: {place}: {}",
        e.message
    ))
}

/// A ConfigHash object (or a ConfigMap that looks like config-hash's functionConfig)
/// among plain manifests is passed through, not used: the user most likely forgot `-c`.
fn warn_about_config_lookalikes(text: &str) {
    for name in input::config_lookalikes(text) {
        eprintln!(
            "warning: {name} is among the manifests, so it is passed through and not used as configuration; pass it with -c FILE (config-hash -c FILE manifests...)"
        );
    }
}

fn run(args: &cli::RunArgs) -> ExitCode {
    if let Some(code) = mistyped_subcommand(&args.files) {
        return code;
    }
    let hash_key = match read_key(args.key_file.as_deref()) {
        Ok(key) => key,
        Err(e) => return fail(e),
    };
    let mut options = Options {
        overrides: args.overrides(),
        hash_key,
        ..Options::default()
    };
    if options.overrides.on_missing.is_none() {
        match on_missing_from_env() {
            Ok(v) => options.overrides.on_missing = v,
            Err(e) => return usage(e),
        }
    }
    // Files that are configuration, not manifests, even inside a directory read.
    let mut skip = Vec::new();
    if let Some(path) = &args.config {
        match input::read_file(path) {
            Ok(text) => options.config_text = Some(text),
            Err(e) => return fail(e),
        }
        skip.push(path.clone());
    } else {
        match input::kpt_config(&args.files) {
            Ok((config, configs)) => {
                options.config_text = config;
                skip = configs;
            }
            Err(e) => return fail(e),
        }
    }
    let mut quiet = args.quiet;
    let mut kustomize_plugin = false;
    // kustomize runs a legacy exec plugin with one argument: its config file.
    let mut paths = args.files.as_slice();
    if let [one] = paths {
        if options.config_text.is_none() && !args.in_place && one.is_file() {
            match input::read_file(one) {
                Ok(text) if config_hash::plugin::is_plugin_config(&text) => {
                    options.config_text = Some(text);
                    paths = &[];
                    // Nobody reads a summary in a kustomize build.
                    quiet = true;
                    kustomize_plugin = true;
                }
                Ok(_) => {}
                Err(e) => return fail(e),
            }
        }
    }
    if !kustomize_plugin {
        if let Some(code) = stdin_is_a_terminal(paths) {
            return code;
        }
    }
    let package = match input::read_package(paths, &skip) {
        Ok(p) => p,
        // kustomize runs a generator with its config and nothing on stdin.
        Err(_) if kustomize_plugin && paths.is_empty() => {
            return fail(
                "kustomize ran config-hash with its ConfigHash config and no resources, as it runs a \
                 generator: list the config file under transformers:, not generators:, in the kustomization",
            );
        }
        Err(e) => return fail(e),
    };
    for kustomization in package.kustomizations() {
        eprintln!(
            "warning: {kustomization} is a Kustomization, which config-hash does not build: what its \
             generators make is not in the input, and the Kustomization is passed through as it is. \
             Build first (kubectl kustomize DIR | config-hash), or run config-hash as a kustomize \
             transformer (config-hash install-kustomize-plugin)"
        );
    }
    let report = Report {
        host: Host::detect(kustomize_plugin),
        quiet,
        bad_flag: !options.overrides.problems().is_empty(),
    };
    if package.is_one_text() && !args.in_place {
        run_one_text(args, options, &package, report)
    } else {
        run_package(args, &options, &package, report)
    }
}

/// Who sees config-hash's messages, whether it should be brief, and how it fails.
#[derive(Debug, Clone, Copy)]
struct Report {
    host: Host,
    quiet: bool,
    /// A flag has a bad value: the run still reports every configuration problem at
    /// once, then exits 2 (a usage error) rather than 1.
    bad_flag: bool,
}

impl Report {
    fn failure(self) -> ExitCode {
        if self.bad_flag {
            ExitCode::from(EXIT_USAGE)
        } else {
            ExitCode::FAILURE
        }
    }
}

/// One text read whole: the library reads it directly, so a ResourceList stays a
/// ResourceList and the output is streamed.
fn run_one_text(
    args: &cli::RunArgs,
    mut options: Options,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let source = &package.sources[0];
    if options.config_text.is_none() {
        match input::resource_list_kptfile_config(&source.text) {
            Ok(config) => options.config_text = config,
            Err(e) => return fail(e),
        }
    }
    let prepared = if args.check {
        config_hash::check(&source.text, &options)
    } else {
        config_hash::prepare(&source.text, &options)
    };
    let mut outcome = match prepared {
        Ok(o) => o,
        Err(e) => return unreadable(package, &e),
    };
    if args.debug {
        for why in &outcome.coarser {
            eprintln!("debug: {why}");
        }
        if outcome.coarser.is_empty() {
            eprintln!("debug: every item was read as its own chunk");
        }
    }
    if args.check {
        let file = source.path.as_ref().filter(|_| !outcome.stale.is_empty());
        let files: Vec<String> = file.map(|p| p.display().to_string()).into_iter().collect();
        return check(&mut outcome, package, report, &files);
    }
    let mut comments = Vec::new();
    if !outcome.resource_list {
        warn_about_config_lookalikes(&source.text);
        let lines = findings_on_stderr(&mut outcome, package, report.host);
        // A pipe must not pass on manifests config-hash refused to stamp
        // (`| kubectl apply -f -` would apply them): nothing on stdout.
        if outcome.exit_code != 0 {
            return report.failure();
        }
        if report.host.keeps_comments() {
            comments = lines;
        }
        if !report.quiet {
            summary(&outcome, None);
        }
    } else if kustomize_function(&source.text) {
        // kustomize ignores results: what they say goes to stderr, which it shows.
        findings_on_stderr(&mut outcome, package, report.host);
    } else if generator_list(&source.text) {
        eprintln!(
            "warning: the ResourceList holds no items and its functionConfig is a ConfigHash: kustomize \
             runs a function so when it is listed under generators:; list it under transformers:"
        );
    }
    if !comments.is_empty() {
        // Under Helm, which holds the whole output anyway.
        let mut text = Vec::new();
        if let Err(e) = outcome.write_to(&mut text) {
            return fail(format!("cannot write the output: {e}"));
        }
        let text = host::with_comments(&String::from_utf8_lossy(&text), &comments);
        return match write_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        };
    }
    // Streamed: a large output is never held in memory whole.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    if let Err(e) = outcome.write_to(&mut out).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        if e.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        return fail(format!("cannot write stdout: {e}"));
    }
    // Everything is written: leave without freeing the input, the index and the
    // results one allocation at a time (a tenth of the run time on large inputs).
    let code = if outcome.exit_code != 0 && report.bad_flag {
        i32::from(EXIT_USAGE)
    } else {
        outcome.exit_code
    };
    std::process::exit(code)
}

/// Several texts (files, or JSON objects) read as one stream; the edits map back to
/// each text, which is written back (`--in-place`) or to stdout.
fn run_package(
    args: &cli::RunArgs,
    options: &Options,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let mut outcome = match config_hash::prepare_with_edits(package.joined(), options) {
        Ok(o) => o,
        Err(e) => return unreadable(package, &e),
    };
    if outcome.resource_list {
        return fail(
            "a ResourceList is read alone (on stdin, or as the only file), not among other files",
        );
    }
    let edits = match package.map_edits(&outcome.item_edits) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let changed: Vec<(&input::Source, String)> = package
        .sources
        .iter()
        .zip(&edits)
        .filter(|(_, e)| !e.is_empty())
        .map(|(source, e)| (source, input::apply(&source.text, e)))
        .filter(|(source, text)| *text != source.text)
        .collect();
    if args.check {
        let files: Vec<String> = changed
            .iter()
            .filter_map(|(s, _)| s.path.as_ref())
            .map(|p| p.display().to_string())
            .collect();
        return check(&mut outcome, package, report, &files);
    }
    warn_about_config_lookalikes(package.joined());
    let lines = findings_on_stderr(&mut outcome, package, report.host);
    if outcome.exit_code != 0 {
        return report.failure();
    }
    if args.in_place {
        for (source, text) in &changed {
            let Some(path) = &source.path else { continue };
            if let Err(e) = input::write_atomically(path, text) {
                return fail(e);
            }
            println!("wrote {}", path.display());
        }
        if !report.quiet {
            summary(&outcome, Some(changed.len()));
        }
        return ExitCode::SUCCESS;
    }
    if !report.quiet {
        summary(&outcome, None);
    }
    let mut text = String::new();
    for (source, edits) in package.sources.iter().zip(&edits) {
        if !text.is_empty() {
            if !text.ends_with('\n') {
                text.push('\n');
            }
            text.push_str("---\n");
        }
        text.push_str(&input::apply(&source.text, edits));
    }
    if report.host.keeps_comments() {
        text = host::with_comments(&text, &lines);
    }
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Warnings and errors on stderr, for streams (a ResourceList carries them in `results`),
/// each naming the file and line of its resource when the input was files; and on the
/// terminal too when the host hides stderr. Returns the lines.
fn findings_on_stderr(
    outcome: &mut Prepared<'_>,
    package: &input::Package,
    host: Host,
) -> Vec<String> {
    let reported = |r: &config_hash::krm::KrmResult| r.severity != Severity::Info;
    if !outcome.results.iter().any(reported) {
        return Vec::new();
    }
    let places = package.places();
    let joined = !package.is_one_text();
    let mut lines = Vec::new();
    for result in outcome.results.iter_mut().filter(|r| reported(r)) {
        let mut place = None;
        // A position in the joined text of several files: the file's own line.
        if let Finding::NotStamped { line, .. } | Finding::CannotRename { line, .. } =
            &mut *result.finding
        {
            if let Some((source, own)) = package.source_line(*line) {
                if joined {
                    *line = own;
                }
                place = source
                    .path
                    .as_ref()
                    .map(|p| format!("{}:{own}", p.display()));
            }
        }
        if place.is_none() {
            place = result.resource.as_ref().and_then(|id| {
                places
                    .get(&(id.kind.clone(), id.namespace.clone(), id.name.clone()))
                    .cloned()
            });
        }
        let Some(line) = findings::stderr_lines(std::slice::from_ref(result)).next() else {
            continue;
        };
        let line = match (place, line.split_once(": ")) {
            (Some(place), Some((severity, rest))) => format!("{severity}: {place}: {rest}"),
            _ => line,
        };
        eprintln!("{line}");
        lines.push(line);
    }
    if !host.shows_stderr(outcome.exit_code == 0) {
        host::to_terminal(&lines);
    }
    lines
}

/// A ResourceList from kustomize (its items carry kustomize's resource ids): kustomize
/// ignores `results`.
fn kustomize_function(text: &str) -> bool {
    text.contains("kustomize.config.k8s.io/id")
}

/// A ResourceList with no items whose functionConfig is a ConfigHash: what kustomize
/// sends a KRM function listed under `generators:`.
fn generator_list(text: &str) -> bool {
    // Such a list is small; a large input is never read again for this.
    if text.len() > 1 << 16 || !text.contains("ConfigHash") {
        return false;
    }
    let Ok(tree) = config_hash::yaml::Tree::parse(text.trim_start_matches('\u{feff}')) else {
        return false;
    };
    let Some(root) = tree.docs.first().map(|d| d.root) else {
        return false;
    };
    let str_at = |path: &[&str]| tree.get_path(root, path).and_then(|n| tree.str(n));
    let no_items = tree
        .get(root, "items")
        .is_none_or(|i| tree.is_null(i) || (tree.is_seq(i) && tree.items(i).is_empty()));
    str_at(&["kind"]) == Some("ResourceList")
        && no_items
        && str_at(&["functionConfig", "kind"]) == Some(config_hash::config::CONFIG_KIND)
}

/// One line on stderr after a plain-stream run: what was stamped, renamed, warned about.
fn summary(outcome: &Prepared<'_>, written: Option<usize>) {
    if let Some(line) = findings::stderr_summary(&outcome.results, written) {
        eprintln!("{line}");
    }
}

/// `files`: the files that would change (when the input was files).
fn check(
    outcome: &mut Prepared<'_>,
    package: &input::Package,
    report: Report,
    files: &[String],
) -> ExitCode {
    findings_on_stderr(outcome, package, report.host);
    if outcome.exit_code != 0 {
        return report.failure();
    }
    let mut text = findings::check_report(&outcome.stale, files);
    if report.quiet {
        // What is out of date, without "up to date" or the closing advice.
        text = text
            .lines()
            .filter(|l| !l.starts_with("config-hash: "))
            .map(|l| format!("{l}\n"))
            .collect();
    }
    if outcome.stale.is_empty() {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    if let Err(code) = write_stdout(&text) {
        return code;
    }
    ExitCode::from(EXIT_STALE)
}

fn graph(
    format: cli::GraphFormat,
    files: &[PathBuf],
    config: Option<&Path>,
    name_suffix: bool,
) -> ExitCode {
    let mut options = Options::default();
    if let Some(path) = config {
        match std::fs::read_to_string(path) {
            Ok(text) => options.config_text = Some(text),
            Err(e) => return fail(format!("cannot read {}: {e}", path.display())),
        }
    }
    if name_suffix {
        options.overrides.name_suffix = Some(true);
    }
    if let Some(code) = stdin_is_a_terminal(files) {
        return code;
    }
    let package = match input::read_package(files, &[]) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let edges = match config_hash::graph(package.joined(), &options) {
        Ok(edges) => edges,
        Err(e) => return unreadable(&package, &e),
    };
    let text = match format {
        cli::GraphFormat::Table => config_hash::graph::render_table(&edges),
        cli::GraphFormat::Json => config_hash::graph::render_json(&edges),
        cli::GraphFormat::Dot => config_hash::graph::render_dot(&edges),
    };
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `config-hash completions SHELL`: clap_complete's script for the whole command line.
fn completions(shell: cli::Shell) -> ExitCode {
    let shell = match shell {
        cli::Shell::Bash => clap_complete::Shell::Bash,
        cli::Shell::Zsh => clap_complete::Shell::Zsh,
        cli::Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut cli::Cli::command(), "config-hash", &mut text);
    match write_stdout(&String::from_utf8_lossy(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `config-hash man`: the manual page, from the same definitions as `--help`.
fn man() -> ExitCode {
    let mut text = Vec::new();
    if let Err(e) = clap_mangen::Man::new(cli::Cli::command()).render(&mut text) {
        return fail(format!("cannot render the manual page: {e}"));
    }
    match write_stdout(&String::from_utf8_lossy(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

fn install_plugin(plugin_home: Option<PathBuf>) -> ExitCode {
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let home = std::env::var("HOME").ok();
    let Some(dest) = config_hash::plugin::plugin_path(plugin_home, xdg.as_deref(), home.as_deref())
    else {
        return fail("neither XDG_CONFIG_HOME nor HOME is set; pass --plugin-home DIR");
    };
    if let Err(e) = install::link_self_to(&dest) {
        return fail(e);
    }
    println!("{}", dest.display());
    ExitCode::SUCCESS
}

fn install_helm_plugin(plugins_dir: Option<PathBuf>) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let chosen = plugins_dir.is_some();
    let Some(mut dir) = config_hash::plugin::helm_plugins_dir(
        plugins_dir,
        env("HELM_PLUGINS").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    ) else {
        return fail(
            "none of HELM_PLUGINS, XDG_DATA_HOME, HOME is set; pass --plugins-dir \"$(helm env HELM_PLUGINS)\"",
        );
    };
    // Helm 3 cannot load a Helm 4 plugin and then fails every plugin command.
    if let Some((helm3, version)) = install::helm3_reading(&dir) {
        if chosen {
            eprintln!(
                "warning: Helm {version} ({}) reads plugins from {} too and cannot load a Helm 4 plugin: \
                 its plugin commands will fail",
                helm3.display(),
                dir.display()
            );
        } else {
            let shared = dir;
            dir = install::helm4_only_dir(&shared);
            eprintln!(
                "config-hash: Helm {version} ({}) reads plugins from {} and cannot load a Helm 4 plugin, \
                 so the plugin goes to {} instead. Run Helm 4 with HELM_PLUGINS={}:{} (for example \
                 alias helm4='HELM_PLUGINS={}:{} helm4')",
                helm3.display(),
                shared.display(),
                dir.display(),
                dir.display(),
                shared.display(),
                dir.display(),
                shared.display(),
            );
        }
    }
    let plugin = dir.join(config_hash::plugin::HELM_PLUGIN_NAME);
    // A link to this binary beside plugin.yaml: the plugin works whatever PATH Helm runs
    // with, and upgrading the binary upgrades it.
    if let Err(e) = install::link_self_to(&plugin.join("config-hash")) {
        return fail(e);
    }
    let yaml = config_hash::plugin::helm_plugin_yaml("${HELM_PLUGIN_DIR}/config-hash");
    let manifest = plugin.join("plugin.yaml");
    if let Err(e) = std::fs::write(&manifest, yaml) {
        return fail(format!("cannot write {}: {e}", manifest.display()));
    }
    println!("{}", plugin.display());
    ExitCode::SUCCESS
}
