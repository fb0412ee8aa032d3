//! The instruction-count and heap-peak gate: how many instructions the release binary
//! executes on each benchmark shape, and how much heap it holds at its peak, against the
//! baseline committed in `benches/instructions.txt`.
//!
//! Run: `cargo bench --bench instructions` (what `.ci/run` runs). It fails when any count
//! grows more than [`TOLERANCE_PERCENT`] over the baseline. When a change is meant to
//! cost more (or saves enough to be worth locking in), rebaseline in the same commit:
//! `cargo bench --bench instructions -- --rebaseline 'what moved the counts, and why'`.
//!
//! Why instruction counts and not time: CI runs on a shared 2-core machine where wall and
//! CPU times move by 20-50% with what else runs; the number of instructions a process
//! executes does not. Each input runs once under valgrind's callgrind (`valgrind` from
//! Debian's package), whole process as users run it: stdin from the file, stdout to
//! /dev/null, `RAYON_NUM_THREADS=1` (with more threads, how long a thread spins before it
//! sleeps depends on timing). Inputs are generated from their size alone (`shapes`).
//!
//! The baseline says why it last moved (its `reason:` line). The gate reads the baseline
//! as the commit that last changed it found it before (`git show C^:path`); when that
//! commit changed a count or the toolchain line but not the reason, the gate fails: a
//! rebaseline must say why. The counts depend on the compiler, so the baseline records the
//! `rustc` that built the binary (read from the binary itself); another compiler fails
//! with a message to rebaseline rather than a misleading comparison.
//!
//! The same gate holds memory: on each N = 1,000 input it also runs the binary once under
//! valgrind's DHAT and compares the most heap the process holds at once (DHAT's "At
//! t-gmax" bytes, `heap` lines of the baseline) with the baseline: more than
//! [`HEAP_TOLERANCE_PERCENT`] over it fails, as an instruction count does, and a
//! rebaseline moves both. Peak RSS itself cannot be gated on a shared machine (it moves
//! with thread timing and the allocator's choices); the heap peak on one worker thread
//! is the same every run, and a structure kept per source (an index, a copy of every
//! name) shows in it at once.
//!
//! Under `cargo test --benches` (no `--bench` argument) it only checks that the baseline
//! reads and names every input, without valgrind.

mod callgrind;
mod dhat;
#[allow(dead_code)] // each benchmark uses part of it
mod shapes;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const BIN: &str = env!("CARGO_BIN_EXE_config-hash");
/// The baseline, relative to the package root (cargo runs benches from there).
const BASELINE: &str = "benches/instructions.txt";
/// How much a count may grow over the baseline before the gate fails. Counts repeat to
/// within a few parts per million run to run; 3% lets the toolchain's layout noise
/// through and stops a real extra pass over the input.
const TOLERANCE_PERCENT: f64 = 3.0;
/// How much the heap peak may grow over the baseline before the gate fails. On one
/// worker thread the peak repeats to the byte run to run (hash seeds differ each run; the
/// sizes allocated do not); 2% is about 140 KB on the block-YAML input, half of what a
/// copy of every source's name and namespace costs there.
const HEAP_TOLERANCE_PERCENT: f64 = 2.0;
/// The benchmark's applications: N Deployments, each with a ConfigMap and a Secret.
const N: usize = 1_000;
/// The hostile objects at a tenth of the throughput benchmark's size: seconds each under
/// valgrind, and still far bigger than any fixed cost.
const HOSTILE_SCALE: usize = 10;

/// One input of the gate.
struct Input {
    name: String,
    path: PathBuf,
    args: Vec<String>,
}

/// The views, each on the block-YAML applications (stdin), so that a regression in a
/// view (a copy of the input's strings, a value tree of the output) fails as one in
/// stamping does: `graph --format json`, `audit`, and `diff` against the same
/// applications with every ConfigMap changed (every workload rolls).
const VIEWS: [(&str, &[&str]); 3] = [
    ("graph-json", &["graph", "--format", "json"]),
    ("audit", &["audit"]),
    ("diff", &["diff", "--format", "json"]),
];

/// Stamping the applications as a stream (the stream-with-list shape) named as a file
/// argument (`config-hash FILE`), not piped in, with one reference missing: what the binary does with one file
/// before the run (it may be kustomize's plugin config) and after it (the file and line
/// of each finding) must cost as little as the run itself.
const FILE_ARGUMENT: &str = "stream-file-argument-1000";

fn view_name(slug: &str) -> String {
    format!("view-{slug}-{N}")
}

