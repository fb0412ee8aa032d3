//! End to end with the real kpt: `examples/name-suffix` rendered twice (the second render
//! changes nothing), then its ConfigMap edited and rendered again (a new suffix, every
//! reference follows, suffixes never stack).

#[macro_use]
mod common;

use common::harness::Need;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A copy of `examples/<example>` in a fresh temp dir (removed by the test when it passes).
fn temp_copy(example: &str) -> PathBuf {
    let dir = common::unique_temp_dir("suffix");
    common::copy_dir(&common::example_dir(example), &dir);
    dir
}

fn render(dir: &Path) {
    common::run(
        Command::new("kpt")
            .args(["fn", "render", dir.to_str().unwrap(), "--allow-exec"])
            .env("PATH", common::path_with_binary()),
    );
}

fn read(dir: &Path, file: &str) -> String {
    fs::read_to_string(dir.join(file)).unwrap()
}

/// The package's files (not `.expected/`, the catalog-style test expectations).
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = fs::read_dir(dir)
        .unwrap()
        .filter(|e| e.as_ref().map_or(true, |e| e.file_name() != ".expected"))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read_to_string(e.path()).unwrap(),
            )
        })
        .collect();
    files.sort();
    files
}

fn value(text: &str) -> yaml_serde::Value {
    yaml_serde::from_str(text).unwrap()
}

fn name_of(text: &str) -> String {
    value(text)["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string()
}

fn render_suffixes_names_idempotently_and_follows_content_changes() {
    let dir = temp_copy("name-suffix");
    render(&dir);

    // The documented kustomize vector: literals A=1, B=two give app-config-6b56fdfggc.
    let cm = read(&dir, "configmap.yaml");
    assert_eq!(name_of(&cm), "app-config-6b56fdfggc");
    let cm_value = value(&cm);
    assert_eq!(
        cm_value["metadata"]["annotations"]["config-hash.dev/base-name"].as_str(),
        Some("app-config")
    );
    assert_eq!(cm_value["immutable"].as_bool(), Some(true));
    let secret = name_of(&read(&dir, "secret.yaml"));
    assert!(
        secret.starts_with("registry-credentials-")
            && secret.len() == "registry-credentials-".len() + 10
    );

    let deploy = value(&read(&dir, "deployment.yaml"));
    let pod = &deploy["spec"]["template"]["spec"];
    assert_eq!(
        pod["containers"][0]["envFrom"][0]["configMapRef"]["name"].as_str(),
        Some("app-config-6b56fdfggc")
    );
    assert_eq!(
        pod["imagePullSecrets"][0]["name"].as_str(),
        Some(secret.as_str())
    );
    let first_hash = deploy["spec"]["template"]["metadata"]["annotations"]["config-hash.dev/hash"]
        .as_str()
        .unwrap()
        .to_string();
    let sa = value(&read(&dir, "serviceaccount.yaml"));
    assert_eq!(
        sa["imagePullSecrets"][0]["name"].as_str(),
        Some(secret.as_str())
    );
    // The comment in the Deployment survives.
    assert!(read(&dir, "deployment.yaml").contains("# pinned"));

    // A second render leaves every file byte-identical.
    let before = snapshot(&dir);
    render(&dir);
    assert_eq!(snapshot(&dir), before, "a second render changed files");

    // Change the data: a new suffix from the base name, references follow, no stacking.
    let edited = read(&dir, "configmap.yaml").replace("B: two", "B: three");
    fs::write(dir.join("configmap.yaml"), edited).unwrap();
    render(&dir);
    let new_name = name_of(&read(&dir, "configmap.yaml"));
    assert_ne!(new_name, "app-config-6b56fdfggc");
    assert!(
        new_name.starts_with("app-config-") && new_name.len() == "app-config-".len() + 10,
        "{new_name}"
    );
    let deploy = value(&read(&dir, "deployment.yaml"));
    assert_eq!(
        deploy["spec"]["template"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
            .as_str(),
        Some(new_name.as_str())
    );
    let new_hash = deploy["spec"]["template"]["metadata"]["annotations"]["config-hash.dev/hash"]
        .as_str()
        .unwrap();
    assert_ne!(new_hash, first_hash);
    // The Secret did not change, so neither did its name or the ServiceAccount.
    assert_eq!(name_of(&read(&dir, "secret.yaml")), secret);
    assert_eq!(
        snapshot(&dir).iter().find(|f| f.0 == "serviceaccount.yaml"),
        before.iter().find(|f| f.0 == "serviceaccount.yaml")
    );
    fs::remove_dir_all(&dir).ok();
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![trial!(
        render_suffixes_names_idempotently_and_follows_content_changes,
        Need::tool("kpt")
    )])
}
