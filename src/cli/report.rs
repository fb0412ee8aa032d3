//! What a run tells its user besides its output: warnings and errors on stderr (naming
//! the file and line of their object when the input was files), on the terminal too
//! where the host hides stderr, the summary line, and how a failure exits.

use std::process::ExitCode;

use config_hash::Prepared;
use config_hash::model::findings::Finding;
use config_hash::model::findings::Severity;

use super::exit::EXIT_USAGE;
use super::host::{self, Host};
use super::input;

/// Who sees config-hash's messages, whether it should be brief, and how it fails.
#[derive(Debug, Clone, Copy)]
pub struct Report {
    pub host: Host,
    pub quiet: bool,
    /// A flag has a bad value: the run still reports every configuration problem at
    /// once, then exits 2 (a usage error) rather than 1.
    pub bad_flag: bool,
    /// Warnings the binary printed about the input itself (a Kustomization among it),
    /// which the summary counts with the run's.
    pub warned: usize,
}

impl Report {
    pub fn failure(self) -> ExitCode {
        if self.bad_flag {
            ExitCode::from(EXIT_USAGE)
        } else {
            ExitCode::FAILURE
        }
    }
}

/// Warnings and errors on stderr, for streams (a ResourceList carries them in `results`),
/// each naming the file and line of its resource when the input was files; and on the
/// terminal too when the host hides stderr. Returns the lines.
pub fn findings_on_stderr(
    outcome: &mut Prepared<'_>,
    package: &input::Package,
    host: Host,
) -> Vec<String> {
    let reported = |r: &config_hash::model::result::KrmResult| r.severity != Severity::Info;
    if !outcome.results.iter().any(reported) {
        return Vec::new();
    }
    // Only the reported resources' places are looked for.
    let names: Vec<&str> = outcome
        .results
        .iter()
        .filter(|r| reported(r))
        .filter_map(|r| r.resource.as_ref().map(|id| id.name()))
        .collect();
    let places = package.places(&names);
    let mut lines_of: Option<config_hash::yaml::LineIndex> = None;
    let joined = !package.is_one_text();
    let mut lines = Vec::new();
    for result in outcome.results.iter_mut().filter(|r| reported(r)) {
        let mut place = None;
        // A position in the joined text of several files: the file's own line.
        if let Finding::NotStamped { line, .. } | Finding::CannotRename { line, .. } =
            &mut *result.finding
        {
            let index = lines_of.get_or_insert_with(|| package.line_index());
            if let Some((source, own)) = package.source_line(index, *line) {
                if joined {
                    *line = own;
                }
                place = source
                    .path
                    .as_ref()
                    .map(|p| format!("{}:{own}", p.display()));
            }
        }
        if place.is_none() {
            place = result
                .resource
                .as_ref()
                .and_then(|id| places.get(&id.kind_namespace_name()).cloned());
        }
        let Some(line) =
            config_hash::model::result::stderr_lines(std::slice::from_ref(result)).next()
        else {
            continue;
        };
        let line = match (place, line.split_once(": ")) {
            (Some(place), Some((severity, rest))) => format!("{severity}: {place}: {rest}"),
            _ => line,
        };
        eprintln!("{line}");
        lines.push(line);
    }
    if !host.shows_stderr(outcome.exit_code == 0) {
        host::to_terminal(&lines);
    }
    lines
}

/// One line on stderr after a plain-stream run: what was stamped, renamed, warned about.
pub fn summary(outcome: &Prepared<'_>, report: &Report, written: Option<usize>) {
    if let Some(line) =
        config_hash::model::result::stderr_summary(&outcome.results, written, report.warned)
    {
        eprintln!("{line}");
    }
}
