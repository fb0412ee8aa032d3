//! kpt's glue reads the module's memory as the export `mem` (Go's name), not `memory`.
fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target == "wasm32-unknown-unknown" {
        println!("cargo:rustc-link-arg-cdylib=--export-memory=mem");
    }
}
