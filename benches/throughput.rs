//! Throughput benchmark: the release binary on generated ResourceLists of N Deployments,
//! beside the release binary of an earlier revision and beside rapidyaml's parse.
//!
//! Run: `cargo bench --bench throughput` (sizes: `-- 1000 5000`; the default is 1,000
//! and 10,000). Options after `--`:
//! - `--ref REV` (or env `CONFIG_HASH_BENCH_REF`): the revision to compare with, default
//!   [`DEFAULT_REF`]. It is checked out in a git worktree under `target/reference/` and
//!   built there with `cargo build --release --locked` and this package's release
//!   profile; `--ref none` compares with nothing.
//! - `--runs K`: pairs per input (default [`PAIRS`]).
//! - `hostile`: only the hostile shapes.
//! - `commands`: only the commands table (every command on two input shapes).
//! - `rapidyaml`: only the comparison with rapidyaml's parse.
//! - `inputs`: write the inputs of every shape at the sizes given and print their paths
//!   (to profile by hand), nothing else.
//!
//! `cargo bench` builds this binary with the `bench` profile, which inherits `release`
//! (LTO, one codegen unit), into `target/release/`. It first checks once, on the first
//! size, that every Deployment comes out stamped with its own hash. Then for each N and
//! each shape (`shapes::SHAPES`) it writes the input under `target/bench-inputs/` and runs
//! the two binaries alternately, pair by pair (this, reference; then reference, this; ...),
//! each a whole process under `/usr/bin/time` with stdin from the file and stdout to
//! /dev/null, and prints wall time (min and median), CPU time (user + system, median),
//! the median of the pairs' CPU ratios, and the highest peak RSS of each. Alternation
//! keeps the comparison fair when the shared machine's speed drifts; the CPU comparison is
//! also made in instructions (callgrind, when valgrind is installed) on the N = 1,000
//! inputs, which do not move with the machine's load.
//!
//! Then, per N, rapidyaml's parse alone of the block-YAML input (`ryml.parse_in_place`
//! from PyPI's `rapidyaml`, timed inside Python), alternated with this binary's whole
//! run on both cores and on one (`RAYON_NUM_THREADS=1`); then every command (stamping,
//! `--name-suffix`, `--check`, `graph`, `audit` and `diff` in each format) on the
//! applications and on N Deployments that all read one ConfigMap, beside the reference
//! where it has the command, with each one's peak RSS over its input and its wall time
//! over stamping's; then peers (`kubectl kustomize`, kpt) at N = 1,000; then the hostile shapes, one
//! object each, written to cost the most memory per input byte, both binaries and
//! `kubectl kustomize` on the same object. On a hostile input the reference is first run
//! once under a time limit ([`REFERENCE_PATIENCE_SECS`]): an earlier release that is far
//! slower on it is left out of that input's comparison, and the table says so.
//!
//! Last, a table of the targets, each met or not: N = 10,000 block YAML's whole run at
//! most rapidyaml's parse, on both cores and on one; every command at most
//! [`COMMAND_RSS_TARGET`] times its input in peak RSS and [`COMMAND_TIME_TARGET`] times
//! stamping's wall time; no shape slower in CPU than the reference; peak RSS no higher
//! than [`RSS_TODAY_MB`] on every bench shape; the 1M-item flow list and the 1M-key
//! ConfigMap at most 10x their size. A report, not an assertion: the instruction-count
//! gate (`benches/instructions.rs`) is what CI enforces.
//!
//! Under `cargo test --benches` (no `--bench` argument) it only runs a small smoke check.

mod callgrind;
#[allow(dead_code)] // each benchmark uses part of it
mod shapes;

use std::fmt::Write as _;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use shapes::{SHAPES, write_shape};

const BIN: &str = env!("CARGO_BIN_EXE_config-hash");
const DEFAULT_SIZES: [usize; 2] = [1_000, 10_000];
/// The last commit of the project's first round of work: the previous release.
const DEFAULT_REF: &str = "79650ea";
/// Pairs of runs per input (one run of each binary per pair).
const PAIRS: usize = 5;
/// Runs of the peers, which take seconds each.
const PEER_RUNS: usize = 3;
const MIB: f64 = 1024.0 * 1024.0;
/// Peak RSS in MB of the binary before the new YAML reader (main at cd48104, the highest
/// of five runs under `/usr/bin/time` on the project's 2-core machine, 2026-11-24): the
/// target is no higher on any shape. Shape slug, N, MB.
const RSS_TODAY_MB: &[(&str, usize, f64)] = &[
    ("block-yaml", 1_000, 10.1),
    ("json", 1_000, 12.0),
    ("needs-hash", 1_000, 10.2),
    ("shared-anchor", 1_000, 10.1),
    ("stream-with-list", 1_000, 9.9),
    ("name-suffix", 1_000, 12.5),
    ("block-yaml", 10_000, 65.0),
    ("json", 10_000, 81.7),
    ("needs-hash", 10_000, 66.4),
    ("shared-anchor", 10_000, 65.1),
    ("stream-with-list", 10_000, 63.2),
    ("name-suffix", 10_000, 85.3),
];
/// Every command's target: peak RSS at most this many times what it reads.
const COMMAND_RSS_TARGET: f64 = 3.0;
/// Every command's target: wall time at most this many times stamping's, same input.
const COMMAND_TIME_TARGET: f64 = 1.5;
/// Peak RSS may differ run to run by a few hundred KB (thread stacks, page timing): a
/// shape meets "no higher than today" within this margin.
const RSS_MARGIN: f64 = 1.01;
/// The densest hostile shapes' target: peak RSS at most this many times the input.
const HOSTILE_RSS_TARGET: f64 = 10.0;
/// How long the reference may run, natively, on one hostile input before the benchmark
/// leaves it out of that input's comparison: an earlier release can be far slower on a
/// shape written to cost the most (79650ea takes minutes on the 100k-key ConfigMap), and
/// under callgrind fifty times slower still.
const REFERENCE_PATIENCE_SECS: u64 = 30;

