//! Stamping from the command line: a text read whole and streamed, or files joined into
//! one stream whose edits map back to each file (`--in-place`, `--check`).

use std::io::{self, Write};
use std::process::ExitCode;

use config_hash::{Invocation, Prepared};

use super::exit::{EXIT_STALE, EXIT_USAGE, fail, leave, write_stdout};
use super::hints::{Use, generator_list, kustomize_function};
use super::host::{self, Host};
use super::read::{read_invocation, unreadable};
use super::report::{Report, findings_on_stderr, summary};
use super::{args, input};

pub fn run(args: &args::RunArgs) -> ExitCode {
    let using = if args.check {
        Use::Check
    } else if args.in_place {
        Use::InPlace
    } else {
        Use::Stamp
    };
    let read = match read_invocation(&args.config.files, &args.config.flags, args.in_place, using) {
        Ok(read) => read,
        Err(code) => return code,
    };
    let report = Report {
        host: Host::detect(read.plugin),
        // Nobody reads a summary in a kustomize build.
        quiet: args.quiet.quiet || read.plugin,
        bad_flag: !read.invocation.overrides.problems().is_empty(),
        warned: read.warned,
    };
    if read.package.is_one_text() && !args.in_place {
        run_one_text(args, &read.invocation, &read.package, report)
    } else {
        run_package(args, &read.invocation, &read.package, report)
    }
}

/// One text read whole: the library reads it directly, so a ResourceList stays a
/// ResourceList and the output is streamed.
fn run_one_text(
    args: &args::RunArgs,
    invocation: &Invocation,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let source = &package.sources[0];
    let prepared = if args.check {
        config_hash::check(&source.text, invocation)
    } else {
        config_hash::prepare(&source.text, invocation)
    };
    let mut outcome = match prepared {
        Ok(o) => o,
        Err(e) => return unreadable(package, &e),
    };
    if let Some(e) = &package.objectless {
        return fail(e);
    }
    if args.debug {
        for why in &outcome.coarser {
            eprintln!("debug: {why}");
        }
        if outcome.coarser.is_empty() {
            eprintln!("debug: every item was read as its own chunk");
        }
    }
    if args.check {
        let file = source.path.as_ref().filter(|_| !outcome.stale.is_empty());
        let files: Vec<String> = file.map(|p| p.display().to_string()).into_iter().collect();
        return check(&mut outcome, package, report, &files);
    }
    let mut comments = Vec::new();
    if !outcome.resource_list {
        let lines = findings_on_stderr(&mut outcome, package, report.host);
        // A pipe must not pass on manifests config-hash refused to stamp
        // (`| kubectl apply -f -` would apply them): nothing on stdout.
        if outcome.exit_code != 0 {
            return report.failure();
        }
        if report.host.keeps_comments() {
            comments = lines;
        }
        if !report.quiet {
            summary(&outcome, &report, None);
        }
    } else if kustomize_function(&source.text) {
        // kustomize ignores results: what they say goes to stderr, which it shows.
        findings_on_stderr(&mut outcome, package, report.host);
    } else if generator_list(&source.text) {
        eprintln!(
            "warning: the ResourceList holds no items and its functionConfig is a ConfigHash: kustomize \
             runs a function so when it is listed under generators:; list it under transformers:"
        );
    }
    if !comments.is_empty() {
        // Under Helm, which holds the whole output anyway.
        let mut text = Vec::new();
        if let Err(e) = outcome.write_to(&mut text) {
            return fail(format!("cannot write the output: {e}"));
        }
        let text = host::with_comments(&String::from_utf8_lossy(&text), &comments);
        return match write_stdout(&text) {
            Ok(()) => ExitCode::SUCCESS,
            Err(code) => code,
        };
    }
    // Streamed: a large output is never held in memory whole.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    if let Err(e) = outcome.write_to(&mut out).and_then(|()| out.flush()) {
        // A closed pipe (`| head`) is the reader's choice, not our failure.
        if e.kind() == io::ErrorKind::BrokenPipe {
            return ExitCode::SUCCESS;
        }
        return fail(format!("cannot write stdout: {e}"));
    }
    let code = if outcome.exit_code != 0 && report.bad_flag {
        i32::from(EXIT_USAGE)
    } else {
        outcome.exit_code
    };
    leave(code)
}

