//! The binary: parse argv, read stdin or files, run the library, write stdout and
//! stderr, set the exit status. All behaviour lives in the library.

mod cli;
mod input;

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser as _;
use config_hash::krm::Severity;
use config_hash::{Options, Prepared};

/// `--check` found something out of date.
const EXIT_STALE: u8 = 3;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match cli.command {
        Some(cli::Command::InstallKustomizePlugin { plugin_home }) => install_plugin(plugin_home),
        Some(cli::Command::InstallHelmPlugin { plugins_dir }) => install_helm_plugin(plugins_dir),
        Some(cli::Command::Graph { format, files }) => graph(format, &files),
        None => run(&cli.run),
    }
}

fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

fn read_stdin() -> Result<String, String> {
    let mut input = Vec::new();
    io::stdin()
        .read_to_end(&mut input)
        .map_err(|e| format!("cannot read stdin: {e}"))?;
    String::from_utf8(input)
        .map_err(|_| "stdin is not UTF-8 text (manifests are YAML or JSON)".to_string())
}

fn read_file(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))
}

/// Several files read as one stream, separated by `---`.
struct Joined {
    text: String,
    /// The 1-based line of the joined text where each file starts.
    starts: Vec<(usize, PathBuf)>,
}

impl Joined {
    /// Words an input error in terms of the file it is in.
    fn locate(&self, e: &config_hash::krm::InputError) -> String {
        match self.starts.iter().rev().find(|(start, _)| *start <= e.line) {
            Some((start, path)) if self.starts.len() > 1 => format!(
                "{}: line {} column {}: {}",
                path.display(),
                e.line - start + 1,
                e.column,
                e.message
            ),
            _ => e.to_string(),
        }
    }
}

fn read_files(files: &[PathBuf]) -> Result<Joined, String> {
    let mut joined = Joined {
        text: String::new(),
        starts: Vec::new(),
    };
    for (i, f) in files.iter().enumerate() {
        let content = read_file(f)?;
        if i > 0 {
            if !joined.text.ends_with('\n') {
                joined.text.push('\n');
            }
            joined.text.push_str("---\n");
        }
        let line = joined.text.bytes().filter(|&b| b == b'\n').count() + 1;
        joined.starts.push((line, f.clone()));
        joined.text.push_str(&content);
    }
    Ok(joined)
}

/// Reads FILES (or stdin when there are none).
fn read_input(files: &[PathBuf]) -> Result<Joined, String> {
    if files.is_empty() {
        read_stdin().map(|text| Joined {
            text,
            starts: Vec::new(),
        })
    } else {
        read_files(files)
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

fn run(args: &cli::RunArgs) -> ExitCode {
    let mut options = Options {
        overrides: args.overrides(),
        ..Options::default()
    };
    if let Some(path) = &args.config {
        match read_file(path) {
            Ok(text) => options.config_text = Some(text),
            Err(e) => return fail(e),
        }
    }
    // kustomize runs a legacy exec plugin with one argument: its config file.
    let input = match args.files.as_slice() {
        [one] if options.config_text.is_none() => match read_file(one) {
            Ok(text) if config_hash::plugin::is_plugin_config(&text) => {
                options.config_text = Some(text);
                read_input(&[])
            }
            Ok(_) => read_input(&args.files),
            Err(e) => Err(e),
        },
        files => read_input(files),
    };
    let input = match input {
        Ok(joined) => joined,
        Err(e) => return fail(e),
    };
    if input::is_blank(&input.text) {
        return fail(empty_input_message(&args.files));
    }
    let outcome = match config_hash::prepare(&input.text, &options) {
        Ok(o) => o,
        Err(e) => {
            return fail(format!(
                "input is not a readable ResourceList or manifest stream: {}",
                input.locate(&e)
            ));
        }
    };
    if args.check {
        return check(&outcome);
    }
    if !outcome.resource_list {
        report(&outcome);
        // A pipe must not pass on manifests config-hash refused to stamp
        // (`| kubectl apply -f -` would apply them): nothing on stdout.
        if outcome.exit_code != 0 {
            return ExitCode::FAILURE;
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
    // Everything is written: leave without freeing the input, the index and the results
    // one allocation at a time (a tenth of the run time on large inputs).
    std::process::exit(outcome.exit_code)
}

fn empty_input_message(files: &[PathBuf]) -> String {
    if files.is_empty() {
        "stdin holds no manifests (only whitespace or comments); did the command before the pipe fail?".to_string()
    } else {
        "the files named hold no manifests (only whitespace or comments)".to_string()
    }
}

/// Warnings and errors on stderr, for streams (a ResourceList carries them in `results`).
fn report(outcome: &Prepared<'_>) {
    for r in &outcome.results {
        if r.severity != Severity::Info {
            eprintln!("{}: {}", r.severity.as_str(), r.message);
        }
    }
}

fn check(outcome: &Prepared<'_>) -> ExitCode {
    report(outcome);
    if outcome.exit_code != 0 {
        return ExitCode::FAILURE;
    }
    if outcome.stale.is_empty() {
        println!("config-hash: up to date");
        return ExitCode::SUCCESS;
    }
    let mut text = String::new();
    for id in &outcome.stale {
        text.push_str(&format!("out of date: {id}\n"));
    }
    text.push_str(&format!(
        "config-hash: {} resource(s) out of date; run config-hash (or kpt fn render) and commit the result\n",
        outcome.stale.len()
    ));
    if let Err(code) = write_stdout(&text) {
        return code;
    }
    ExitCode::from(EXIT_STALE)
}

fn graph(format: cli::GraphFormat, files: &[PathBuf]) -> ExitCode {
    let input = match read_input(files) {
        Ok(joined) => joined,
        Err(e) => return fail(e),
    };
    if input::is_blank(&input.text) {
        return fail(empty_input_message(files));
    }
    let edges = match config_hash::graph(&input.text) {
        Ok(edges) => edges,
        Err(e) => {
            return fail(format!(
                "input is not a readable ResourceList or manifest stream: {}",
                input.locate(&e)
            ));
        }
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
