//! `config-hash prune`: the binary's edge of [`config_hash::views::prune`]: read the render and
//! the live dump, write what is safe to delete. It never talks to a cluster and never
//! deletes anything itself.

use std::path::Path;
use std::process::ExitCode;

use config_hash::model::config::Overrides;
use config_hash::model::invocation::{InputConfig, Invocation};
use config_hash::views::prune;

use super::args::{PruneArgs, PruneFormat};
use super::exit::{fail, usage, write_stdout};
use super::input;

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
    if let Some(limit) = args.max_input_size {
        input::set_max_input_size(limit);
    }
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
    let settings = match invocation.settings(InputConfig::None) {
        Ok(settings) => settings,
        Err(errors) => {
            let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
            return usage(text.join("\n"));
        }
    };
    let options = prune::Options {
        keep: args.keep,
        settings,
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
