//! Shell completions and the manual pages, from the same definitions as `--help`.

use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory as _;

use super::args;
use super::exit::{fail, usage, write_stdout};

/// `config-hash completions SHELL`: clap_complete's script for the whole command line.
pub fn completions(shell: args::Shell) -> ExitCode {
    let shell = match shell {
        args::Shell::Bash => clap_complete::Shell::Bash,
        args::Shell::Zsh => clap_complete::Shell::Zsh,
        args::Shell::Fish => clap_complete::Shell::Fish,
    };
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut args::Cli::command(), "config-hash", &mut text);
    match write_stdout(&String::from_utf8_lossy(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `config-hash man [COMMAND] [--dir DIR]`: the manual pages, from the same definitions
/// as `--help`: config-hash's own, or one command's (`config-hash-diff(1)`, the name the
/// pages refer to each other by), or every page written into DIR.
pub fn man(command: Option<&str>, dir: Option<&Path>) -> ExitCode {
    // As clap_mangen builds its pages: each command's page under its full name, and no
    // page for clap's `help` command (--help is on every page).
    let mut root = args::Cli::command().disable_help_subcommand(true);
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
