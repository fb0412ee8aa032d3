//! config-hash as a kpt wasm function (experimental): `kpt fn eval --allow-alpha-wasm
//! --exec config-hash-kpt-fn.wasm` with `KPT_FN_WASM_RUNTIME=nodejs`.
//!
//! kpt's nodejs runtime runs a wasm module the way Go's `wasm_exec.js` runs a Go program
//! built for `js/wasm`: it instantiates the module with Go's imports (module `go`,
//! every function taking one stack pointer), calls the export `run`, then calls the
//! global JavaScript function `processResourceList(input)` the program registered, and
//! prints what it returns (or, when that holds no `kind: ResourceList`, what
//! `processResourceListErrors(input)` returns). This crate speaks that ABI around the
//! library, and nothing else: no Go runtime, only the handful of `syscall/js` calls that
//! registering two functions and answering them needs.
//!
//! On any target but `wasm32-unknown-unknown` the crate is empty, so the workspace's host
//! builds and lints pass over it.

#[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
mod go_js;

/// What a call of `processResourceList(input)` answers, and whether the run failed:
/// the output ResourceList (with results; items left as they were on an error), or,
/// when the input cannot be read as one, the error's words (`processResourceListErrors`
/// answers those too).
pub fn process_resource_list(input: &str) -> (String, bool) {
    match config_hash::run_resource_list(input) {
        Ok(outcome) => (outcome.output, outcome.exit_code != 0),
        Err(e) => (format!("config-hash: {e}\n"), true),
    }
}
