//! The binary: read stdin, run the library, write stdout, set the exit status.

mod cli;

use std::io::{self, Read, Write};
use std::process::ExitCode;

use clap::Parser as _;

fn main() -> ExitCode {
    let _cli = cli::Cli::parse();
    let mut input = Vec::new();
    if let Err(e) = io::stdin().read_to_end(&mut input) {
        eprintln!("config-hash: error: cannot read stdin: {e}");
        return ExitCode::FAILURE;
    }
    let Ok(text) = String::from_utf8(input) else {
        eprintln!("config-hash: error: stdin is not UTF-8 text (a ResourceList is YAML or JSON)");
        return ExitCode::FAILURE;
    };
    match config_hash::run_resource_list(&text) {
        Ok(outcome) => {
            if let Err(e) = io::stdout().lock().write_all(outcome.output.as_bytes()) {
                // A closed pipe (`| head`) is the reader's choice, not our failure.
                if e.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("config-hash: error: cannot write stdout: {e}");
                }
                return ExitCode::FAILURE;
            }
            ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1))
        }
        Err(e) => {
            eprintln!("config-hash: error: input is not a readable ResourceList: {e}");
            ExitCode::FAILURE
        }
    }
}
