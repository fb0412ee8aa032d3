//! The binary: parse argv, read stdin, files or directories (`input.rs`), run the
//! library, write stdout, stderr or the files back, set the exit status. What config-hash
//! does to manifests lives in the library; this is only the edge.

mod args;
mod exit;
mod graph;
mod hints;
mod host;
mod input;
mod install;
mod manual;
mod plugin;
mod prune;
mod read;
mod report;
mod review;
mod stamp;

use std::process::ExitCode;

use clap::Parser as _;

pub fn main() -> ExitCode {
    let cli = args::Cli::parse();
    match cli.command {
        Some(args::Command::InstallKustomizePlugin { plugin_home }) => {
            install::kustomize_plugin(plugin_home)
        }
        Some(args::Command::InstallHelmPlugin { plugins_dir, helm }) => {
            install::helm_plugin(plugins_dir, helm)
        }
        Some(args::Command::Graph {
            format,
            config,
            quiet: _,
        }) => graph::graph(format, &config),
        Some(args::Command::Diff {
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
            config_hash::views::diff::Gates {
                max_rolls,
                allow_protected,
            },
            &flags,
            quiet.quiet,
        ),
        Some(args::Command::Audit {
            format,
            fail,
            config,
            quiet,
        }) => review::audit(format, fail, &config, quiet.quiet),
        Some(args::Command::Prune(args)) => prune::run(&args),
        Some(args::Command::Completions { shell }) => manual::completions(shell),
        Some(args::Command::Man { command, dir }) => {
            manual::man(command.as_deref(), dir.as_deref())
        }
        None => stamp::run(&cli.run),
    }
}