/// The inputs whose heap peak is gated too: the N = 1,000 shapes and the views.
fn heap_gated() -> Vec<String> {
    let mut names: Vec<String> = shapes::SHAPES.iter().map(shape_name).collect();
    names.extend(VIEWS.iter().map(|(slug, _)| view_name(slug)));
    names.push(FILE_ARGUMENT.to_string());
    names.sort_unstable();
    names
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary lives in target/<profile>/")
        .join("instruction-inputs");
    let baseline_text = fs::read_to_string(BASELINE).unwrap_or_default();
    if !args.iter().any(|a| a == "--bench") {
        smoke(&baseline_text);
        return ExitCode::SUCCESS;
    }
    fs::create_dir_all(&dir).expect("create target/instruction-inputs");
    let inputs = inputs(&dir);
    let rebaseline = args
        .iter()
        .position(|a| a == "--rebaseline")
        .map(|i| args.get(i + 1).cloned().unwrap_or_default());

    if !callgrind::available() {
        eprintln!("error: valgrind is not on PATH (apt-get install valgrind)");
        return ExitCode::FAILURE;
    }
    let rustc = rustc_of(Path::new(BIN));
    println!("binary: {BIN} ({rustc})");
    let counts = count_all(&inputs);
    let (counts, heap) = (counts.instructions, counts.heap);

    if let Some(reason) = rebaseline {
        let reason = reason.trim();
        if reason.is_empty() {
            eprintln!("error: --rebaseline needs a reason: --rebaseline 'what moved the counts'");
            return ExitCode::FAILURE;
        }
        let old = Baseline::parse(&baseline_text).ok();
        if old.as_ref().is_some_and(|b| b.reason == reason) {
            eprintln!(
                "error: the reason is the one the baseline has: say what moved the counts now"
            );
            return ExitCode::FAILURE;
        }
        let new = Baseline {
            rustc,
            reason: reason.to_string(),
            counts: counts.clone(),
            heap: heap.clone(),
        };
        print_table(old.as_ref(), &counts, &heap);
        fs::write(BASELINE, new.render()).expect("write benches/instructions.txt");
        println!("\nwrote {BASELINE}: commit it with the change that moved the counts");
        return ExitCode::SUCCESS;
    }

    let baseline = match Baseline::parse(&baseline_text) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: {BASELINE}: {e}");
            return ExitCode::FAILURE;
        }
    };
    print_table(Some(&baseline), &counts, &heap);
    let mut failures = Vec::new();
    if let Err(e) = reason_moved_with_counts(&baseline_text) {
        failures.push(e);
    }
    if baseline.rustc != rustc {
        failures.push(format!(
            "the baseline was counted with {} and this binary was built by {rustc}: counts \
             from different compilers do not compare. Rebaseline with this toolchain: \
             cargo bench --bench instructions -- --rebaseline '{rustc}'",
            baseline.rustc
        ));
    } else {
        for (name, &now) in &counts {
            match baseline.counts.get(name) {
                None => failures.push(format!("{name}: not in the baseline (rebaseline)")),
                Some(&before) if grew_too_much(before, now) => failures.push(format!(
                    "{name}: {now} instructions, {:+.2}% over the baseline's {before} (more \
                     than {TOLERANCE_PERCENT}%)",
                    percent(before, now)
                )),
                Some(_) => {}
            }
        }
        for name in baseline.counts.keys() {
            if !counts.contains_key(name) {
                failures.push(format!(
                    "{name}: in the baseline but no longer measured (rebaseline)"
                ));
            }
        }
        for (name, &now) in &heap {
            match baseline.heap.get(name) {
                None => failures.push(format!("{name}: no heap peak in the baseline (rebaseline)")),
                Some(&before) if percent(before, now) > HEAP_TOLERANCE_PERCENT => {
                    failures.push(format!(
                        "{name}: heap peak {now} bytes, {:+.2}% over the baseline's {before} \
                         (more than {HEAP_TOLERANCE_PERCENT}%)",
                        percent(before, now)
                    ))
                }
                Some(_) => {}
            }
        }
        for name in baseline.heap.keys() {
            if !heap.contains_key(name) {
                failures.push(format!(
                    "{name}: heap peak in the baseline but no longer measured (rebaseline)"
                ));
            }
        }
    }
    let faster: Vec<&String> = counts
        .iter()
        .filter(|(name, now)| {
            baseline
                .counts
                .get(*name)
                .is_some_and(|&b| percent(b, **now) < -TOLERANCE_PERCENT)
        })
        .map(|(name, _)| name)
        .collect();
    if !faster.is_empty() && failures.is_empty() {
        println!(
            "\nnote: {} input(s) run more than {TOLERANCE_PERCENT}% under the baseline; rebaseline \
             to lock the gain in (a later regression could hide in it)",
            faster.len()
        );
    }
    if failures.is_empty() {
        println!(
            "\ninstruction counts: {} inputs within {TOLERANCE_PERCENT}% of the baseline; \
             heap peaks: {} inputs within {HEAP_TOLERANCE_PERCENT}%",
            counts.len(),
            heap.len()
        );
        return ExitCode::SUCCESS;
    }
    eprintln!("\ninstruction-count and heap-peak gate FAILED:");
    for f in &failures {
        eprintln!("- {f}");
    }
    eprintln!(
        "If the change is meant to cost this, rebaseline in the same commit and say why:\n  \
         cargo bench --bench instructions -- --rebaseline 'what moved the counts, and why'"
    );
    ExitCode::FAILURE
}

