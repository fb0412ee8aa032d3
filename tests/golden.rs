//! Golden cases: every directory under `testdata/` is one run of the real binary, its
//! stdout compared byte for byte, then run again on that output to prove idempotence.
//!
//! A case directory holds:
//!
//! - `input.yaml` or `input.json`: what is fed on stdin (a ResourceList, or a plain
//!   manifest stream);
//! - `expected.yaml` / `expected.json` (same extension as the input): the exact stdout;
//! - `exit-code` (optional, default 0): the expected exit status;
//! - `expected-stderr` (instead of an expected stdout file): a substring stderr must
//!   contain, for input the function cannot read; stdout must then be empty, and there
//!   is no idempotence re-run (there is no output to run on).
//!
//! A case may instead hold `args` (one command-line argument per line, such as `diff`,
//! `before.yaml`, `after.yaml`): the binary runs with them in the case directory, stdin
//! empty, and its stdout is compared with `expected-stdout` (and its exit status with
//! `exit-code`); a report is not run again on itself.
//! A directory holding `live.yaml` is a `prune` case instead: `config-hash prune --live
//! live.yaml [ARGS] render.yaml`, run in the case directory, ARGS being the lines of `args`
//! (optional, so `--config config.yaml` names the case's file); its stdout is `expected`
//! (or `expected-stderr`, with `exit-code`), and there is no second run.
//!
//! `UPDATE_GOLDEN=1 cargo test --test golden` rewrites `expected.*` and `exit-code` from
//! what the binary does now. A run that fails with no stdout becomes a stderr case: its
//! `expected-stderr` is kept if present, else written with the whole stderr (trim it to
//! the part that matters: a pattern, not frozen wording). Review the diff before
//! committing: the expected files are the specification.

mod common;

use std::fmt::Write as _;
use std::fs;
use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_config-hash");

/// What one run of the binary did.
struct Run {
    stdout: Vec<u8>,
    stderr: String,
    code: i32,
}

