//! End to end with the real kpt: `examples/sealed-and-external-secrets` holds a
//! Deployment reading two Secrets that git holds only as a SealedSecret and an
//! ExternalSecret. `kpt fn render` resolves both through their producers (no
//! missing-reference warning), a second render changes nothing, and editing either
//! producer's part that git controls rolls the Deployment.

#[macro_use]
mod common;

use common::harness::Need;
use std::path::Path;
use std::process::Command;

fn render(dir: &Path) -> String {
    let results = common::TempDir::new("producers-results");
    common::run(
        Command::new("kpt")
            .args(["fn", "render", dir.to_str().unwrap(), "--allow-exec"])
            .arg(format!("--results-dir={}", results.str()))
            .env("PATH", common::path_with_binary()),
    );
    std::fs::read_to_string(results.path().join("results.yaml")).unwrap()
}

fn hash(dir: &common::TempDir) -> String {
    let text = std::fs::read_to_string(dir.path().join("deployment.yaml")).unwrap();
    let d: yaml_serde::Value = yaml_serde::from_str(&text).unwrap();
    common::pod_template(&d)["metadata"]["annotations"]["config-hash.dev/hash"]
        .as_str()
        .expect("the Deployment is stamped")
        .to_string()
}

fn sealed_and_external_secrets_resolve_under_kpt_render_twice() {
    let dir = common::TempDir::copy_of("producers", "sealed-and-external-secrets");
    let results = render(dir.path());
    assert!(!results.contains("not in the input"), "{results}");
    assert!(
        results.contains("Secret db-password (made by SealedSecret db-password)"),
        "{results}"
    );
    assert!(
        results.contains("cannot be seen at build time"),
        "{results}"
    );
    // The ciphertext is hashed, never shown.
    assert!(!results.contains("AgBy3i4O"), "{results}");
    let first = hash(&dir);
    assert!(common::is_hash(&first), "{first}");

    let before = dir.snapshot();
    render(dir.path());
    assert_eq!(dir.snapshot(), before, "a second render changed files");

    // Resealing changes the ciphertext, and so the hash.
    dir.edit("sealedsecret.yaml", "AgBy3i4OJSWK", "AgCx9q2LMNOP");
    render(dir.path());
    let resealed = hash(&dir);
    assert_ne!(resealed, first, "a resealed value must roll the Deployment");

    // A different remote reference in the ExternalSecret's spec rolls it too.
    dir.edit(
        "externalsecret.yaml",
        "property: token",
        "property: token-v2",
    );
    render(dir.path());
    assert_ne!(
        hash(&dir),
        resealed,
        "an ExternalSecret spec edit must roll it"
    );
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![trial!(
        sealed_and_external_secrets_resolve_under_kpt_render_twice,
        Need::tool("kpt")
    )])
}
