//! How the binary ends: exit statuses, errors and usage errors on stderr, and stdout
//! written without failing on a reader that closed the pipe.

use std::io::{self, Write};
use std::process::ExitCode;

/// `--check` found something out of date; a gate of `diff` or `audit --fail` failed.
pub const EXIT_STALE: u8 = 3;
/// A usage error: what clap exits with for an unknown flag or a bad value.
pub const EXIT_USAGE: u8 = 2;

/// Ends the process once everything is written, without freeing what it read and
/// worked out one allocation at a time: the input, the index, the resolution and the
/// results of a large run are hundreds of thousands of allocations, freed on one thread
/// after the work is done (a tenth of a large run's time). Only for the end of a command
/// whose output is flushed.
pub fn leave(code: i32) -> ! {
    std::process::exit(code)
}

pub fn fail(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

/// A usage error (exit 2), worded as clap words its own.
pub fn usage(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}\n\nFor more information, try '--help'.");
    ExitCode::from(EXIT_USAGE)
}

pub fn write_stdout(text: &str) -> Result<(), ExitCode> {
    let mut out = io::stdout().lock();
    written(out.write_all(text.as_bytes()).and_then(|()| out.flush()))
}

/// Writes a view to stdout as it is made, through a buffer.
pub fn stream_stdout(
    write: impl FnOnce(&mut io::BufWriter<io::StdoutLock<'static>>) -> io::Result<()>,
) -> Result<(), ExitCode> {
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    written(write(&mut out).and_then(|()| out.flush()))
}

fn written(result: io::Result<()>) -> Result<(), ExitCode> {
    match result {
        Ok(()) => Ok(()),
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Err(ExitCode::SUCCESS),
        Err(e) => Err(fail(format!("cannot write stdout: {e}"))),
    }
}
