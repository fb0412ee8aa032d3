//! The binary: parse argv, read stdin, files or directories (`input.rs`), run the
//! library, write stdout, stderr or the files back, set the exit status. What config-hash
//! does to manifests lives in the library; this is only the edge.

mod cli;
mod hints;
mod host;
mod input;
mod install;
mod prune_cmd;
mod report;
mod review;

use std::io::{self, IsTerminal as _, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory as _, Parser as _};
use config_hash::config::OnMissing;
use config_hash::findings;
use config_hash::hashing::HashKey;
use config_hash::{Invocation, Prepared};
use hints::{Use, generator_list, kustomize_function, mistyped_subcommand, stdin_is_a_terminal};
use host::Host;
use report::{Report, findings_on_stderr, summary};

/// `--check` found something out of date; a gate of `diff` or `audit --fail` failed.
const EXIT_STALE: u8 = 3;
/// A usage error: what clap exits with for an unknown flag or a bad value.
const EXIT_USAGE: u8 = 2;

/// `--on-missing` for hosts where flags are hard to reach: kustomize and Helm pass their
/// environment to the function, kpt `--env`, kustomize's `envs:`.
const ON_MISSING_ENV: &str = "CONFIG_HASH_ON_MISSING";

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli.command {
        Some(cli::Command::InstallKustomizePlugin { plugin_home }) => {
            install::kustomize_plugin(plugin_home)
        }
        Some(cli::Command::InstallHelmPlugin { plugins_dir, helm }) => {
            install::helm_plugin(plugins_dir, helm)
        }
        Some(cli::Command::Graph {
            format,
            config,
            quiet: _,
        }) => graph(format, &config),
        Some(cli::Command::Diff {
            before,
            after,
            format,
            max_rolls,
            allow_protected,
            flags,
            quiet,
        }) => review::diff(
            &before,
            &after,
            format,
            config_hash::diff::Gates {
                max_rolls,
                allow_protected,
            },
            &flags,
            quiet.quiet,
        ),
        Some(cli::Command::Audit {
            format,
            fail,
            config,
            quiet,
        }) => review::audit(format, fail, &config, quiet.quiet),
        Some(cli::Command::Prune(args)) => prune_cmd::run(&args),
        Some(cli::Command::Completions { shell }) => completions(shell),
        Some(cli::Command::Man { command, dir }) => man(command.as_deref(), dir.as_deref()),
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

/// What a run and `graph` read, and how: the invocation the library assembles the
/// configuration from, and the input.
struct Read {
    invocation: Invocation,
    package: input::Package,
    /// Run as kustomize's legacy exec plugin (config file as the only argument).
    plugin: bool,
    /// Warnings printed about the input itself (a Kustomization among it).
    warned: usize,
}

/// Reads the key, the config file (`-c`, a kpt package's Kptfile step, or the kustomize
/// plugin's file) and the input. `manifests`: the PATHs are manifests (files to write
/// back, one side of a diff), never a plugin's config. `using`: what the command does
/// with them, for the advice on a source that must be rendered first (a Helm chart; a
/// Kustomization under --check or --in-place).
fn read_invocation(
    files: &[PathBuf],
    args: &cli::ConfigFlags,
    manifests: bool,
    using: Use,
) -> Result<Read, ExitCode> {
    if let Some(code) = mistyped_subcommand(files) {
        return Err(code);
    }
    if let Some(chart) = input::charts(files).first() {
        return Err(hints::chart_source(chart, using));
    }
    let hash_key = read_key(args.key_file.as_deref()).map_err(fail)?;
    let mut invocation = Invocation {
        overrides: args.overrides(),
        hash_key,
        ..Invocation::default()
    };
    if invocation.overrides.on_missing.is_none() {
        invocation.overrides.on_missing = on_missing_from_env().map_err(usage)?;
    }
    // Files that are configuration, not manifests, even inside a directory read.
    let mut skip = Vec::new();
    if let Some(path) = &args.config {
        invocation.config_text = Some(input::read_file(path).map_err(fail)?);
        skip.push(path.clone());
    } else {
        let (config, configs) = input::kpt_config(files).map_err(fail)?;
        invocation.config_text = config;
        skip = configs;
    }
    // kustomize runs a legacy exec plugin with one argument: its config file.
    let mut paths = files;
    let mut plugin = false;
    if let [one] = paths {
        if invocation.config_text.is_none() && !manifests && one.is_file() {
            let text = input::read_file(one).map_err(fail)?;
            if config_hash::plugin::is_plugin_config(&text) {
                invocation.config_text = Some(text);
                paths = &[];
                plugin = true;
            }
        }
    }
    let under_kustomize = hints::under_kustomize();
    if !plugin {
        if let Some(code) = stdin_is_a_terminal(paths) {
            return Err(code);
        }
    } else if !under_kustomize && io::stdin().is_terminal() {
        // A config file given as the only PATH at a terminal: -c forgotten.
        return Err(hints::config_given_as_manifests(&files[0]));
    }
    let package = match input::read_package(paths, &skip) {
        Ok(p) => p,
        // kustomize runs a generator with its config and nothing on stdin.
        Err(_) if plugin && paths.is_empty() && under_kustomize => {
            return Err(fail(
                "kustomize ran config-hash with its ConfigHash config and no resources, as it runs a \
                 generator: list the config file under transformers:, not generators:, in the kustomization",
            ));
        }
        // Not kustomize: a config file and nothing piped in, -c forgotten.
        Err(_) if plugin && paths.is_empty() => {
            return Err(hints::config_given_as_manifests(&files[0]));
        }
        Err(e) => return Err(fail(e)),
    };
    if matches!(using, Use::Check | Use::InPlace) {
        if let Some(source) = package
            .sources
            .iter()
            .find(|s| s.path.is_some() && package.kustomizations().contains(&s.name()))
        {
            let path = source.path.as_deref().expect("a file");
            return Err(hints::kustomize_source(path, &source.text, using));
        }
    }
    let mut warned = 0;
    for kustomization in package.kustomizations() {
        warned += 1;
        eprintln!(
            "warning: {kustomization} is a Kustomization, which config-hash does not build: what its \
             generators make is not in the input, and the Kustomization is passed through as it is. \
             Build first (kubectl kustomize DIR | config-hash), or run config-hash as a kustomize \
             transformer (config-hash install-kustomize-plugin)"
        );
    }
    Ok(Read {
        invocation,
        package,
        plugin,
        warned,
    })
}

fn run(args: &cli::RunArgs) -> ExitCode {
    let using = if args.check {
        Use::Check
    } else if args.in_place {
        Use::InPlace
    } else {
        Use::Stamp
    };
    let read = match read_invocation(&args.config.files, &args.config.flags, args.in_place, using) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let report = Report {
        host: Host::detect(read.plugin),
        // Nobody reads a summary in a kustomize build.
        quiet: args.quiet.quiet || read.plugin,
        bad_flag: !read.invocation.overrides.problems().is_empty(),
        warned: read.warned,
    };
    if read.package.is_one_text() && !args.in_place {
        run_one_text(args, &read.invocation, &read.package, report)
    } else {
        run_package(args, &read.invocation, &read.package, report)
    }
}

/// One text read whole: the library reads it directly, so a ResourceList stays a
/// ResourceList and the output is streamed.
fn run_one_text(
    args: &cli::RunArgs,
    invocation: &Invocation,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let source = &package.sources[0];
    let prepared = if args.check {
        config_hash::check(&source.text, invocation)
    } else {
        config_hash::prepare(&source.text, invocation)
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
            summary(&outcome, &report, None);
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
    invocation: &Invocation,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let mut outcome = match config_hash::prepare_with_edits(package.joined(), invocation) {
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
            summary(&outcome, &report, Some(changed.len()));
        }
        return ExitCode::SUCCESS;
    }
    if !report.quiet {
        summary(&outcome, &report, None);
    }
    let mut text = String::new();
    let mut line_break = "\n";
    for (source, edits) in package.sources.iter().zip(&edits) {
        if !text.is_empty() {
            // The separator takes the line breaks of the file before it.
            if !text.ends_with('\n') {
                text.push_str(line_break);
            }
            text.push_str("---");
            text.push_str(line_break);
        }
        text.push_str(&input::apply(&source.text, edits));
        line_break = if source.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
    }
    if report.host.keeps_comments() {
        text = host::with_comments(&text, &lines);
    }
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
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

fn graph(format: cli::GraphFormat, args: &cli::ConfigArgs) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false, Use::View("graph")) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let edges = match config_hash::graph(read.package.joined(), &read.invocation) {
        Ok(edges) => edges,
        Err(e) => return unreadable(&read.package, &e),
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

/// `config-hash man [COMMAND] [--dir DIR]`: the manual pages, from the same definitions
/// as `--help`: config-hash's own, or one command's (`config-hash-diff(1)`, the name the
/// pages refer to each other by), or every page written into DIR.
fn man(command: Option<&str>, dir: Option<&Path>) -> ExitCode {
    // As clap_mangen builds its pages: each command's page under its full name, and no
    // page for clap's `help` command (--help is on every page).
    let mut root = cli::Cli::command().disable_help_subcommand(true);
    root.build();
    if let Some(dir) = dir {
        if let Err(e) = std::fs::create_dir_all(dir) {
            return fail(format!("cannot create {}: {e}", dir.display()));
        }
        let pages = std::iter::once(root.clone()).chain(root.get_subcommands().cloned());
        for page in pages {
            match clap_mangen::Man::new(page).generate_to(dir) {
                Ok(path) => println!("{}", path.display()),
                Err(e) => {
                    return fail(format!(
                        "cannot write a manual page into {}: {e}",
                        dir.display()
                    ));
                }
            }
        }
        return ExitCode::SUCCESS;
    }
    let page = match command {
        None => root,
        Some(name) => match root.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = root.get_subcommands().map(|s| s.get_name()).collect();
                return usage(format!(
                    "no command {name:?}; the pages are config-hash's own and: {}",
                    names.join(", ")
                ));
            }
        },
    };
    let mut text = Vec::new();
    if let Err(e) = clap_mangen::Man::new(page).render(&mut text) {
        return fail(format!("cannot render the manual page: {e}"));
    }
    match write_stdout(&String::from_utf8_lossy(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
