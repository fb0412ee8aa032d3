//! The most heap a binary holds at once on one input, whole process, under valgrind's
//! DHAT: the memory figure that does not move with what else the machine runs (peak RSS
//! does, with thread timing and the allocator's choices).

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs `bin args` once under DHAT, stdin from `input`, stdout to /dev/null, on one
/// worker thread (`RAYON_NUM_THREADS=1`: the order of allocations, and so the peak, is
/// then the same every run), and returns the bytes live at the peak (DHAT's "At
/// t-gmax"). An error when the program fails or DHAT writes no peak.
pub fn heap_peak(bin: &Path, args: &[&str], input: &Path) -> Result<u64, String> {
    let tag: String = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // DHAT's summary goes to a file of its own: the program's stderr is not mixed in.
    let log = std::env::temp_dir().join(format!(
        "config-hash-dhat-{}-{tag}-{}.log",
        std::process::id(),
        args.join("").replace('/', "_")
    ));
    let run = Command::new("valgrind")
        .arg("--tool=dhat")
        .arg("--dhat-out-file=/dev/null")
        .arg(format!("--log-file={}", log.display()))
        .arg(bin)
        .args(args)
        .env("RAYON_NUM_THREADS", "1")
        .stdin(fs::File::open(input).map_err(|e| format!("{}: {e}", input.display()))?)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| format!("cannot run valgrind: {e}"))?;
    let text = fs::read_to_string(&log).unwrap_or_default();
    let _ = fs::remove_file(&log);
    if !run.status.success() {
        return Err(format!(
            "{} failed under valgrind's DHAT on {tag} ({}): {}",
            bin.display(),
            run.status,
            String::from_utf8_lossy(&run.stderr).trim()
        ));
    }
    // `==123== At t-gmax: 6,835,512 bytes in 38,124 blocks`
    text.lines()
        .find_map(|l| l.split_once("At t-gmax:").map(|(_, rest)| rest))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .ok_or_else(|| format!("no peak (At t-gmax) in DHAT's output for {tag}"))
}