fn run(input: &[u8]) -> Run {
    let out = common::run_with_stdin(
        Command::new(BIN)
            // The expected files are unkeyed hashes, whatever the developer's shell holds.
            .env_remove("CONFIG_HASH_KEY")
            .env_remove("CONFIG_HASH_KEY_FILE"),
        input,
    );
    Run {
        stdout: out.stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// Where the first difference is, as a short human hint: line, column, and a window of
/// each side around it (lines can be tens of kilobytes long).
fn first_difference(expected: &[u8], actual: &[u8]) -> String {
    let exp = String::from_utf8_lossy(expected);
    let act = String::from_utf8_lossy(actual);
    let mut exp_lines = exp.split_inclusive('\n');
    let mut act_lines = act.split_inclusive('\n');
    let mut line = 1;
    loop {
        match (exp_lines.next(), act_lines.next()) {
            (None, None) => return "outputs differ only in invalid UTF-8".into(),
            (e, a) if e == a => line += 1,
            (e, a) => {
                let col = e
                    .unwrap_or("")
                    .chars()
                    .zip(a.unwrap_or("").chars())
                    .take_while(|(x, y)| x == y)
                    .count();
                let show = |s: Option<&str>| {
                    let Some(s) = s else {
                        return "<end of output>".to_string();
                    };
                    let from = col.saturating_sub(40);
                    let window: String = s.chars().skip(from).take(120).collect();
                    let less = if from > 0 { "..." } else { "" };
                    let more = if s.chars().count() > from + 120 {
                        "..."
                    } else {
                        ""
                    };
                    format!("{less}{window:?}{more}")
                };
                return format!(
                    "first difference at line {line} column {}:\n      expected: {}\n      actual:   {}",
                    col + 1,
                    show(e),
                    show(a)
                );
            }
        }
    }
}

/// The output up to its `results` (block key at column 0, or a JSON member), to tell
/// whether a difference touches the items or only the results.
fn before_results(out: &[u8]) -> &[u8] {
    let cut = [&b"\nresults:"[..], &b"\"results\":"[..]]
        .iter()
        .filter_map(|m| out.windows(m.len()).rposition(|w| w == *m))
        .max()
        .unwrap_or(out.len());
    &out[..cut]
}

/// Whether two outputs differ before their results, or only in them.
fn scope(expected: &[u8], actual: &[u8]) -> &'static str {
    if before_results(expected) == before_results(actual) {
        "its results only"
    } else {
        "the items"
    }
}

fn read_exit_code(path: &Path) -> Result<i32, String> {
    match fs::read_to_string(path) {
        Ok(s) => s
            .trim()
            .parse()
            .map_err(|_| format!("{} is not an integer: {s:?}", path.display())),
        Err(_) => Ok(0),
    }
}

/// A case that runs a command on files of its directory (see the module comment).
fn check_command_case(dir: &Path, update: bool) -> Result<(), String> {
    let args =
        fs::read_to_string(dir.join("args")).map_err(|e| format!("cannot read args: {e}"))?;
    let args: Vec<&str> = args.lines().filter(|l| !l.is_empty()).collect();
    let out = Command::new(BIN)
        .args(&args)
        .current_dir(dir)
        .env_remove("CONFIG_HASH_KEY")
        .env_remove("CONFIG_HASH_KEY_FILE")
        .env_remove("CONFIG_HASH_ON_MISSING")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| format!("cannot run: {e}"))?;
    let code = out.status.code().unwrap_or(-1);
    let (expected_path, code_path) = (dir.join("expected-stdout"), dir.join("exit-code"));
    if update {
        fs::write(&expected_path, &out.stdout).map_err(|e| e.to_string())?;
        if code == 0 {
            let _ = fs::remove_file(&code_path);
        } else {
            fs::write(&code_path, format!("{code}\n")).map_err(|e| e.to_string())?;
        }
    }
    let mut problems = Vec::new();
    let want_code = read_exit_code(&code_path)?;
    if code != want_code {
        problems.push(format!(
            "exit code {code} (expected {want_code}); stderr: {}",
            String::from_utf8_lossy(&out.stderr).trim_end()
        ));
    }
    let expected = fs::read(&expected_path)
        .map_err(|_| "has no expected-stdout; run with UPDATE_GOLDEN=1 to create it".to_string())?;
    if out.stdout != expected {
        problems.push(format!(
            "stdout differs from expected-stdout; {}",
            first_difference(&expected, &out.stdout)
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n    "))
    }
}

/// Runs (or, when updating, regenerates) one case; `Err` describes every failure in it.
fn check_case(dir: &Path, update: bool) -> Result<(), String> {
    if dir.join("args").is_file() {
        return check_command_case(dir, update);
    }
    let (input_path, ext) = match (
        dir.join("input.yaml").is_file(),
        dir.join("input.json").is_file(),
    ) {
        (true, false) => (dir.join("input.yaml"), "yaml"),
        (false, true) => (dir.join("input.json"), "json"),
        (true, true) => return Err("has both input.yaml and input.json".into()),
        (false, false) => return Err("has no input.yaml or input.json".into()),
    };
    let input = fs::read(&input_path).map_err(|e| format!("cannot read input: {e}"))?;
    let expected_path = dir.join(format!("expected.{ext}"));
    let stderr_path = dir.join("expected-stderr");
    let code_path = dir.join("exit-code");
    let got = run(&input);

    if update {
        let unreadable = got.stdout.is_empty() && got.code != 0;
        if unreadable && !stderr_path.is_file() {
            fs::write(&stderr_path, got.stderr.trim_end()).map_err(|e| e.to_string())?;
        }
        if !unreadable {
            let _ = fs::remove_file(&stderr_path);
            fs::write(&expected_path, &got.stdout).map_err(|e| e.to_string())?;
        }
        if got.code == 0 {
            let _ = fs::remove_file(&code_path);
        } else {
            fs::write(&code_path, format!("{}\n", got.code)).map_err(|e| e.to_string())?;
        }
    }

    let mut problems = Vec::new();
    let want_code = read_exit_code(&code_path)?;
    if got.code != want_code {
        problems.push(format!(
            "exit code {} (expected {want_code}); stderr: {}",
            got.code,
            got.stderr.trim_end()
        ));
    }

    if stderr_path.is_file() {
        let pattern = fs::read_to_string(&stderr_path).map_err(|e| e.to_string())?;
        let pattern = pattern.trim_end_matches(['\n', '\r']);
        if !got.stderr.contains(pattern) {
            problems.push(format!(
                "stderr does not contain {pattern:?}; it is {:?}",
                got.stderr
            ));
        }
        if !got.stdout.is_empty() {
            problems.push(format!(
                "stdout should be empty for unreadable input; it has {} bytes",
                got.stdout.len()
            ));
        }
        return if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n    "))
        };
    }

    let expected = fs::read(&expected_path).map_err(|_| {
        format!("has no expected.{ext} (or expected-stderr); run with UPDATE_GOLDEN=1 to create it")
    })?;
    if got.stdout != expected {
        problems.push(format!(
            "stdout differs from expected.{ext} in {}; {}",
            scope(&expected, &got.stdout),
            first_difference(&expected, &got.stdout)
        ));
    }

    // Idempotence: the function run on its own (expected) output changes nothing. When the
    // first run already differed the same way, that difference is reported once, above.
    let again = run(&expected);
    if again.stdout != expected && (got.stdout == expected || again.stdout != got.stdout) {
        problems.push(format!(
            "not idempotent: running on expected.{ext} changes {}; {}",
            scope(&expected, &again.stdout),
            first_difference(&expected, &again.stdout)
        ));
    }
    if again.code != want_code && (got.code == want_code || again.code != got.code) {
        problems.push(format!(
            "not idempotent: running on expected.{ext} exits {} (expected {want_code})",
            again.code
        ));
    }

    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n    "))
    }
}

