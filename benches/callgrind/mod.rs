//! Instructions a binary executes on one input, whole process, under valgrind's
//! callgrind: the CPU figure that does not move with what else the machine runs. Shared
//! by `instructions` (the gate) and `throughput` (this binary beside the reference).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Whether `valgrind` can be run.
pub fn available() -> bool {
    Command::new("valgrind")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `bin args` once under callgrind, stdin from `input`, stdout to /dev/null, on one
/// worker thread (`RAYON_NUM_THREADS=1`: with more, how long an idle thread spins before
/// it sleeps depends on timing), and returns the instructions executed (callgrind's
/// `Ir`). An error when the program fails or callgrind writes no total.
pub fn count(bin: &Path, args: &[&str], input: &Path) -> Result<u64, String> {
    let tag: String = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let out_file = std::env::temp_dir().join(format!(
        "config-hash-callgrind-{}-{tag}-{}.out",
        std::process::id(),
        args.join("").replace('/', "_")
    ));
    let run = Command::new("valgrind")
        .arg("--tool=callgrind")
        .arg(format!("--callgrind-out-file={}", out_file.display()))
        .arg("-q")
        .arg(bin)
        .args(args)
        .env("RAYON_NUM_THREADS", "1")
        .stdin(fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = fs::read_to_string(&out_file).unwrap_or_default();
    let _ = fs::remove_file(&out_file);
    if !run.status.success() {
        return Err(format!(
            "{} failed under valgrind on {tag} ({}): {}",
            bin.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    // The `summary:` (or `totals:`) line: the event counts, Ir first.
    text.lines()
        .find_map(|l| {
            l.strip_prefix("summary:")
                .or_else(|| l.strip_prefix("totals:"))
        })
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| format!("no instruction total in callgrind's output for {tag}"))
}
