//! `config-hash prune`: the binary's edge of [`config_hash::prune`]: read the render and
//! the live dump, write what is safe to delete. It never talks to a cluster and never
//! deletes anything itself.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use config_hash::catalog::Catalog;
use config_hash::config::Overrides;
use config_hash::invocation::{InputConfig, Invocation};
use config_hash::prune;

use crate::{fail, input, usage, write_stdout};

/// What `prune` reads (see its help in `cli.rs`).
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
    pub quiet: crate::cli::Quiet,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum PruneFormat {
    Yaml,
    Json,
    Table,
}

fn read(path: &Path, stdin_taken: &mut bool) -> Result<Vec<(String, String)>, String> {
    if path == Path::new("-") {
        if std::mem::replace(stdin_taken, true) {
            return Err("only one of RENDER and --live can be - (stdin)".into());
        }
        return Ok(vec![("stdin".into(), input::read_stdin()?)]);
    }
    Ok(input::read_sources(&[path.to_path_buf()], &[])?
        .into_iter()
        .map(|s| (s.name(), s.text))
        .collect())
}

pub fn run(args: &PruneArgs) -> ExitCode {
    let mut stdin_taken = false;
    let mut render = Vec::new();
    for path in &args.render {
        match read(path, &mut stdin_taken) {
            Ok(texts) => render.extend(texts),
            Err(e) => return fail(e),
        }
    }
    let live = match read(&args.live, &mut stdin_taken) {
        Ok(texts) => texts,
        Err(e) => return fail(e),
    };
    // The one invocation a run would assemble from the same config file and flag.
    let mut invocation = Invocation {
        overrides: Overrides {
            namespace: args.namespace.clone(),
            ..Overrides::default()
        },
        ..Invocation::default()
    };
    if let Some(path) = &args.config {
        match input::read_file(path) {
            Ok(text) => invocation.config_text = Some(text),
            Err(e) => return fail(e),
        }
    }
    let config = match invocation.configure(InputConfig::None) {
        Ok(config) => config,
        Err(errors) => {
            let text: Vec<String> = errors
                .iter()
                .map(|e| match &e.field {
                    Some(field) => format!("{field}: {e}"),
                    None => e.to_string(),
                })
                .collect();
            return usage(text.join("\n"));
        }
    };
    let mut catalog = Catalog::builtin();
    catalog.extend(&config.catalog);
    let options = prune::Options {
        keep: args.keep,
        catalog,
        namespace: config.namespace,
    };
    let olds = match prune::plan(&render, &live, &options) {
        Ok(olds) => olds,
        Err(e) => return fail(e),
    };
    let text = match args.format {
        PruneFormat::Yaml => prune::to_yaml(&olds),
        PruneFormat::Json => prune::to_json(&olds),
        PruneFormat::Table => prune::to_table(&olds),
    };
    if let Err(code) = write_stdout(&text) {
        return code;
    }
    if !args.quiet.quiet {
        eprintln!("{}", prune::summary(&olds));
    }
    ExitCode::SUCCESS
}
