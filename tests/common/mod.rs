//! Helpers shared by the tests: the test harness for tests that need a tool
//! ([`harness`]), where the cases are (golden cases under `testdata/`, example packages,
//! the user documentation), unique temp dirs and copies of `examples/`, running the
//! binary or another command, and PATH with the built binary's directory first.

// Each test file is its own crate that compiles this module with `mod common;` and uses
// only some of its helpers; the rest would be dead code in that crate.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use yaml_serde::Value;

pub mod harness;

/// The config-hash binary cargo built for this test run.
pub const BINARY: &str = env!("CARGO_BIN_EXE_config-hash");

/// `examples/<example>` in the crate.
pub fn example_dir(example: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("examples")
        .join(example)
}

/// A path under the system temp dir that no other test (in this process or another)
/// uses: `config-hash-<label>-<pid>-<nanos>-<counter>`. Not created.
pub fn unique_temp_dir(label: &str) -> PathBuf {
    static COUNTER: AtomicUsize = AtomicUsize::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "config-hash-{label}-{}-{nanos}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ))
}

/// Copies the tree `from` to `to`, creating `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap_or_else(|e| panic!("create {}: {e}", to.display()));
    for entry in fs::read_dir(from).unwrap_or_else(|e| panic!("list {}: {e}", from.display())) {
        let entry = entry.expect("list dir");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            fs::copy(entry.path(), &target).expect("copy file");
        }
    }
}

/// Replaces the one occurrence of `from` in `dir/file` with `to`.
pub fn replace_once(dir: &Path, file: &str, from: &str, to: &str) {
    let path = dir.join(file);
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {file} from {}: {e}", dir.display()));
    assert_eq!(
        text.matches(from).count(),
        1,
        "{file} must hold {from:?} once"
    );
    fs::write(&path, text.replace(from, to)).expect("write edited file");
}

/// A fresh temp dir (see [`unique_temp_dir`]), removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new(label: &str) -> Self {
        let dir = unique_temp_dir(label);
        fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
        TempDir(dir)
    }

    /// A copy of `examples/<example>` in a fresh temp dir labelled `<label>-<example>`.
    pub fn copy_of(label: &str, example: &str) -> Self {
        let dir = TempDir::new(&format!("{label}-{example}"));
        copy_dir(&example_dir(example), &dir.0);
        dir
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn str(&self) -> &str {
        self.0.to_str().expect("UTF-8 temp path")
    }

    /// Writes `file` and returns its path as a string.
    pub fn write(&self, file: &str, text: &str) -> String {
        let path = self.0.join(file);
        fs::write(&path, text).expect("write temp file");
        path.to_str().expect("UTF-8 temp path").to_owned()
    }

    /// Replaces the one occurrence of `from` in `file` with `to`.
    pub fn edit(&self, file: &str, from: &str, to: &str) {
        replace_once(&self.0, file, from, to);
    }

    /// Every file under the dir, by relative path, as bytes.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, Vec<u8>> {
        fn walk(root: &Path, dir: &Path, files: &mut BTreeMap<PathBuf, Vec<u8>>) {
            for entry in fs::read_dir(dir).expect("list dir") {
                let entry = entry.expect("list dir");
                if entry.file_type().expect("file type").is_dir() {
                    walk(root, &entry.path(), files);
                } else {
                    let rel = entry.path().strip_prefix(root).expect("under root").into();
                    files.insert(rel, fs::read(entry.path()).expect("read file"));
                }
            }
        }
        let mut files = BTreeMap::new();
        walk(&self.0, &self.0, &mut files);
        files
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Where `tool` is on PATH.
pub fn which(tool: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(tool))
        .find(|path| path.is_file())
}