/// Several texts (files, or JSON objects) read as one stream; the edits map back to
/// each text, which is written back (`--in-place`) or to stdout.
fn run_package(
    args: &args::RunArgs,
    invocation: &Invocation,
    package: &input::Package,
    report: Report,
) -> ExitCode {
    let mut outcome = match config_hash::prepare_with_edits(package.joined(), invocation) {
        Ok(o) => o,
        Err(e) => return unreadable(package, &e),
    };
    if let Some(e) = &package.objectless {
        return fail(e);
    }
    if outcome.resource_list {
        return fail(
            "a ResourceList is read alone (on stdin, or as the only file), not among other files",
        );
    }
    let edits = match package.map_edits(&outcome.item_edits) {
        Ok(e) => e,
        Err(e) => return fail(e),
    };
    let mut texts = Vec::with_capacity(edits.len());
    for (source, e) in package.sources.iter().zip(&edits) {
        match e.apply(&source.text) {
            Ok(text) => texts.push(text),
            Err(e) => return fail(e),
        }
    }
    let changed: Vec<(&input::Source, &String)> = package
        .sources
        .iter()
        .zip(&texts)
        .filter(|(source, text)| **text != source.text)
        .collect();
    if args.check {
        let files: Vec<String> = changed
            .iter()
            .filter_map(|(s, _)| s.path.as_ref())
            .map(|p| p.display().to_string())
            .collect();
        return check(&mut outcome, package, report, &files);
    }
    let lines = findings_on_stderr(&mut outcome, package, report.host);
    if outcome.exit_code != 0 {
        return report.failure();
    }
    if args.in_place {
        let files: Vec<(&std::path::Path, &str)> = changed
            .iter()
            .filter_map(|(source, text)| Some((source.path.as_deref()?, text.as_str())))
            .collect();
        if let Err(e) = input::write_all_or_nothing(&files) {
            return fail(e);
        }
        for (path, _) in &files {
            println!("wrote {}", path.display());
        }
        if !report.quiet {
            summary(&outcome, &report, Some(changed.len()));
        }
        return ExitCode::SUCCESS;
    }
    if !report.quiet {
        summary(&outcome, &report, None);
    }
    let mut text = String::new();
    let mut line_break = "\n";
    for (source, edited) in package.sources.iter().zip(&texts) {
        if !text.is_empty() {
            // The separator takes the line breaks of the file before it.
            if !text.ends_with('\n') {
                text.push_str(line_break);
            }
            text.push_str("---");
            text.push_str(line_break);
        }
        text.push_str(edited);
        line_break = if source.text.contains("\r\n") {
            "\r\n"
        } else {
            "\n"
        };
    }
    if report.host.keeps_comments() {
        text = host::with_comments(&text, &lines);
    }
    match write_stdout(&text) {
        Ok(()) => ExitCode::SUCCESS,
        Err(code) => code,
    }
}

/// `files`: the files that would change (when the input was files).
fn check(
    outcome: &mut Prepared<'_>,
    package: &input::Package,
    report: Report,
    files: &[String],
) -> ExitCode {
    findings_on_stderr(outcome, package, report.host);
    if outcome.exit_code != 0 {
        return report.failure();
    }
    let mut text = config_hash::views::check::check_report(&outcome.stale, files);
    if report.quiet {
        // What is out of date, without "up to date" or the closing advice.
        text = text
            .lines()
            .filter(|l| !l.starts_with("config-hash: "))
            .map(|l| format!("{l}\n"))
            .collect();
    }
    if outcome.stale.is_empty() {
        print!("{text}");
        return ExitCode::SUCCESS;
    }
    if let Err(code) = write_stdout(&text) {
        return code;
    }
    ExitCode::from(EXIT_STALE)
}
