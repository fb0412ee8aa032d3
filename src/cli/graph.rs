//! `config-hash graph`: what each workload reads, as a table, JSON or DOT.

use std::process::ExitCode;

use config_hash::views::graph;

use super::args;
use super::exit::stream_stdout;
use super::hints::Use;
use super::read::{read_invocation, unreadable};

pub fn graph(format: args::GraphFormat, args: &args::ConfigArgs) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false, Use::View("graph")) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let resolution = match config_hash::resolve(read.package.joined(), &read.invocation) {
        Ok(r) => r,
        Err(e) => return unreadable(&read.package, &e),
    };
    let written = stream_stdout(|out| match format {
        args::GraphFormat::Table => graph::write_table(&resolution, out),
        args::GraphFormat::Json => graph::write_json(&resolution, out),
        args::GraphFormat::Dot => graph::write_dot(&resolution, out),
    });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