/// Panics with the output unless `output` is a success.
pub fn assert_success(output: &Output, what: &str) {
    assert!(
        output.status.success(),
        "{what} failed ({}):\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs `command`, panicking with its output unless it exits 0.
pub fn run(command: &mut Command) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert_success(&output, &format!("{command:?}"));
    output
}

/// `command`'s output, retrying while its program is "text file busy": an executable
/// this process has just written may be held open for writing, for a moment, by a
/// child another test thread forked meanwhile (until that child execs), and exec then
/// fails with ETXTBSY. Use it for a binary a test copies and then runs.
pub fn output_of_fresh_executable(command: &mut Command) -> Output {
    for _ in 0..200 {
        match command.output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            result => return result.unwrap_or_else(|e| panic!("cannot run {command:?}: {e}")),
        }
    }
    panic!("{command:?}: text file busy for 2 s");
}

/// PATH with `dir` first.
pub fn path_with(dir: &Path) -> OsString {
    let mut paths = vec![dir.to_path_buf()];
    paths.extend(std::env::split_paths(
        &std::env::var_os("PATH").unwrap_or_default(),
    ));
    std::env::join_paths(paths).expect("join PATH")
}

/// PATH with the built binary's directory first, so `config-hash` runs the build.
pub fn path_with_binary() -> OsString {
    path_with(Path::new(BINARY).parent().expect("binary has a directory"))
}

/// Whether `s` is a hash as config-hash writes it: 64 lowercase hex digits.
pub fn is_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The pod template of a workload (a CronJob's is under its job template).
pub fn pod_template(doc: &Value) -> &Value {
    match doc["kind"].as_str() {
        Some("CronJob") => &doc["spec"]["jobTemplate"]["spec"]["template"],
        _ => &doc["spec"]["template"],
    }
}

/// Runs `command` with `stdin` written to it (from another thread, so a large output
/// cannot fill the stdout pipe while stdin is still being written), and returns its
/// output whatever the exit status. A command that exits without reading all of stdin
/// is not an error here.
pub fn run_with_stdin(command: &mut Command, stdin: impl Into<Vec<u8>>) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    let mut input = child.stdin.take().expect("stdin is piped");
    let stdin = stdin.into();
    let writer = std::thread::spawn(move || {
        let _ = input.write_all(&stdin);
    });
    let output = child.wait_with_output().expect("wait for the command");
    writer.join().expect("stdin writer thread");
    output
}

/// `config-hash ARGS` with `stdin`, with no hash key from the environment (expected
/// outputs are unkeyed hashes, whatever the developer's shell holds).
pub fn config_hash(args: &[&str], stdin: &str) -> Output {
    run_with_stdin(
        Command::new(BINARY)
            .args(args)
            .env_remove("CONFIG_HASH_KEY")
            .env_remove("CONFIG_HASH_KEY_FILE"),
        stdin,
    )
}

/// The repository's root.
pub fn repo_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A golden case: one directory under `testdata/`.
#[derive(Debug, Clone)]
pub struct GoldenCase {
    pub dir: PathBuf,
    pub name: String,
}

impl GoldenCase {
    /// Its input (`input.yaml` or `input.json`), if it has one.
    pub fn input(&self) -> Option<PathBuf> {
        ["input.yaml", "input.json"]
            .iter()
            .map(|f| self.dir.join(f))
            .find(|p| p.is_file())
    }
}

/// Every golden case, sorted by name. Panics when there is none: a harness that finds
/// no case tests nothing.
pub fn golden_cases() -> Vec<GoldenCase> {
    cases_where(|dir| !is_prune_case(dir))
}

/// A `prune` case: a directory holding `live.yaml` (see tests/golden.rs).
pub fn is_prune_case(dir: &Path) -> bool {
    dir.join("live.yaml").is_file()
}

/// Every `prune` golden case, sorted by name; panics when there is none.
pub fn prune_cases() -> Vec<GoldenCase> {
    cases_where(is_prune_case)
}

