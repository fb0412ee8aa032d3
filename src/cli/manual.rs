//! Shell completions and the manual page, from the same definitions as `--help`.

use std::process::ExitCode;

use clap::CommandFactory as _;

use super::args;
use super::exit::{fail, write_stdout};

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

/// `config-hash man`: the manual page, from the same definitions as `--help`.
pub fn man() -> ExitCode {
    let mut text = Vec::new();
    if let Err(e) = clap_mangen::Man::new(args::Cli::command()).render(&mut text) {
        return fail(format!("cannot render the manual page: {e}"));
    }
    match write_stdout(&String::from_utf8_lossy(&text)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
