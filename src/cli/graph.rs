//! `config-hash graph`: what each workload reads, as a table, JSON or DOT.

use std::process::ExitCode;

use config_hash::model::findings::Finding;

use super::args;
use super::exit::write_stdout;
use super::host::Host;
use super::read::{read_invocation, unreadable};
use super::report::findings_on_stderr;

pub fn graph(format: args::GraphFormat, args: &args::ConfigArgs) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false) {
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
    let edges = config_hash::views::graph::edges(&resolved.resolution);
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