fn cases_where(keep: fn(&Path) -> bool) -> Vec<GoldenCase> {
    let root = repo_root().join("testdata");
    let mut cases: Vec<GoldenCase> = fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_dir() && keep(p))
        .map(|dir| GoldenCase {
            name: dir
                .file_name()
                .expect("a name")
                .to_string_lossy()
                .into_owned(),
            dir,
        })
        .collect();
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    assert!(!cases.is_empty(), "no golden case under {}", root.display());
    cases
}

/// Every kpt package under `examples/` (a directory holding a Kptfile), sorted.
pub fn example_packages() -> Vec<PathBuf> {
    let root = repo_root().join("examples");
    let mut dirs: Vec<PathBuf> = fs::read_dir(&root)
        .expect("list examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("Kptfile").is_file())
        .collect();
    dirs.sort();
    assert!(!dirs.is_empty(), "no kpt package under {}", root.display());
    dirs
}

/// The user documentation: README.md and every Markdown page of the book in `docs/`,
/// with their paths relative to the repository.
pub fn user_docs() -> Vec<(PathBuf, String)> {
    let root = repo_root();
    let mut pages: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .expect("list docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(root).expect("under the root").to_path_buf())
        .collect();
    pages.sort();
    pages.insert(0, PathBuf::from("README.md"));
    pages
        .into_iter()
        .map(|page| {
            let text = fs::read_to_string(root.join(&page))
                .unwrap_or_else(|e| panic!("read {}: {e}", page.display()));
            (page, text)
        })
        .collect()
}

/// splitmix64: a tiny, good-enough PRNG, so a seed reproduces a generated case anywhere.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True once in `n` draws on average.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }

    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }
}

/// The environment variable that adds random seeds to the randomised tests: a count
/// (`CONFIG_HASH_RANDOM_SEEDS=3`). Unset (or 0), they run their fixed seeds only, so
/// `cargo test` gives the same answer on every run; CI runs a step of its own with it.
pub const RANDOM_SEEDS_VAR: &str = "CONFIG_HASH_RANDOM_SEEDS";

/// How many random seeds `CONFIG_HASH_RANDOM_SEEDS` asks for (0 when unset).
pub fn random_seed_count() -> usize {
    match std::env::var(RANDOM_SEEDS_VAR) {
        Ok(v) if !v.trim().is_empty() => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{RANDOM_SEEDS_VAR}={v:?}: a count of random seeds")),
        _ => 0,
    }
}

/// The seeds a differential test runs: the numbers in the environment variable `var`
/// (comma-separated, decimal or `0x` hex) when it is set, else every `fixed` seed (a
/// seed that once found a bug stays there for good) and [`random_seed_count`] random
/// ones (which the test prints, so a failure can be run again and added to `fixed`).
pub fn seeds(var: &str, fixed: &[u64]) -> Vec<u64> {
    if let Ok(list) = std::env::var(var) {
        return list
            .split(',')
            .map(|s| {
                let s = s.trim();
                s.strip_prefix("0x")
                    .map_or_else(|| s.parse(), |h| u64::from_str_radix(h, 16))
                    .unwrap_or_else(|_| panic!("{var}: numbers, comma-separated"))
            })
            .collect();
    }
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut rng = Rng(nanos as u64 ^ u64::from(std::process::id()));
    fixed
        .iter()
        .copied()
        .chain((0..random_seed_count()).map(|_| rng.next()))
        .collect()
}

/// Runs `shell_command` (sh syntax) in a terminal made by `script` (util-linux), and
/// returns what the terminal showed. Redirect the command's stdout and stderr to files
/// to see only what reached the terminal itself (`/dev/tty`).
pub fn in_terminal(shell_command: &str, envs: &[(&str, &OsStr)]) -> String {
    let mut command = Command::new("script");
    command.args(["-qec", shell_command, "/dev/null"]);
    for (k, v) in envs {
        command.env(k, v);
    }
    let output = run(command.stdin(Stdio::null()));
    String::from_utf8_lossy(&output.stdout).replace("\r\n", "\n")
}