/// `cargo test --benches`, without valgrind: the committed baseline reads and names
/// exactly the gate's inputs, and the reason rule refuses a silent rebaseline.
fn smoke(baseline_text: &str) {
    let baseline = Baseline::parse(baseline_text).expect("benches/instructions.txt reads");
    let mut names: Vec<String> = shapes::SHAPES
        .iter()
        .map(shape_name)
        .chain(
            shapes::hostile_objects(HOSTILE_SCALE)
                .iter()
                .map(hostile_name),
        )
        .chain(VIEWS.iter().map(|(slug, _)| view_name(slug)))
        .chain([FILE_ARGUMENT.to_string()])
        .collect();
    names.sort_unstable();
    let known: Vec<&String> = baseline.counts.keys().collect();
    assert_eq!(
        names.iter().collect::<Vec<_>>(),
        known,
        "the baseline names every input, and only those"
    );
    assert_eq!(
        heap_gated().iter().collect::<Vec<_>>(),
        baseline.heap.keys().collect::<Vec<_>>(),
        "the baseline has a heap peak for every N = {N} input, and only those"
    );
    let grown = baseline_text.replacen(
        &format!(" {}\n", baseline.heap.values().next().expect("a heap peak")),
        " 1\n",
        1,
    );
    assert!(
        check_reason(baseline_text, &grown).is_err(),
        "a heap peak moved without a new reason"
    );
    let moved = baseline_text.replacen(
        &format!(" {}\n", baseline.counts.values().next().expect("a count")),
        " 1\n",
        1,
    );
    assert!(
        check_reason(baseline_text, &moved).is_err(),
        "a count moved without a new reason"
    );
    let explained = moved.replacen("reason: ", "reason: a new reason, not ", 1);
    assert_eq!(check_reason(baseline_text, &explained), Ok(()));
    assert_eq!(check_reason(baseline_text, baseline_text), Ok(()));
    println!("instructions: smoke check passed (run `cargo bench --bench instructions`)");
}

fn shape_name(shape: &shapes::Shape) -> String {
    format!("{}-{N}", shape.slug)
}

fn hostile_name(h: &shapes::Hostile) -> String {
    format!("hostile-{}", h.slug)
}

/// The bench's N = 1,000 applications in every shape, and the hostile objects.
fn inputs(dir: &Path) -> Vec<Input> {
    let mut inputs: Vec<Input> = shapes::SHAPES
        .iter()
        .map(|shape| Input {
            name: shape_name(shape),
            path: shapes::write_shape(dir, N, shape),
            args: shape.args.iter().map(|a| a.to_string()).collect(),
        })
        .collect();
    let block = inputs[0].path.clone();
    let before = dir.join(format!("deployments-{N}-before.txt"));
    let text = fs::read_to_string(&block).expect("read bench input");
    fs::write(&before, shapes::every_config_map_changed(&text)).expect("write bench input");
    for (slug, args) in VIEWS {
        let mut args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        if slug == "diff" {
            args.extend([before.display().to_string(), "-".to_string()]);
        }
        inputs.push(Input {
            name: view_name(slug),
            path: block.clone(),
            args,
        });
    }
    let missing = dir.join(format!("deployments-{N}-one-missing-reference.txt"));
    let stream = inputs
        .iter()
        .find(|i| i.name == format!("stream-with-list-{N}"))
        .expect("the stream shape");
    let text = fs::read_to_string(&stream.path).expect("read bench input");
    let first_reference = "name: app-00000-config\n";
    assert!(
        text.contains(first_reference),
        "the first Deployment reads its ConfigMap"
    );
    fs::write(
        &missing,
        text.replacen(first_reference, "name: app-00000-missing\n", 1),
    )
    .expect("write bench input");
    inputs.push(Input {
        name: FILE_ARGUMENT.to_string(),
        path: missing.clone(),
        args: vec![missing.display().to_string()],
    });
    for h in shapes::hostile_objects(HOSTILE_SCALE) {
        let path = dir.join(format!("{}.txt", hostile_name(&h)));
        fs::write(&path, h.input()).expect("write hostile input");
        inputs.push(Input {
            name: hostile_name(&h),
            path,
            args: Vec::new(),
        });
    }
    inputs
}

