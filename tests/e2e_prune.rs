//! End to end: two releases of `examples/name-suffix` rendered with hashed names (for
//! Argo CD, which then leaves the old objects to prune), a live dump faked from them as
//! `kubectl get ... -o yaml` would show them mid-way through the second rollout, and what
//! `config-hash prune` lists as that dump changes: nothing while the old ReplicaSet (what
//! a rollback scales up) reads the old ConfigMap, the old ConfigMap once that ReplicaSet
//! is gone, nothing under the default --keep, and a refusal for a dump without
//! ReplicaSets.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use serde::Deserialize as _;
use serde_json::{Value, json};

const BIN: &str = env!("CARGO_BIN_EXE_config-hash");

/// The example rendered: its stdout, every document.
fn release(dir: &Path) -> (String, Vec<Value>) {
    let out = common::run(
        Command::new(BIN)
            .args(["--name-suffix", "--gitops", "argocd"])
            .arg(dir)
            .env_remove("CONFIG_HASH_KEY"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let docs = yaml_serde::Deserializer::from_str(&text)
        .map(|d| {
            let v = yaml_serde::Value::deserialize(d).unwrap();
            serde_json::to_value(v).unwrap()
        })
        .filter(|v| !v.is_null())
        .collect();
    (text, docs)
}

fn of_kind<'v>(docs: &'v [Value], kind: &str) -> Vec<&'v Value> {
    docs.iter().filter(|d| d["kind"] == kind).collect()
}

/// What the API server shows of a ConfigMap or Secret applied at `created`: a Secret's
/// `stringData` is stored, and shown, base64-encoded under `data`.
fn live_source(doc: &Value, created: &str) -> Value {
    use base64::Engine as _;
    let mut doc = doc.clone();
    doc["metadata"]["creationTimestamp"] = json!(created);
    doc["metadata"]["uid"] = json!(format!("uid-{}", doc["metadata"]["name"].as_str().unwrap()));
    if let Some(Value::Object(strings)) = doc.as_object_mut().and_then(|d| d.remove("stringData")) {
        for (key, value) in strings {
            let encoded = base64::engine::general_purpose::STANDARD.encode(value.as_str().unwrap());
            doc["data"][key] = json!(encoded);
        }
    }
    doc
}

/// The ReplicaSet a Deployment's template made, and its Pods.
fn replica_set(deployment: &Value, name: &str, replicas: u64) -> Vec<Value> {
    let ns = &deployment["metadata"]["namespace"];
    let template = &deployment["spec"]["template"];
    let mut out = vec![json!({
        "apiVersion": "apps/v1",
        "kind": "ReplicaSet",
        "metadata": {
            "name": name, "namespace": ns, "uid": format!("uid-{name}"),
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "shop", "uid": "uid-shop"}],
        },
        "spec": {"replicas": replicas, "template": template},
        "status": {"replicas": replicas},
    })];
    for i in 0..replicas {
        out.push(json!({
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": format!("{name}-{i}"), "namespace": ns, "uid": format!("uid-{name}-{i}"),
                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": name, "uid": format!("uid-{name}")}],
            },
            "spec": template["spec"],
        }));
    }
    out
}

fn prune(dir: &common::TempDir, dump: &[Value], render: &str, args: &[&str]) -> Output {
    let live = dir.write(
        "live.json",
        &serde_json::to_string(&json!({"apiVersion": "v1", "kind": "List", "items": dump}))
            .unwrap(),
    );
    let render = dir.write("render.yaml", render);
    Command::new(BIN)
        .args(["prune", "--live", &live])
        .args(args)
        .arg(render)
        .output()
        .expect("run config-hash prune")
}

/// The (kind, namespace, name) of every object a `prune` YAML stream lists.
fn listed(out: &Output) -> Vec<(String, String, String)> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout.clone()).unwrap();
    yaml_serde::Deserializer::from_str(&text)
        .map(|d| serde_json::to_value(yaml_serde::Value::deserialize(d).unwrap()).unwrap())
        .filter(|v| !v.is_null())
        .map(|v| {
            let s = |v: &Value| v.as_str().unwrap().to_string();
            assert_eq!(v["apiVersion"], "v1", "{text}");
            (
                s(&v["kind"]),
                s(&v["metadata"]["namespace"]),
                s(&v["metadata"]["name"]),
            )
        })
        .collect()
}

#[test]
fn prune_keeps_what_a_rollback_needs_and_lists_the_rest() {
    let work = common::TempDir::copy_of("prune", "name-suffix");
    let (_, first) = release(work.path());
    work.edit("configmap.yaml", "A: \"1\"", "A: \"2\"");
    let (second_text, second) = release(work.path());

    let config = |docs: &[Value]| of_kind(docs, "ConfigMap")[0].clone();
    let (old, new) = (config(&first), config(&second));
    let old_name = old["metadata"]["name"].as_str().unwrap().to_string();
    assert_ne!(
        old_name,
        new["metadata"]["name"].as_str().unwrap(),
        "a new hashed name"
    );
    assert!(old_name.starts_with("app-config-"), "{old_name}");
    // Argo CD leaves the old copy to prune.
    assert_eq!(
        old["metadata"]["annotations"]["argocd.argoproj.io/sync-options"],
        "Prune=false"
    );

    // Mid-way through the second rollout: both ConfigMaps, the unchanged Secret once,
    // the first ReplicaSet scaled to zero and the second running.
    let mut dump = vec![
        live_source(&old, "2026-11-01T10:00:00Z"),
        live_source(&new, "2026-11-02T10:00:00Z"),
    ];
    dump.extend(
        of_kind(&first, "Secret")
            .into_iter()
            .map(|s| live_source(s, "2026-11-01T10:00:00Z")),
    );
    let deployment = |docs: &[Value]| of_kind(docs, "Deployment")[0].clone();
    let old_rs = replica_set(&deployment(&first), "shop-1", 0);
    let new_rs = replica_set(&deployment(&second), "shop-2", 2);
    let full: Vec<Value> = dump.iter().chain(&old_rs).chain(&new_rs).cloned().collect();

    let out = prune(&work, &full, &second_text, &["--keep", "0"]);
    assert_eq!(
        listed(&out),
        [],
        "the old ReplicaSet still reads the old ConfigMap"
    );
    let table = prune(
        &work,
        &full,
        &second_text,
        &["--keep", "0", "--format", "table"],
    );
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.lines().any(|l| l.starts_with("keep ")
            && l.contains(&old_name)
            && l.ends_with("read by ReplicaSet shop/shop-1 at spec.template.spec.containers[0].envFrom[0].configMapRef")),
        "{table}"
    );

    // The old ReplicaSet is gone (past the Deployment's revisionHistoryLimit).
    let past: Vec<Value> = dump.iter().chain(&new_rs).cloned().collect();
    let out = prune(&work, &past, &second_text, &["--keep", "0"]);
    assert_eq!(
        listed(&out),
        [(
            "ConfigMap".to_string(),
            "shop".to_string(),
            old_name.clone()
        )]
    );
    // The default keeps the newest two old versions.
    assert_eq!(listed(&prune(&work, &past, &second_text, &[])), []);

    // Without ReplicaSets the Pods' owners are unknown: refused, naming the kind.
    let no_rs: Vec<Value> = full
        .into_iter()
        .filter(|d| d["kind"] != "ReplicaSet")
        .collect();
    let out = prune(&work, &no_rs, &second_text, &["--keep", "0"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("the live dump has no replicasets"),
        "{stderr}"
    );
}
