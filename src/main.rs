//! The binary: parse argv, read stdin, files or directories (`input.rs`), run the
//! library, write stdout, stderr or the files back, set the exit status. What config-hash
//! does to manifests lives in the library; this is only the edge.

mod cli;
mod input;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use config_hash::findings;
use config_hash::hashing::HashKey;
use config_hash::{Options, Prepared};

/// `--check` found something out of date.
const EXIT_STALE: u8 = 3;

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
        None => run(&cli.run),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
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
    let hash_key = match read_key(args.key_file.as_deref()) {
        Ok(key) => key,
        Err(e) => return fail(e),
    };
    let mut options = Options {
        overrides: args.overrides(),
        hash_key,
        ..Options::default()
    };
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
    // kustomize runs a legacy exec plugin with one argument: its config file.
    let mut paths = args.files.as_slice();
    if let [one] = paths {
        if options.config_text.is_none() && !args.in_place && one.is_file() {
            match input::read_file(one) {
                Ok(text) if config_hash::plugin::is_plugin_config(&text) => {
                    options.config_text = Some(text);
                    paths = &[];
                    // kustomize shows a plugin's stderr on every build: no summary.
                    quiet = true;
                }
                Ok(_) => {}
                Err(e) => return fail(e),
            }
        }
    }
    let package = match input::read_package(paths, &skip) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    if package.is_one_text() && !args.in_place {
        run_one_text(args, options, &package, quiet)
    } else {
        run_package(args, &options, &package, quiet)
    }
}

/// One text read whole: the library reads it directly, so a ResourceList stays a
/// ResourceList and the output is streamed.
fn run_one_text(
    args: &cli::RunArgs,
    mut options: Options,
    package: &input::Package,
    quiet: bool,
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
    let outcome = match prepared {
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
        return check(&outcome, &files);
    }
    if !outcome.resource_list {
        warn_about_config_lookalikes(&source.text);
        report(&outcome);
        // A pipe must not pass on manifests config-hash refused to stamp
        // (`| kubectl apply -f -` would apply them): nothing on stdout.
        if outcome.exit_code != 0 {
            return ExitCode::FAILURE;
        }
        if !quiet {
            summary(&outcome, None);
        }
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
    std::process::exit(outcome.exit_code)
}

/// Several texts (files, or JSON objects) read as one stream; the edits map back to
/// each text, which is written back (`--in-place`) or to stdout.
fn run_package(
    args: &cli::RunArgs,
    options: &Options,
    package: &input::Package,
    quiet: bool,
) -> ExitCode {
    let outcome = match config_hash::prepare_with_edits(package.joined(), options) {
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
        return check(&outcome, &files);
    }
    warn_about_config_lookalikes(package.joined());
    report(&outcome);
    if outcome.exit_code != 0 {
        return ExitCode::FAILURE;
    }
    if args.in_place {
        for (source, text) in &changed {
            let Some(path) = &source.path else { continue };
            if let Err(e) = input::write_atomically(path, text) {
                return fail(e);
            }
            println!("wrote {}", path.display());
        }
        if !quiet {
            summary(&outcome, Some(changed.len()));
        }
        return ExitCode::SUCCESS;
    }
    if !quiet {
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
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// Warnings and errors on stderr, for streams (a ResourceList carries them in `results`).
fn report(outcome: &Prepared<'_>) {
    for line in findings::stderr_lines(&outcome.results) {
        eprintln!("{line}");
    }
}

/// One line on stderr after a plain-stream run: what was stamped, renamed, warned about.
fn summary(outcome: &Prepared<'_>, written: Option<usize>) {
    if let Some(line) = findings::stderr_summary(&outcome.results, written) {
        eprintln!("{line}");
    }
}

/// `files`: the files that would change (when the input was files).
fn check(outcome: &Prepared<'_>, files: &[String]) -> ExitCode {
    report(outcome);
    if outcome.exit_code != 0 {
        return ExitCode::FAILURE;
    }
    let text = findings::check_report(&outcome.stale, files);
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

fn install_plugin(plugin_home: Option<PathBuf>) -> ExitCode {
    let xdg = std::env::var("XDG_CONFIG_HOME").ok();
    let home = std::env::var("HOME").ok();
    let Some(dest) = config_hash::plugin::plugin_path(plugin_home, xdg.as_deref(), home.as_deref())
    else {
        return fail("neither XDG_CONFIG_HOME nor HOME is set; pass --plugin-home DIR");
    };
    if let Err(e) = copy_self_to(&dest) {
        return fail(e);
    }
    println!("{}", dest.display());
    ExitCode::SUCCESS
}

/// Copies this executable to `dest` (creating its directory), executable.
fn copy_self_to(dest: &Path) -> Result<(), String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find this executable: {e}"))?;
    dest.parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::copy(&exe, dest).map(|_| ()))
        .map_err(|e| format!("cannot install to {}: {e}", dest.display()))?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dest, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| format!("cannot make {} executable: {e}", dest.display()))?;
    }
    Ok(())
}

fn install_helm_plugin(plugins_dir: Option<PathBuf>) -> ExitCode {
    let env = |k: &str| std::env::var(k).ok();
    let Some(dir) = config_hash::plugin::helm_plugins_dir(
        plugins_dir,
        env("HELM_PLUGINS").as_deref(),
        env("XDG_DATA_HOME").as_deref(),
        env("HOME").as_deref(),
    ) else {
        return fail(
            "none of HELM_PLUGINS, XDG_DATA_HOME, HOME is set; pass --plugins-dir \"$(helm env HELM_PLUGINS)\"",
        );
    };
    let plugin = dir.join(config_hash::plugin::HELM_PLUGIN_NAME);
    // A copy of the binary beside plugin.yaml: the plugin works whatever PATH Helm runs with.
    if let Err(e) = copy_self_to(&plugin.join("config-hash")) {
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
