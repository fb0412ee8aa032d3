//! The review commands' edge: `diff` reads both sides as a run reads its input, stamps
//! each in memory through the library, and prints the comparison; the gates set the
//! exit status. `audit` reads its input as `graph` does.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use config_hash::model::findings::Severity;
use config_hash::views::diff::{self, Gates, Side};

use super::args;
use super::exit::{EXIT_STALE, EXIT_USAGE, leave, stream_stdout, usage, write_stdout};
use super::hints::Use;
use super::host::Host;
use super::read::{Read, read_invocation, unreadable};
use super::report::{Report, findings_on_stderr};

/// One side as a run on it would read it: `-` is stdin.
fn read_side(path: &Path, flags: &args::ConfigFlags) -> Result<Read, ExitCode> {
    let files: Vec<PathBuf> = if path == Path::new("-") {
        Vec::new()
    } else {
        vec![path.to_path_buf()]
    };
    read_invocation(&files, flags, true, Use::View("diff"))
}

/// What `diff` keeps of a side once it is resolved.
struct Resolved {
    resolution: config_hash::resolve::resolution::Resolution,
    results: Vec<config_hash::model::result::KrmResult>,
    exit_code: i32,
}

impl Resolved {
    fn of(p: config_hash::Prepared<'_>) -> Self {
        Resolved {
            resolution: p.resolution,
            results: p.results,
            exit_code: p.exit_code,
        }
    }
}

/// `config-hash diff BEFORE AFTER`.
pub fn diff(
    before: &Path,
    after: &Path,
    format: args::DiffFormat,
    gates: Gates,
    flags: &args::ConfigFlags,
    quiet: bool,
) -> ExitCode {
    if before == Path::new("-") && after == Path::new("-") {
        return usage("BEFORE and AFTER cannot both be - (stdin holds one of them)");
    }
    let (b, a) = match (read_side(before, flags), read_side(after, flags)) {
        (Ok(b), Ok(a)) => (b, a),
        (Err(code), _) | (_, Err(code)) => return code,
    };
    let report = Report {
        host: Host::detect(false),
        quiet: false,
        bad_flag: !a.invocation.overrides.problems().is_empty(),
        warned: 0,
    };
    // Of each side, diff reads only what resolved and the results: its text and its
    // edits go as soon as it is resolved, so that the peak holds one input's run, not two.
    let pb = match config_hash::resolve_run(b.package.joined(), &b.invocation) {
        Ok(p) => Resolved::of(p),
        Err(e) => return unreadable(&b.package, &e),
    };
    drop(b);
    let mut pa = match config_hash::resolve_run(a.package.joined(), &a.invocation) {
        Ok(p) => p,
        Err(e) => return unreadable(&a.package, &e),
    };
    // AFTER is what will be applied: its warnings and errors are reported as a run
    // reports them, and an error fails the diff as it would fail the run.
    findings_on_stderr(&mut pa, &a.package, report.host);
    if pa.exit_code != 0 {
        return report.failure();
    }
    let pa = Resolved::of(pa);
    drop(a);
    // BEFORE is what is there now: an error in it (a reference that was missing) is
    // no reason not to review the fix.
    if pb.exit_code != 0 {
        let errors = pb
            .results
            .iter()
            .filter(|r| r.severity == Severity::Error)
            .count();
        eprintln!(
            "warning: BEFORE ({}) has {errors} error(s) a run would fail on; it is compared as it resolves",
            before.display()
        );
    }
    let d = diff::compare(
        &Side {
            resolution: &pb.resolution,
            results: &pb.results,
        },
        &Side {
            resolution: &pa.resolution,
            results: &pa.results,
        },
    );
    let failures = d.gate_failures(gates);
    let written = match format {
        // -q: the table without the summary line it opens with.
        args::DiffFormat::Table if quiet => write_stdout(&without_summary(
            &diff::render_table(&d, &failures),
            "config-hash diff:",
        )),
        args::DiffFormat::Table => write_stdout(&diff::render_table(&d, &failures)),
        args::DiffFormat::Markdown => write_stdout(&diff::render_markdown(&d, &failures)),
        args::DiffFormat::Json => stream_stdout(|out| diff::write_json(&d, gates, &failures, out)),
    };
    if let Err(code) = written {
        return code;
    }
    for f in &failures {
        eprintln!("error: gate failed: {}", f.message());
    }
    leave(if failures.is_empty() {
        0
    } else {
        i32::from(EXIT_STALE)
    })
}

/// `config-hash audit [PATH...]`.
pub fn audit(
    format: args::AuditFormat,
    fail_on_any: bool,
    args: &args::ConfigArgs,
    quiet: bool,
) -> ExitCode {
    let read = match read_invocation(&args.files, &args.flags, false, Use::View("audit")) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let prepared = match config_hash::resolve_run(read.package.joined(), &read.invocation) {
        Ok(p) => p,
        Err(e) => return unreadable(&read.package, &e),
    };
    // The configuration must be right; what stamping would say about the manifests is
    // not the audit's business (a missing Secret is listed as not in the input).
    let config_errors: Vec<&config_hash::model::result::KrmResult> = prepared
        .results
        .iter()
        .filter(|r| matches!(*r.finding, config_hash::model::findings::Finding::Config(_)))
        .collect();
    if !config_errors.is_empty() {
        for line in config_hash::model::result::stderr_lines(&prepared.results) {
            eprintln!("{line}");
        }
        let bad_flag = !read.invocation.overrides.problems().is_empty();
        return if bad_flag {
            ExitCode::from(EXIT_USAGE)
        } else {
            ExitCode::FAILURE
        };
    }
    // The resolution owns what the audit reads: the input goes first (as in `graph`).
    let resolution = prepared.resolution;
    drop(read);
    let found = config_hash::views::audit::audit(&resolution);
    let written = stream_stdout(|out| match format {
        // -q: the table without the summary line it closes with.
        args::AuditFormat::Table => config_hash::views::audit::write_table(&found, !quiet, out),
        args::AuditFormat::Json => config_hash::views::audit::write_json(&found, out),
    });
    if let Err(code) = written {
        return code;
    }
    leave(if fail_on_any && !found.untriggered.is_empty() {
        i32::from(EXIT_STALE)
    } else {
        0
    })
}

/// A report's text without its summary line (the one starting with `prefix`) and the
/// blank line that sets it apart, for `-q`.
fn without_summary(text: &str, prefix: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.starts_with(prefix)) else {
        return text.to_string();
    };
    let mut keep: Vec<&str> = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let blank_beside = line.is_empty() && (i + 1 == at || i == at + 1);
        if i != at && !blank_beside {
            keep.push(line);
        }
    }
    keep.iter().map(|l| format!("{l}\n")).collect()
}
