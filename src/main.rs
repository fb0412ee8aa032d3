//! The config-hash binary: the command line lives in `cli/`, the function in the library.

mod cli;

/// musl's own allocator serialises every thread on one lock and returns memory to the
/// kernel at each free: the static release binaries use mimalloc instead (Cargo.toml
/// says what it bought).
#[cfg(target_env = "musl")]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