#[test]
fn golden_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let cases = common::golden_cases();
    let mut failures = String::new();
    let mut failed = 0;
    for case in &cases {
        if let Err(why) = check_case(&case.dir, update) {
            failed += 1;
            let _ = write!(failures, "\n  {}:\n    {why}", case.name);
        }
    }
    assert!(
        failed == 0,
        "{failed} of {} golden case(s) failed (UPDATE_GOLDEN=1 regenerates expected files; review the diff):{failures}",
        cases.len()
    );
}

/// Runs (or regenerates) one `prune` case.
fn check_prune_case(dir: &Path, update: bool) -> Result<(), String> {
    let args: Vec<String> = fs::read_to_string(dir.join("args"))
        .unwrap_or_default()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect();
    let out = common::run_with_stdin(
        Command::new(BIN)
            .current_dir(dir)
            .arg("prune")
            .arg("--live")
            .arg(dir.join("live.yaml"))
            .args(&args)
            .arg(dir.join("render.yaml")),
        Vec::new(),
    );
    let (stdout, stderr) = (
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    let code = out.status.code().unwrap_or(-1);
    let (expected_path, stderr_path, code_path) = (
        dir.join("expected"),
        dir.join("expected-stderr"),
        dir.join("exit-code"),
    );
    if update {
        if code == 0 {
            let _ = fs::remove_file(&code_path);
            let _ = fs::remove_file(&stderr_path);
            fs::write(&expected_path, &stdout).map_err(|e| e.to_string())?;
        } else {
            fs::write(&code_path, format!("{code}\n")).map_err(|e| e.to_string())?;
            if !stderr_path.is_file() {
                fs::write(&stderr_path, stderr.trim_end()).map_err(|e| e.to_string())?;
            }
            let _ = fs::remove_file(&expected_path);
        }
    }
    let want_code = read_exit_code(&code_path)?;
    let mut problems = Vec::new();
    if code != want_code {
        problems.push(format!(
            "exit code {code} (expected {want_code}); stderr: {stderr}"
        ));
    }
    if stderr_path.is_file() {
        let pattern = fs::read_to_string(&stderr_path).map_err(|e| e.to_string())?;
        let pattern = pattern.trim_end_matches(['\n', '\r']);
        if !stderr.contains(pattern) {
            problems.push(format!(
                "stderr does not contain {pattern:?}; it is {stderr:?}"
            ));
        }
        if !stdout.is_empty() {
            problems.push("stdout should be empty when prune refuses".to_string());
        }
    } else {
        let expected = fs::read(&expected_path).map_err(|_| {
            "has no expected (or expected-stderr); run with UPDATE_GOLDEN=1".to_string()
        })?;
        if stdout != expected {
            problems.push(format!(
                "stdout differs from expected; {}",
                first_difference(&expected, &stdout)
            ));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("\n    "))
    }
}

#[test]
fn prune_cases() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some_and(|v| v == "1");
    let cases = common::prune_cases();
    let mut failures = String::new();
    for case in &cases {
        if let Err(why) = check_prune_case(&case.dir, update) {
            let _ = write!(failures, "\n  {}:\n    {why}", case.name);
        }
    }
    assert!(
        failures.is_empty(),
        "prune golden case(s) failed (UPDATE_GOLDEN=1 regenerates them):{failures}"
    );
}
