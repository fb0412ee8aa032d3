//! End to end with the real kpt: `examples/custom-resource` declares a custom workload
//! kind and a custom reference field in its ConfigHash; `kpt fn render` stamps the
//! Widget's pod template, renames its ConfigMap and Secret and rewrites both references,
//! a second render changes nothing, and an edit of the ConfigMap rolls the Widget.

#[macro_use]
mod common;

use common::harness::Need;
use std::path::Path;
use std::process::Command;

fn render(dir: &Path) {
    common::run(
        Command::new("kpt")
            .args(["fn", "render", dir.to_str().unwrap(), "--allow-exec"])
            .env("PATH", common::path_with_binary()),
    );
}

fn widget(dir: &common::TempDir) -> yaml_serde::Value {
    let text = std::fs::read_to_string(dir.path().join("widget.yaml")).unwrap();
    yaml_serde::from_str(&text).unwrap()
}

fn hash(w: &yaml_serde::Value) -> String {
    w["spec"]["podTemplate"]["metadata"]["annotations"]["config-hash.dev/hash"]
        .as_str()
        .expect("the Widget's pod template is stamped")
        .to_string()
}

fn a_declared_custom_resource_is_stamped_and_renamed_under_kpt_render() {
    let dir = common::TempDir::copy_of("catalog", "custom-resource");
    render(dir.path());
    let w = widget(&dir);
    let first = hash(&w);
    assert!(common::is_hash(&first), "{first}");
    let cm =
        w["spec"]["podTemplate"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
            .as_str()
            .unwrap()
            .to_string();
    assert!(cm.starts_with("gizmo-settings-") && cm.len() == "gizmo-settings-".len() + 10);
    let secret = w["spec"]["auth"]["secretName"].as_str().unwrap();
    assert!(secret.starts_with("gizmo-token-"), "{secret}");
    let config = std::fs::read_to_string(dir.path().join("config.yaml")).unwrap();
    assert!(config.contains(&format!("name: {cm}")), "{config}");
    assert!(config.contains(&format!("name: {secret}")), "{config}");
    // The comment on the Widget survives.
    assert!(
        std::fs::read_to_string(dir.path().join("widget.yaml"))
            .unwrap()
            .contains("# the operator creates")
    );

    let before = dir.snapshot();
    render(dir.path());
    assert_eq!(dir.snapshot(), before, "a second render changed files");

    dir.edit("config.yaml", "MODE: fast", "MODE: slow");
    render(dir.path());
    let w = widget(&dir);
    assert_ne!(hash(&w), first, "a ConfigMap edit must roll the Widget");
    let new_cm =
        w["spec"]["podTemplate"]["spec"]["containers"][0]["envFrom"][0]["configMapRef"]["name"]
            .as_str()
            .unwrap();
    assert_ne!(new_cm, cm);
    assert!(
        new_cm.starts_with("gizmo-settings-"),
        "suffixes never stack: {new_cm}"
    );

    // graph, with the same functionConfig, shows both edges of the Widget.
    let out = common::run(
        Command::new(env!("CARGO_BIN_EXE_config-hash"))
            .args(["graph", "-c"])
            .arg(dir.path().join("config-hash.yaml"))
            .arg(dir.path().join("widget.yaml"))
            .arg(dir.path().join("config.yaml")),
    );
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        table.contains(&format!("Widget gizmo  ConfigMap {new_cm}")) && table.contains("found"),
        "{table}"
    );
    assert!(table.contains(&format!("Secret {secret}")), "{table}");
}

fn main() -> std::process::ExitCode {
    common::harness::run(vec![trial!(
        a_declared_custom_resource_is_stamped_and_renamed_under_kpt_render,
        Need::tool("kpt")
    )])
}