fn grew_too_much(before: u64, now: u64) -> bool {
    percent(before, now) > TOLERANCE_PERCENT
}

fn percent(before: u64, now: u64) -> f64 {
    (now as f64 - before as f64) * 100.0 / before as f64
}

fn print_table(
    baseline: Option<&Baseline>,
    counts: &BTreeMap<String, u64>,
    heap: &BTreeMap<String, u64>,
) {
    println!();
    println!("| input | baseline | now | change |");
    println!("|---|---:|---:|---:|");
    for (name, &now) in counts {
        match baseline.and_then(|b| b.counts.get(name)) {
            Some(&before) => println!(
                "| {name} | {before} | {now} | {:+.2}% |",
                percent(before, now)
            ),
            None => println!("| {name} | | {now} | |"),
        }
    }
    println!();
    println!("| input | heap peak bytes, baseline | now | change |");
    println!("|---|---:|---:|---:|");
    for (name, &now) in heap {
        match baseline.and_then(|b| b.heap.get(name)) {
            Some(&before) => println!(
                "| {name} | {before} | {now} | {:+.2}% |",
                percent(before, now)
            ),
            None => println!("| {name} | | {now} | |"),
        }
    }
}

/// What the gate measured.
#[derive(Default)]
struct Measured {
    /// Instructions, per input.
    instructions: BTreeMap<String, u64>,
    /// Heap peak bytes, per N = 1,000 input.
    heap: BTreeMap<String, u64>,
}

/// Counts every input and measures the heap peak of each N = 1,000 one, two runs at a
/// time (neither figure depends on what else runs).
fn count_all(inputs: &[Input]) -> Measured {
    let shapes = heap_gated();
    let jobs: Vec<(&Input, bool)> = inputs
        .iter()
        .map(|i| (i, false))
        .chain(
            inputs
                .iter()
                .filter(|i| shapes.contains(&i.name))
                .map(|i| (i, true)),
        )
        .collect();
    let next = AtomicUsize::new(0);
    let measured = Mutex::new(Measured::default());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                while let Some(&(input, heap)) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                    let n = if heap { heap_peak(input) } else { count(input) };
                    let mut m = measured
                        .lock()
                        .expect("no thread panicked holding the lock");
                    let table = if heap {
                        &mut m.heap
                    } else {
                        &mut m.instructions
                    };
                    table.insert(input.name.clone(), n);
                }
            });
        }
    });
    measured.into_inner().expect("no thread panicked")
}

/// Instructions the binary executes on one input; panics when it cannot count them.
fn count(input: &Input) -> u64 {
    let args: Vec<&str> = input.args.iter().map(String::as_str).collect();
    callgrind::count(Path::new(BIN), &args, &input.path)
        .unwrap_or_else(|e| panic!("{}: {e}", input.name))
}

/// The heap peak of the binary on one input; panics when it cannot measure it.
fn heap_peak(input: &Input) -> u64 {
    let args: Vec<&str> = input.args.iter().map(String::as_str).collect();
    dhat::heap_peak(Path::new(BIN), &args, &input.path)
        .unwrap_or_else(|e| panic!("{}: {e}", input.name))
}

/// The compiler that built the binary, as rustc records it in the binary's `.comment`
/// section (`rustc version 1.95.0 (59807616e 2026-04-14)`).
fn rustc_of(bin: &Path) -> String {
    let bytes = fs::read(bin).expect("read the binary");
    let needle = b"rustc version ";
    bytes
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|at| {
            let rest = &bytes[at..];
            let end = rest
                .iter()
                .position(|&b| b == 0)
                .unwrap_or(rest.len().min(80));
            String::from_utf8_lossy(&rest[..end]).into_owned()
        })
        .unwrap_or_else(|| "rustc version unknown".to_string())
}

/// The committed baseline.
#[derive(Debug, PartialEq)]
struct Baseline {
    rustc: String,
    reason: String,
    counts: BTreeMap<String, u64>,
    /// Heap peak bytes (`heap <input> <bytes>` lines).
    heap: BTreeMap<String, u64>,
}

