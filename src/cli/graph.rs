//! `config-hash graph`: what each workload reads, as a table, JSON or DOT.

use std::process::ExitCode;

use config_hash::model::findings::Finding;
use config_hash::views::graph;

use super::args;
use super::exit::{leave, stream_stdout};
use super::hints::Use;
use super::host::Host;
use super::read::{read_invocation, unreadable};
use super::report::findings_on_stderr;

pub fn graph(format: args::GraphFormat, args: &args::ConfigArgs) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false, Use::View("graph")) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let mut resolved = match config_hash::resolve_run(read.package.joined(), &read.invocation) {
        Ok(resolved) => resolved,
        Err(e) => return unreadable(&read.package, &e),
    };
    // A source whose content cannot be read would show as found: graph fails as
    // `--check` does, with the error.
    resolved
        .results
        .retain(|r| matches!(*r.finding, Finding::Content(_)));
    if !resolved.results.is_empty() {
        resolved.exit_code = 1;
        findings_on_stderr(&mut resolved, &read.package, Host::detect(false));
        return ExitCode::FAILURE;
    }
    // The resolution owns what the graph shows: the input goes before the graph is
    // written, so that what writing gathers (the nodes) takes the input's place.
    let resolution = resolved.resolution;
    drop(read);
    let written = stream_stdout(|out| match format {
        args::GraphFormat::Table => graph::write_table(&resolution, out),
        args::GraphFormat::Json => graph::write_json(&resolution, out),
        args::GraphFormat::Dot => graph::write_dot(&resolution, out),
    });
    match written {
        Ok(()) => leave(0),
        Err(code) => code,
    }
}
