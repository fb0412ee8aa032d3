//! `config-hash graph`: what each workload reads, as a table, JSON or DOT.

use std::process::ExitCode;

use super::args;
use super::exit::write_stdout;
use super::hints::Use;
use super::read::{read_invocation, unreadable};

pub fn graph(format: args::GraphFormat, args: &args::ConfigArgs) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false, Use::View("graph")) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let edges = match config_hash::graph(read.package.joined(), &read.invocation) {
        Ok(edges) => edges,
        Err(e) => return unreadable(&read.package, &e),
    };
    let text = match format {
        args::GraphFormat::Table => config_hash::views::graph::render_table(&edges),
        args::GraphFormat::Json => config_hash::views::graph::render_json(&edges),
        args::GraphFormat::Dot => config_hash::views::graph::render_dot(&edges),
    };
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}
