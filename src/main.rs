//! The config-hash binary: the command line lives in `cli/`, the function in the library.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