impl Baseline {
    fn parse(text: &str) -> Result<Baseline, String> {
        let mut rustc = None;
        let mut reason = None;
        let mut counts = BTreeMap::new();
        let mut heap = BTreeMap::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(v) = line.strip_prefix("rustc:") {
                rustc = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("reason:") {
                reason = Some(v.trim().to_string());
            } else if let Some(v) = line.strip_prefix("heap ") {
                let (name, n) = v
                    .split_once(' ')
                    .ok_or_else(|| format!("not `heap input bytes`: {line:?}"))?;
                let n = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("not a byte count: {line:?}"))?;
                heap.insert(name.to_string(), n);
            } else {
                let (name, n) = line
                    .split_once(' ')
                    .ok_or_else(|| format!("not `input count`: {line:?}"))?;
                let n = n
                    .trim()
                    .parse()
                    .map_err(|_| format!("not a count: {line:?}"))?;
                counts.insert(name.to_string(), n);
            }
        }
        let rustc = rustc.ok_or("no `rustc:` line")?;
        let reason = reason
            .filter(|r| !r.is_empty())
            .ok_or("no `reason:` line, or an empty one")?;
        Ok(Baseline {
            rustc,
            reason,
            counts,
            heap,
        })
    }

    fn render(&self) -> String {
        let mut s = String::from(
            "# Instructions the release binary executes per input: callgrind, whole process,\n\
             # RAYON_NUM_THREADS=1 (benches/instructions.rs). The gate fails when a count grows\n\
             # more than 3%, or a heap peak (`heap` lines: DHAT's bytes at t-gmax, N = 1,000\n\
             # inputs) more than 2%. Rebaseline, in the commit that moves them, with a new reason:\n\
             #   cargo bench --bench instructions -- --rebaseline 'what moved the counts, and why'\n",
        );
        let _ = writeln!(s, "rustc: {}", self.rustc);
        let _ = writeln!(s, "reason: {}", self.reason);
        for (name, n) in &self.counts {
            let _ = writeln!(s, "{name} {n}");
        }
        for (name, n) in &self.heap {
            let _ = writeln!(s, "heap {name} {n}");
        }
        s
    }
}

/// The rule that keeps a rebaseline honest: whoever last changed the baseline's counts or
/// heap peaks (or its toolchain) changed its reason too. "Last" is the working tree when it differs
/// from HEAD, else the newest commit that touched the file, compared with its parent.
fn reason_moved_with_counts(current: &str) -> Result<(), String> {
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let Some(head) = git(&["show", &format!("HEAD:{BASELINE}")]) else {
        // Not committed yet (or not a git checkout): nothing to compare with.
        return Ok(());
    };
    let (before, what) = if head != current {
        (Some(head), "the working tree".to_string())
    } else {
        let Some(commit) = git(&["log", "-1", "--format=%H", "--", BASELINE])
            .map(|s| s.trim().to_string())
            .filter(|s| !s.is_empty())
        else {
            return Err(format!(
                "cannot find the commit that last changed {BASELINE} (a shallow clone? fetch its history)"
            ));
        };
        if git(&["rev-parse", "--verify", "-q", &format!("{commit}^")]).is_none() {
            // The first commit of the history, or a shallow clone cut there: the counts
            // are still checked, the reason cannot be.
            let shallow =
                git(&["rev-parse", "--is-shallow-repository"]).is_some_and(|s| s.trim() == "true");
            if shallow {
                println!(
                    "note: a shallow clone: {BASELINE}'s previous version cannot be read, so its reason line is not checked (git fetch --unshallow)"
                );
            }
            return Ok(());
        }
        let short = &commit[..commit.len().min(7)];
        (
            git(&["show", &format!("{commit}^:{BASELINE}")]),
            format!("commit {short}"),
        )
    };
    let Some(before) = before else {
        // The commit that added the baseline: its reason is checked by `parse`.
        return Ok(());
    };
    check_reason(&before, current).map_err(|e| format!("{what}: {e}"))
}

/// Whether the move from `before` to `after` keeps the rule: counts, heap peaks or
/// toolchain changed means the reason changed (and is not empty).
fn check_reason(before: &str, after: &str) -> Result<(), String> {
    let after = Baseline::parse(after)?;
    let Ok(before) = Baseline::parse(before) else {
        return Ok(());
    };
    let moved =
        before.counts != after.counts || before.heap != after.heap || before.rustc != after.rustc;
    if moved && before.reason == after.reason {
        return Err(format!(
            "{BASELINE}'s counts changed but its reason did not (still {:?}): say why they moved \
             (--rebaseline 'why')",
            after.reason
        ));
    }
    Ok(())
}