/// What the run learned that the targets table reads.
#[derive(Default)]
struct Findings {
    /// (N, shape, CPU ratio to the reference: the median of the pairs').
    cpu_ratios: Vec<(usize, &'static str, f64)>,
    /// (input, instruction ratio to the reference).
    instruction_ratios: Vec<(String, f64)>,
    /// (N, shape slug, peak RSS MB).
    rss: Vec<(usize, &'static str, f64)>,
    /// (N, whole run / rapidyaml's parse: the median of the pairs').
    rapidyaml: Vec<(usize, f64)>,
    /// (hostile shape, RSS / input size).
    hostile_rss: Vec<(String, &'static str, f64)>,
    /// (N, whole run on one thread / rapidyaml's parse: the median of the pairs').
    rapidyaml_one_thread: Vec<(usize, f64)>,
    /// (N, input shape, command, peak RSS / input size, wall / stamping's wall).
    commands: Vec<(usize, &'static str, &'static str, f64, f64)>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("the binary lives in target/<profile>/")
        .to_path_buf();
    let out_dir = target.join("bench-inputs");
    fs::create_dir_all(&out_dir).expect("create target/bench-inputs");

    if !args.iter().any(|a| a == "--bench") {
        // `cargo test --benches`: prove the generator and the check still work, quickly.
        let input = write_shape(&out_dir, 20, &SHAPES[0]);
        verify_stamped(&input, 20);
        println!("throughput: smoke check passed (run `cargo bench --bench throughput`)");
        return;
    }
    let option = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let rev = option("--ref")
        .or_else(|| std::env::var("CONFIG_HASH_BENCH_REF").ok())
        .unwrap_or_else(|| DEFAULT_REF.to_string());
    let pairs: usize = option("--runs").map_or(PAIRS, |k| k.parse().expect("--runs K"));
    let sizes: Vec<usize> = args
        .iter()
        .enumerate()
        .filter(|&(i, a)| {
            !a.starts_with('-')
                && a != "hostile"
                && a != "commands"
                && a != "rapidyaml"
                && a != "inputs"
                && !(i > 0 && ["--ref", "--runs"].contains(&args[i - 1].as_str()))
        })
        .map(|(_, a)| {
            a.replace([',', '_'], "")
                .parse()
                .expect("sizes are integers")
        })
        .collect();
    let sizes = if sizes.is_empty() {
        DEFAULT_SIZES.to_vec()
    } else {
        sizes
    };

    println!("binary: {BIN}");
    // Wall time on a shared 2-core machine depends on what else runs: say how busy it was.
    if let Ok(load) = fs::read_to_string("/proc/loadavg") {
        println!("load average before: {}", load.trim());
    }
    if args.iter().any(|a| a == "inputs") {
        for &n in &sizes {
            for shape in SHAPES {
                println!("{}", write_shape(&out_dir, n, shape).display());
            }
        }
        return;
    }
    let reference = if rev == "none" {
        None
    } else {
        match build_reference(&target, &rev) {
            Ok(r) => {
                println!("reference: {} ({})", r.label, r.bin.display());
                Some(r)
            }
            Err(e) => {
                println!("reference {rev}: not built: {e}");
                None
            }
        }
    };
    let mut findings = Findings::default();
    if args.iter().any(|a| a == "hostile") {
        hostile(&out_dir, reference.as_ref(), pairs, &mut findings);
        targets(&findings, reference.as_ref(), &sizes);
        return;
    }
    if args.iter().any(|a| a == "rapidyaml") {
        rapidyaml(&out_dir, &sizes, reference.as_ref(), pairs, &mut findings);
        targets(&findings, reference.as_ref(), &sizes);
        return;
    }
    if args.iter().any(|a| a == "commands") {
        commands(&out_dir, &sizes, reference.as_ref(), pairs, &mut findings);
        targets(&findings, reference.as_ref(), &sizes);
        return;
    }
    let first = write_shape(&out_dir, sizes[0], &SHAPES[0]);
    verify_stamped(&first, sizes[0]);
    shapes_table(&out_dir, &sizes, reference.as_ref(), pairs, &mut findings);
    rapidyaml(&out_dir, &sizes, reference.as_ref(), pairs, &mut findings);
    commands(&out_dir, &sizes, reference.as_ref(), pairs, &mut findings);
    instructions(&out_dir, reference.as_ref(), &mut findings);
    peers(&out_dir);
    hostile(&out_dir, reference.as_ref(), pairs.min(3), &mut findings);
    targets(&findings, reference.as_ref(), &sizes);
}

/// The binary of an earlier revision.
struct Reference {
    /// The revision as given, and its short commit id.
    label: String,
    bin: PathBuf,
}

/// Checks `rev` out in a git worktree under `target/reference/` (once) and builds its
/// release binary there, with this package's release profile and toolchain.
fn build_reference(target: &Path, rev: &str) -> Result<Reference, String> {
    let git = |args: &[&str]| -> Result<String, String> {
        let out = Command::new("git")
            .args(args)
            .output()
            .map_err(|e| format!("cannot run git: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "git {}: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    let commit = git(&["rev-parse", "--verify", &format!("{rev}^{{commit}}")])?;
    let short = &commit[..12];
    let tree = target.join("reference").join(short);
    if !tree.join("Cargo.toml").exists() {
        let _ = git(&["worktree", "prune"]);
        let _ = fs::remove_dir_all(&tree);
        git(&[
            "worktree",
            "add",
            "--detach",
            &tree.to_string_lossy(),
            &commit,
        ])?;
    }
    // The worktree sits inside this package's directory: a table of its own keeps cargo
    // from taking it for a member of a workspace above it.
    let manifest = tree.join("Cargo.toml");
    let text = fs::read_to_string(&manifest).map_err(|e| e.to_string())?;
    if !text.lines().any(|l| l.trim() == "[workspace]") {
        fs::write(&manifest, format!("{text}\n[workspace]\n")).map_err(|e| e.to_string())?;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let mut build = Command::new(cargo);
    build
        .args(["build", "--release", "--locked", "--bin", "config-hash"])
        .arg("--manifest-path")
        .arg(&manifest)
        .env("CARGO_TARGET_DIR", tree.join("target"));
    for (key, value) in release_profile() {
        build.env(format!("CARGO_PROFILE_RELEASE_{key}"), value);
    }
    println!("building {rev} ({short}) in {}", tree.display());
    let status = build
        .stdout(Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if !status.success() {
        return Err(format!("cargo build --release failed ({status})"));
    }
    Ok(Reference {
        label: format!("{rev} ({short})"),
        bin: tree.join("target/release/config-hash"),
    })
}

/// This package's `[profile.release]` settings, as cargo's environment overrides
/// (`lto = true` becomes `("LTO", "true")`), so that both binaries are built alike.
fn release_profile() -> Vec<(String, String)> {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml");
    let text = fs::read_to_string(manifest).unwrap_or_default();
    let mut in_section = false;
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('[') {
            in_section = line == "[profile.release]";
        } else if let (true, Some((k, v))) = (in_section, line.split_once('=')) {
            out.push((
                k.trim().to_uppercase().replace('-', "_"),
                v.trim().trim_matches('"').to_string(),
            ));
        }
    }
    out
}

/// Runs of both binaries on one input, alternately.
struct Pairs {
    this: Vec<Run>,
    reference: Vec<Run>,
}

impl Pairs {
    /// `pairs` pairs: this then the reference, then the other way round, and so on.
    fn measure(input: &Path, args: &[&str], reference: Option<&Reference>, pairs: usize) -> Self {
        let this_bin = Path::new(BIN);
        let mut this = Vec::new();
        let mut other = Vec::new();
        // One warm-up each: the input in the page cache, the binaries loaded.
        let _ = run_bin(this_bin, args, input);
        if let Some(r) = reference {
            let _ = run_bin(&r.bin, args, input);
        }
        for k in 0..pairs {
            let one = |bin: &Path, into: &mut Vec<Run>| {
                if let Some(run) = run_bin(bin, args, input) {
                    into.push(run);
                }
            };
            match reference {
                Some(r) if k % 2 == 1 => {
                    one(&r.bin, &mut other);
                    one(this_bin, &mut this);
                }
                Some(r) => {
                    one(this_bin, &mut this);
                    one(&r.bin, &mut other);
                }
                None => one(this_bin, &mut this),
            }
        }
        assert!(
            !this.is_empty(),
            "config-hash failed on {}",
            input.display()
        );
        Pairs {
            this,
            reference: other,
        }
    }

    /// The median of the pairs' CPU ratios (this / reference).
    fn cpu_ratio(&self) -> Option<f64> {
        if self.reference.len() != self.this.len() {
            return None;
        }
        median(
            self.this
                .iter()
                .zip(&self.reference)
                .map(|(a, b)| a.cpu_secs / b.cpu_secs)
                .collect(),
        )
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    Some(if v.len() % 2 == 1 {
        v[m]
    } else {
        (v[m - 1] + v[m]) / 2.0
    })
}

fn walls(runs: &[Run]) -> Vec<f64> {
    runs.iter().map(|r| r.wall.as_secs_f64()).collect()
}

fn cpus(runs: &[Run]) -> Vec<f64> {
    runs.iter().map(|r| r.cpu_secs).collect()
}

fn peak_mb(runs: &[Run]) -> Option<f64> {
    runs.iter()
        .map(|r| r.rss_kib as f64 / 1024.0)
        .max_by(f64::total_cmp)
}

/// `min / median` of a set of seconds, or an empty cell.
fn min_med(v: Vec<f64>) -> String {
    let min = v.iter().copied().min_by(f64::total_cmp);
    match (min, median(v)) {
        (Some(min), Some(med)) => format!("{min:.3} / {med:.3}"),
        _ => String::new(),
    }
}

fn cell(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.digits$}"))
}

/// Every shape at every size, both binaries, alternately.
fn shapes_table(
    dir: &Path,
    sizes: &[usize],
    reference: Option<&Reference>,
    pairs: usize,
    findings: &mut Findings,
) {
    let ref_name = reference.map_or("-", |r| r.label.as_str());
    println!();
    println!(
        "This binary (this) and {ref_name} (ref), {pairs} pairs each, alternately; wall min / median, CPU (user + system) median, CPU this / ref the median of the pairs' ratios, peak RSS the highest:"
    );
    println!();
    println!(
        "| N | shape | input MB | wall s this | wall s ref | CPU s this | CPU s ref | CPU this / ref | peak RSS MB this | peak RSS MB ref | RSS / input |"
    );
    println!("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        for shape in SHAPES {
            let input = write_shape(dir, n, shape);
            let mb = fs::metadata(&input).expect("stat input").len() as f64 / MIB;
            let p = Pairs::measure(&input, shape.args, reference, pairs);
            let rss = peak_mb(&p.this).expect("a run");
            let ratio = p.cpu_ratio();
            if let Some(r) = ratio {
                findings.cpu_ratios.push((n, shape.name, r));
            }
            findings.rss.push((n, shape.slug, rss));
            println!(
                "| {n} | {} | {mb:.1} | {} | {} | {} | {} | {} | {rss:.1} | {} | {:.2} |",
                shape.name,
                min_med(walls(&p.this)),
                min_med(walls(&p.reference)),
                cell(median(cpus(&p.this)), 2),
                cell(median(cpus(&p.reference)), 2),
                cell(ratio, 2),
                cell(peak_mb(&p.reference), 1),
                rss / mb,
            );
        }
    }
}

/// The parse alone of the same block-YAML input by rapidyaml (the C++ library, through
/// its Python package: `ryml.parse_in_place` on a `bytearray`, timed inside Python),
/// alternated with this binary's whole run, pair by pair; the reference's whole run
/// beside them. Skipped with a note when `import ryml` fails (`pip install rapidyaml`).
fn rapidyaml(
    dir: &Path,
    sizes: &[usize],
    reference: Option<&Reference>,
    pairs: usize,
    findings: &mut Findings,
) {
    // One line each: a `\` continuation in a Rust string would eat the indentation.
    const SCRIPT: &[&str] = &[
        "import sys, time, ryml",
        "buf = bytearray(open(sys.argv[1], 'rb').read())",
        "t = time.perf_counter()",
        "ryml.parse_in_place(buf)",
        "print(time.perf_counter() - t)",
    ];
    let ryml = |input: &Path| -> Option<f64> {
        let out = Command::new("python3")
            .arg("-c")
            .arg(SCRIPT.join("\n"))
            .arg(input)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        String::from_utf8(out.stdout).ok()?.trim().parse().ok()
    };
    println!();
    println!(
        "rapidyaml's parse alone of the same block-YAML input, alternated with this binary's whole run on both cores and on one ({pairs} pairs; medians):"
    );
    println!();
    println!(
        "| N | rapidyaml parse_in_place s | wall s this | this / rapidyaml | one thread wall s | one thread / rapidyaml | wall s ref | ref / rapidyaml |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let input = write_shape(dir, n, &SHAPES[0]);
        if ryml(&input).is_none() {
            println!(
                "| {n} | not measured: python3 -c 'import ryml' failed (pip install rapidyaml) | | | | |"
            );
            continue;
        }
        let mut theirs = Vec::new();
        let mut ours = Vec::new();
        let mut ratios = Vec::new();
        let mut ours_one = Vec::new();
        let mut ratios_one = Vec::new();
        for _ in 0..pairs {
            let (Some(t), Some(o), Some(one)) = (
                ryml(&input),
                run_bin(Path::new(BIN), &[], &input),
                one_thread(&input),
            ) else {
                continue;
            };
            let o = o.wall.as_secs_f64();
            let one = one.wall.as_secs_f64();
            ratios.push(o / t);
            ratios_one.push(one / t);
            theirs.push(t);
            ours.push(o);
            ours_one.push(one);
        }
        let theirs = median(theirs);
        let ratio = median(ratios);
        if let Some(r) = ratio {
            findings.rapidyaml.push((n, r));
        }
        let ratio_one = median(ratios_one);
        if let Some(r) = ratio_one {
            findings.rapidyaml_one_thread.push((n, r));
        }
        let ref_wall = reference.and_then(|r| {
            median(
                (0..pairs)
                    .filter_map(|_| run_bin(&r.bin, &[], &input))
                    .map(|run| run.wall.as_secs_f64())
                    .collect(),
            )
        });
        println!(
            "| {n} | {} | {} | {} | {} | {} | {} | {} |",
            cell(theirs, 3),
            cell(median(ours), 3),
            cell(ratio, 2),
            cell(median(ours_one), 3),
            cell(ratio_one, 2),
            cell(ref_wall, 3),
            cell(ref_wall.zip(theirs).map(|(a, b)| a / b), 2),
        );
    }
}

/// This binary's whole run on `input` with rayon held to one thread.
fn one_thread(input: &Path) -> Option<Run> {
    let args: Vec<&std::ffi::OsStr> = ["RAYON_NUM_THREADS=1", BIN]
        .iter()
        .map(std::ffi::OsStr::new)
        .collect();
    timed("env", &args, Some(input))
}

/// What a user runs, each on the input stamping reads: its arguments (`diff` also gets
/// the input before, then `-` for stdin).
const COMMANDS: &[(&str, &[&str])] = &[
    ("stamp", &[]),
    ("--name-suffix", &["--name-suffix"]),
    ("--check", &["--check"]),
    ("graph", &["graph"]),
    ("graph --format json", &["graph", "--format", "json"]),
    ("graph --format dot", &["graph", "--format", "dot"]),
    ("audit", &["audit"]),
    ("audit --format json", &["audit", "--format", "json"]),
    ("diff", &["diff"]),
    ("diff --format json", &["diff", "--format", "json"]),
];

/// Every command on the applications (the block-YAML shape) and on N Deployments that
/// all read one ConfigMap, both binaries alternately where the reference has the
/// command. `--check` reads the stamped output (unstamped input exits 3); `diff` reads
/// the input with every ConfigMap changed as before and the input as after, and its
/// RSS and its wall time are over both (stamping each of its two inputs once).
fn commands(
    dir: &Path,
    sizes: &[usize],
    reference: Option<&Reference>,
    pairs: usize,
    findings: &mut Findings,
) {
    let ref_name = reference.map_or("-", |r| r.label.as_str());
    println!();
    println!(
        "Every command, this binary and {ref_name} (ref, where it has the command), {pairs} pairs each; wall min / median, peak RSS the highest; RSS / input over what the command reads, wall / stamp over stamping's median wall on what the command reads (twice for diff's two inputs):"
    );
    println!();
    println!(
        "| N | input | command | input MB | wall s this | wall s ref | peak RSS MB this | peak RSS MB ref | RSS / input | wall / stamp |"
    );
    println!("|---:|---|---|---:|---:|---:|---:|---:|---:|---:|");
    for &n in sizes {
        let block = write_shape(dir, n, &SHAPES[0]);
        let text = fs::read_to_string(&block).expect("read bench input");
        let one = dir.join(format!("deployments-{n}-one-configmap.txt"));
        fs::write(&one, shapes::one_configmap(n, "info")).expect("write bench input");
        let inputs = [
            (
                "applications",
                block.clone(),
                shapes::every_config_map_changed(&text),
            ),
            ("one ConfigMap", one, shapes::one_configmap(n, "debug")),
        ];
        for (shape, input, before_text) in inputs {
            let before = input.with_extension("before.txt");
            fs::write(&before, before_text).expect("write bench input");
            let stamped = input.with_extension("stamped.txt");
            let out = Command::new(BIN)
                .args(["--max-input-size", "4G"])
                .stdin(File::open(&input).expect("open input"))
                .output()
                .expect("run config-hash");
            assert!(
                out.status.success(),
                "config-hash failed on {}",
                input.display()
            );
            fs::write(&stamped, out.stdout).expect("write stamped input");
            let size = |p: &Path| fs::metadata(p).expect("stat input").len() as f64 / MIB;
            let mut stamp_wall = None;
            for &(name, command) in COMMANDS {
                let mut args: Vec<&str> = command.to_vec();
                let before_arg = before.display().to_string();
                let (read, mb, inputs) = match name {
                    "--check" => (&stamped, size(&stamped), 1.0),
                    _ if command.first() == Some(&"diff") => {
                        args.extend([before_arg.as_str(), "-"]);
                        (&input, size(&input) + size(&before), 2.0)
                    }
                    _ => (&input, size(&input), 1.0),
                };
                // Past the default input limit (256 MiB: the applications at
                // N = 100,000), as a user with such an input runs it.
                if mb > 200.0 {
                    args.extend(["--max-input-size", "4G"]);
                }
                let theirs = reference.filter(|r| has_command(&r.bin, &args, read));
                let p = Pairs::measure(read, &args, theirs, pairs);
                let rss = peak_mb(&p.this).expect("a run");
                let wall = median(walls(&p.this)).expect("a run");
                let stamp = *stamp_wall.get_or_insert(wall) * inputs;
                findings
                    .commands
                    .push((n, shape, name, rss / mb, wall / stamp));
                println!(
                    "| {n} | {shape} | {name} | {mb:.1} | {} | {} | {rss:.1} | {} | {:.2} | {:.2} |",
                    min_med(walls(&p.this)),
                    min_med(walls(&p.reference)),
                    cell(peak_mb(&p.reference), 1),
                    rss / mb,
                    wall / stamp,
                );
            }
        }
    }
}

/// Whether `bin` runs `args` on `input` successfully (an earlier release may not have
/// the command, or the flag): quietly, since a missing command is expected.
fn has_command(bin: &Path, args: &[&str], input: &Path) -> bool {
    Command::new(bin)
        .args(args)
        .stdin(File::open(input).expect("open input"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Both binaries' instruction counts on the N = 1,000 shapes and the hostile objects at
/// a tenth of their size (the instruction-count gate's inputs).
fn instructions(dir: &Path, reference: Option<&Reference>, findings: &mut Findings) {
    const N: usize = 1_000;
    println!();
    if !callgrind::available() {
        println!("Instructions: not counted: valgrind is not installed (apt-get install valgrind)");
        return;
    }
    println!(
        "Instructions (callgrind, whole process, RAYON_NUM_THREADS=1), this binary and the reference:"
    );
    println!();
    println!("| input | this | ref | this / ref |");
    println!("|---|---:|---:|---:|");
    let mut inputs: Vec<(String, PathBuf, &[&str])> = SHAPES
        .iter()
        .map(|s| {
            (
                format!("N = {N}, {}", s.name),
                write_shape(dir, N, s),
                s.args,
            )
        })
        .collect();
    for h in shapes::hostile_objects(10) {
        let path = dir.join(format!("hostile-{}-small.txt", h.slug));
        fs::write(&path, h.input()).expect("write hostile input");
        inputs.push((h.name, path, &[]));
    }
    for (name, path, args) in inputs {
        let this = callgrind::count(Path::new(BIN), args, &path);
        let other = reference.map(|r| {
            if finishes(&r.bin, args, &path) {
                callgrind::count(&r.bin, args, &path)
            } else {
                Err(String::new())
            }
        });
        let ratio = match (&this, &other) {
            (Ok(a), Some(Ok(b))) => Some(*a as f64 / *b as f64),
            _ => None,
        };
        if let Some(r) = ratio {
            findings.instruction_ratios.push((name.clone(), r));
        }
        let show = |c: &Result<u64, String>| match c {
            Ok(n) => n.to_string(),
            Err(e) if e.is_empty() => {
                format!("not counted: over {REFERENCE_PATIENCE_SECS} s natively")
            }
            Err(_) => "failed".to_string(),
        };
        println!(
            "| {name} | {} | {} | {} |",
            show(&this),
            other.as_ref().map_or_else(String::new, show),
            cell(ratio, 3)
        );
    }
}

/// Peers on the same applications, at N = 1,000, when their tools are on PATH:
/// `kubectl kustomize` (objects as static files, and ConfigMaps/Secrets from generators,
/// which hash and rename them as config-hash does) and `kpt fn eval --exec` with an
/// identity function (what the KRM plumbing alone costs).
fn peers(dir: &Path) {
    const N: usize = 1_000;
    let input = write_shape(dir, N, &SHAPES[0]);
    let ours = best_of(|| run_bin(Path::new(BIN), &[], &input).expect("config-hash runs"));
    println!();
    println!(
        "Peers at N = {N} ({} resources), best of {PEER_RUNS}:",
        3 * N
    );
    println!();
    println!("| tool | wall s | peak RSS MB | wall / config-hash |");
    println!("|---|---:|---:|---:|");
    println!(
        "| config-hash (ResourceList on stdin) | {:.3} | {:.1} | 1.00 |",
        ours.wall.as_secs_f64(),
        ours.rss_kib as f64 / 1024.0
    );
    let has = |tool: &str| {
        Command::new(tool)
            .arg("version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    let mut rows: Vec<(String, Run)> = Vec::new();
    if has("kubectl") {
        for generators in [false, true] {
            let pkg = write_kustomization(dir, N, generators);
            let run = best_of(|| {
                timed("kubectl", &["kustomize".as_ref(), pkg.as_os_str()], None)
                    .expect("kubectl kustomize runs")
            });
            let what = if generators {
                "kubectl kustomize (configMapGenerator/secretGenerator)"
            } else {
                "kubectl kustomize (static objects)"
            };
            rows.push((what.to_string(), run));
        }
    } else {
        println!("| kubectl kustomize | not on PATH | | |");
    }
    if has("kpt") {
        let pkg = write_kustomization(dir, N, false);
        let run = best_of(|| {
            let args = [
                "fn".as_ref(),
                "eval".as_ref(),
                pkg.as_os_str(),
                "--exec".as_ref(),
                "cat".as_ref(),
            ];
            timed("kpt", &args, None).expect("kpt fn eval runs")
        });
        rows.push(("kpt fn eval --exec cat (identity)".to_string(), run));
    } else {
        println!("| kpt fn eval | not on PATH | | |");
    }
    for (what, run) in rows {
        println!(
            "| {what} | {:.3} | {:.1} | {:.2} |",
            run.wall.as_secs_f64(),
            run.rss_kib as f64 / 1024.0,
            run.wall.as_secs_f64() / ours.wall.as_secs_f64()
        );
    }
}

/// One object written to cost the most memory per input byte: every value is a node of
/// the tree, and the densest YAML spends two bytes on one. Both binaries alternately, and
/// `kubectl kustomize` on the same object as a plain file, when it is on PATH (the
/// ConfigMap with a million keys is left out for it: it would take gigabytes).
fn hostile(dir: &Path, reference: Option<&Reference>, pairs: usize, findings: &mut Findings) {
    println!();
    println!(
        "Hostile shapes (one object each), {pairs} pairs with the reference; wall median, peak RSS the highest:"
    );
    println!();
    println!(
        "| shape | input MB | wall s this | wall s ref | peak RSS MB this | peak RSS MB ref | RSS / input | kubectl kustomize wall s | its peak RSS MB |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    let kubectl = Command::new("kubectl")
        .arg("version")
        .arg("--client")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    for h in shapes::hostile_objects(1) {
        let input = dir.join(format!("hostile-{}.txt", h.slug));
        let text = h.input();
        fs::write(&input, &text).expect("write hostile input");
        let mb = text.len() as f64 / MIB;
        let patient = reference.filter(|r| finishes(&r.bin, &[], &input));
        let p = Pairs::measure(&input, &[], patient, pairs);
        let too_slow = |v: String| match (reference, patient) {
            (Some(_), None) => format!("over {REFERENCE_PATIENCE_SECS} s"),
            _ => v,
        };
        let theirs = if h.peer && kubectl {
            let pkg = dir.join(format!("hostile-{}", h.slug));
            fs::create_dir_all(&pkg).expect("create the kustomization");
            fs::write(pkg.join("object.yaml"), &h.object).expect("write the object");
            fs::write(
                pkg.join("kustomization.yaml"),
                "resources:\n- object.yaml\n",
            )
            .expect("write the kustomization");
            match timed("kubectl", &["kustomize".as_ref(), pkg.as_os_str()], None) {
                Some(run) => format!(
                    "{:.2} | {:.0}",
                    run.wall.as_secs_f64(),
                    run.rss_kib as f64 / 1024.0
                ),
                None => "failed | ".to_string(),
            }
        } else {
            " | ".to_string()
        };
        let rss = peak_mb(&p.this).expect("a run");
        findings
            .hostile_rss
            .push((h.name.clone(), h.slug, rss / mb));
        println!(
            "| {} | {mb:.1} | {} | {} | {rss:.1} | {} | {:.1} | {theirs} |",
            h.name,
            cell(median(walls(&p.this)), 2),
            too_slow(cell(median(walls(&p.reference)), 2)),
            too_slow(cell(peak_mb(&p.reference), 1)),
            rss / mb
        );
    }
}

/// The targets, each met or not, from what this run measured.
fn targets(findings: &Findings, reference: Option<&Reference>, sizes: &[usize]) {
    let verdict = |met: bool| if met { "met" } else { "NOT MET" };
    println!();
    println!("Targets:");
    println!();
    println!("| target | measured | verdict |");
    println!("|---|---|---|");
    // Absent when not run in this mode, or without rapidyaml (its table says so).
    if let Some((_, r)) = findings.rapidyaml.iter().find(|(n, _)| *n == 10_000) {
        println!(
            "| N = 10,000 block YAML: whole run at most rapidyaml's parse | {r:.2}x rapidyaml | {} |",
            verdict(*r <= 1.0)
        );
    }
    if let Some((_, r)) = findings
        .rapidyaml_one_thread
        .iter()
        .find(|(n, _)| *n == 10_000)
    {
        println!(
            "| N = 10,000 block YAML: whole run on one thread at most rapidyaml's parse | {r:.2}x rapidyaml | {} |",
            verdict(*r <= 1.0)
        );
    }
    // At N = 1,000 the binary's own few MB outweigh the input: the targets are for
    // N = 10,000 and up.
    for &n in sizes.iter().filter(|&&n| n >= 10_000) {
        let of_n = || findings.commands.iter().filter(move |c| c.0 == n);
        if let Some((_, shape, name, rss, _)) = of_n().max_by(|a, b| a.3.total_cmp(&b.3)) {
            println!(
                "| N = {n}: every command at most {COMMAND_RSS_TARGET}x its input in peak RSS | worst: {name} on {shape}, {rss:.1}x | {} |",
                verdict(*rss <= COMMAND_RSS_TARGET)
            );
        }
        if let Some((_, shape, name, _, t)) = of_n().max_by(|a, b| a.4.total_cmp(&b.4)) {
            println!(
                "| N = {n}: every command at most {COMMAND_TIME_TARGET}x stamping's wall time | worst: {name} on {shape}, {t:.2}x | {} |",
                verdict(*t <= COMMAND_TIME_TARGET)
            );
        }
    }
    if let Some(r) = reference {
        let worst = findings
            .cpu_ratios
            .iter()
            .max_by(|a, b| a.2.total_cmp(&b.2));
        if let Some((n, shape, ratio)) = worst {
            println!(
                "| no shape slower in CPU time than {} | worst: N = {n}, {shape}, {ratio:.2}x | {} |",
                r.label,
                verdict(*ratio <= 1.0)
            );
        }
        let worst = findings
            .instruction_ratios
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((name, ratio)) = worst {
            println!(
                "| no shape more instructions than {} | worst: {name}, {ratio:.3}x | {} |",
                r.label,
                verdict(*ratio <= 1.0)
            );
        }
    }
    for &(n, slug, rss) in &findings.rss {
        let Some(&(_, _, today)) = RSS_TODAY_MB.iter().find(|&&(s, m, _)| s == slug && m == n)
        else {
            continue;
        };
        if today <= 0.0 {
            continue;
        }
        println!(
            "| N = {n}, {slug}: peak RSS no higher than before the new reader ({today:.1} MB) | {rss:.1} MB | {} |",
            verdict(rss <= today * RSS_MARGIN)
        );
    }
    for (name, slug, ratio) in &findings.hostile_rss {
        if ["flow-items", "flow-keys"].contains(slug) {
            println!(
                "| {name}: peak RSS at most {HOSTILE_RSS_TARGET}x the input | {ratio:.1}x | {} |",
                verdict(*ratio <= HOSTILE_RSS_TARGET)
            );
        }
    }
}

/// The fastest of [`PEER_RUNS`] runs, with the highest peak RSS seen.
fn best_of(mut f: impl FnMut() -> Run) -> Run {
    let mut best = f();
    for _ in 1..PEER_RUNS {
        let r = f();
        best.rss_kib = best.rss_kib.max(r.rss_kib);
        if r.wall < best.wall {
            best.wall = r.wall;
            best.cpu_secs = r.cpu_secs;
        }
    }
    best
}

/// Runs `program args` under `/usr/bin/time`, stdin from `stdin` (or empty), stdout
/// discarded; `None` (with the error on stderr) when it fails.
fn timed(program: &str, args: &[&std::ffi::OsStr], stdin: Option<&Path>) -> Option<Run> {
    let report =
        std::env::temp_dir().join(format!("config-hash-bench-{}.time", std::process::id()));
    let start = Instant::now();
    let out = Command::new("/usr/bin/time")
        .args(["-f", "%M %U %S", "-o"])
        .arg(&report)
        .arg(program)
        .args(args)
        .stdin(stdin.map_or(Stdio::null(), |p| {
            Stdio::from(File::open(p).expect("open input"))
        }))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .expect("run /usr/bin/time (GNU time)");
    let wall = start.elapsed();
    if !out.status.success() {
        eprintln!(
            "{program} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
        return None;
    }
    Some(parse_time(
        &fs::read_to_string(&report).expect("read the time report"),
        wall,
    ))
}

fn parse_time(text: &str, wall: Duration) -> Run {
    let fields: Vec<f64> = text
        .split_whitespace()
        .filter_map(|s| s.parse().ok())
        .collect();
    let [rss, user, sys] = fields[..] else {
        panic!("unexpected /usr/bin/time output: {text:?}");
    };
    Run {
        wall,
        cpu_secs: user + sys,
        rss_kib: rss as u64,
    }
}

/// A kustomization of the N applications, one file each; with `generators`, the
/// ConfigMaps and Secrets come from configMapGenerator/secretGenerator literals.
fn write_kustomization(dir: &Path, n: usize, generators: bool) -> PathBuf {
    let pkg = dir.join(format!(
        "kustomize-{n}-{}",
        if generators { "generators" } else { "static" }
    ));
    let _ = fs::remove_dir_all(&pkg);
    fs::create_dir_all(&pkg).expect("create package dir");
    let mut kustomization = String::from(
        "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n",
    );
    let mut gen_cm = String::from("configMapGenerator:\n");
    let mut gen_secret = String::from("secretGenerator:\n");
    for i in 0..n {
        let mut app = String::new();
        shapes::application(&mut app, i);
        let docs: Vec<String> = app
            .split("\n- ")
            .map(|item| {
                let item = item.strip_prefix("- ").unwrap_or(item);
                let mut doc = String::new();
                for (j, line) in item.lines().enumerate() {
                    doc.push_str(if j == 0 {
                        line
                    } else {
                        line.strip_prefix("  ").unwrap_or(line)
                    });
                    doc.push('\n');
                }
                doc
            })
            .collect();
        let file = format!("app-{i:05}.yaml");
        let body = if generators {
            let name = format!("app-{i:05}");
            let team = ["payments", "search", "checkout", "identity"][i % 4];
            let _ = write!(
                gen_cm,
                "- name: {name}-config\n  namespace: {team}\n  literals: [LOG_LEVEL=info, CACHE_TTL=300, POOL={}]\n",
                4 + i % 13
            );
            let _ = write!(
                gen_secret,
                "- name: {name}-db\n  namespace: {team}\n  literals: [username={name}-user, password=s3cr3t-{i:08x}]\n"
            );
            docs[0].clone()
        } else {
            docs.join("---\n")
        };
        fs::write(pkg.join(&file), body).expect("write package file");
        let _ = writeln!(kustomization, "- {file}");
    }
    if generators {
        kustomization.push_str(&gen_cm);
        kustomization.push_str(&gen_secret);
    }
    fs::write(pkg.join("kustomization.yaml"), kustomization).expect("write kustomization");
    pkg
}

/// What one run of a binary cost.
struct Run {
    /// Measured here: finer than `time`'s 10 ms.
    wall: Duration,
    /// User + system time, from `/usr/bin/time`: what the run would take on an idle
    /// machine, give or take cache effects.
    cpu_secs: f64,
    /// Peak resident set size, from `/usr/bin/time -f %M`.
    rss_kib: u64,
}

/// Runs a config-hash binary once on `input`, stdout to /dev/null.
fn run_bin(bin: &Path, args: &[&str], input: &Path) -> Option<Run> {
    let args: Vec<&std::ffi::OsStr> = args.iter().map(std::ffi::OsStr::new).collect();
    timed(&bin.to_string_lossy(), &args, Some(input))
}

/// Whether `bin` finishes on `input` within [`REFERENCE_PATIENCE_SECS`], natively
/// (coreutils' `timeout` kills it otherwise).
fn finishes(bin: &Path, args: &[&str], input: &Path) -> bool {
    let status = Command::new("timeout")
        .args(["-s", "KILL", &REFERENCE_PATIENCE_SECS.to_string()])
        .arg(bin)
        .args(args)
        .stdin(File::open(input).expect("open input"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    // Stopped, `timeout` exits 124, or dies by the same signal (no exit code at all).
    status.is_ok_and(|s| s.code().is_some_and(|c| c != 124))
}

/// Runs the binary once with stdout captured: every Deployment got a 64-hex hash.
fn verify_stamped(input: &Path, n: usize) {
    let out = Command::new(BIN)
        .stdin(File::open(input).expect("open input"))
        .output()
        .expect("run config-hash");
    assert!(out.status.success(), "config-hash failed: {:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("UTF-8 output");
    let key = "config-hash.dev/hash: \"";
    let hashes: Vec<&str> = text
        .match_indices(key)
        .map(|(at, _)| &text[at + key.len()..])
        .map(|rest| &rest[..rest.find('"').unwrap_or(rest.len())])
        .collect();
    assert_eq!(hashes.len(), n, "expected one hash per Deployment");
    assert!(
        hashes
            .iter()
            .all(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit())),
        "every hash is 64 hex digits"
    );
    let mut distinct = hashes.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert_eq!(distinct.len(), n, "each Deployment reads different data");
    println!(
        "verified: N = {n}: {} workloads stamped, all hashes distinct",
        hashes.len()
    );
}
