//! `diff` and `audit` driven through the binary on the examples: what a reviewer sees.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::{BINARY, TempDir};

fn config_hash(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(BINARY);
    cmd.args(args)
        .env_remove("CONFIG_HASH_KEY")
        .env_remove("CONFIG_HASH_KEY_FILE")
        .env_remove("CONFIG_HASH_ON_MISSING");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run config-hash")
}

const FORMATS: [&str; 3] = ["table", "markdown", "json"];

/// `diff BEFORE AFTER` in each format: (format, exit code, stdout, stderr).
fn diff_all(
    before: &Path,
    after: &Path,
    env: &[(&str, &str)],
) -> Vec<(String, i32, String, String)> {
    FORMATS
        .iter()
        .map(|format| {
            let out = config_hash(
                &[
                    "diff",
                    before.to_str().unwrap(),
                    after.to_str().unwrap(),
                    "--format",
                    format,
                ],
                env,
            );
            (
                format.to_string(),
                out.status.code().unwrap_or(-1),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        })
        .collect()
}

/// The workloads that roll and the keys named, read from the JSON.
fn rolls(json: &str) -> Vec<(String, Vec<String>)> {
    let v: serde_json::Value = serde_json::from_str(json).expect("diff --format json is JSON");
    v["rolls"]
        .as_array()
        .expect("rolls")
        .iter()
        .map(|r| {
            let keys = r["sources"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|s| s["keys"].as_array().unwrap().iter())
                .map(|k| k.as_str().unwrap().to_string())
                .collect();
            (
                format!(
                    "{} {}",
                    r["workload"]["kind"].as_str().unwrap(),
                    r["workload"]["name"].as_str().unwrap()
                ),
                keys,
            )
        })
        .collect()
}

/// Every run exits 0 and none of its output holds `value`, nor anything that looks like
/// a hash (a keyed hash is derived from values too).
fn assert_never_shown(runs: &[(String, i32, String, String)], value: &str) {
    for (format, code, stdout, stderr) in runs {
        assert_eq!(*code, 0, "{format}: {stderr}");
        for text in [stdout, stderr] {
            assert!(!text.contains(value), "{format} shows the value:\n{text}");
            let hex_run = text
                .split(|c: char| !c.is_ascii_hexdigit())
                .any(|w| w.len() >= 16);
            assert!(!hex_run, "{format} shows something hash-like:\n{text}");
        }
    }
}

#[test]
fn one_changed_key_names_exactly_the_workloads_that_see_it_and_never_its_value() {
    let before = TempDir::copy_of("diff-before", "basic");
    let after = TempDir::copy_of("diff-after", "basic");
    // Only the Deployment sees FEATURE_FLAGS (envFrom and the volume); the CronJob reads
    // LOG_LEVEL alone.
    let value = "zq-distinctive-7781";
    after.edit(
        "configmap.yaml",
        "FEATURE_FLAGS: \"search,checkout\"",
        &format!("FEATURE_FLAGS: \"{value}\""),
    );
    let runs = diff_all(before.path(), after.path(), &[]);
    assert_never_shown(&runs, value);
    let json = &runs[2].2;
    assert_eq!(
        rolls(json),
        [(
            "Deployment web".to_string(),
            vec!["FEATURE_FLAGS".to_string()]
        )]
    );
    for (format, _, stdout, _) in &runs {
        assert!(stdout.contains("web"), "{format}:\n{stdout}");
        assert!(stdout.contains("FEATURE_FLAGS"), "{format}:\n{stdout}");
        assert!(!stdout.contains("nightly-report"), "{format}:\n{stdout}");
        assert!(!stdout.contains("LOG_LEVEL"), "{format}:\n{stdout}");
    }

    // LOG_LEVEL: both see it.
    let after = TempDir::copy_of("diff-after", "basic");
    after.edit(
        "configmap.yaml",
        "LOG_LEVEL: info",
        &format!("LOG_LEVEL: {value}"),
    );
    let runs = diff_all(before.path(), after.path(), &[]);
    assert_never_shown(&runs, value);
    assert_eq!(
        rolls(&runs[2].2),
        [
            (
                "CronJob nightly-report".to_string(),
                vec!["LOG_LEVEL".to_string()]
            ),
            ("Deployment web".to_string(), vec!["LOG_LEVEL".to_string()]),
        ]
    );
    for (format, _, stdout, _) in &runs {
        for name in ["nightly-report", "web", "LOG_LEVEL"] {
            assert!(stdout.contains(name), "{format} lacks {name}:\n{stdout}");
        }
        assert!(!stdout.contains("FEATURE_FLAGS"), "{format}:\n{stdout}");
    }
}

#[test]
fn a_changed_secret_key_is_named_and_its_value_never_shown_with_keyed_hashes_too() {
    let before = TempDir::copy_of("diff-before", "basic");
    let after = TempDir::copy_of("diff-after", "basic");
    let value = "Pa55-distinctive-9911";
    after.edit("secret.yaml", "\"change-me\"", &format!("\"{value}\""));
    for env in [&[][..], &[("CONFIG_HASH_KEY", "k3y-for-the-test")][..]] {
        let runs = diff_all(before.path(), after.path(), env);
        assert_never_shown(&runs, value);
        assert_never_shown(&runs, "k3y-for-the-test");
        assert_eq!(
            rolls(&runs[2].2),
            [("Deployment web".to_string(), vec!["password".to_string()])]
        );
    }
    // A key the pod does not see changes nothing that rolls.
    let after = TempDir::copy_of("diff-after", "basic");
    after.edit(
        "secret.yaml",
        "username: web",
        &format!("username: {value}"),
    );
    let runs = diff_all(before.path(), after.path(), &[]);
    assert_never_shown(&runs, value);
    assert!(rolls(&runs[2].2).is_empty());
    assert!(
        runs[0]
            .2
            .starts_with("config-hash diff: 0 workload(s) roll"),
        "{}",
        runs[0].2
    );
}

#[test]
fn diff_reads_stdin_for_one_side_and_refuses_it_for_both() {
    let before = TempDir::copy_of("diff-before", "basic");
    let mut cmd = Command::new(BINARY);
    cmd.args(["diff", "-", before.str(), "--format", "json"]);
    let text = std::fs::read(before.path().join("configmap.yaml")).unwrap();
    let out = common::run_with_stdin(&mut cmd, text);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["added"].as_array().unwrap().len(), 2, "{v}");
    let out = config_hash(&["diff", "-", "-"], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = config_hash(&["diff", before.str()], &[]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

#[test]
fn diff_takes_its_configuration_as_a_run_does_from_the_kptfile_flags_and_config_file() {
    // The Deployment reads only the key `password` of the Secret: under granularity
    // key, a change to `username` rolls nothing; under granularity object it rolls it.
    let before = TempDir::copy_of("diff-before", "basic");
    let after = TempDir::copy_of("diff-after", "basic");
    after.edit("secret.yaml", "username: web", "username: someone-else");
    let rolled = |args: &[&str]| {
        let mut all = vec!["diff", before.str(), after.str(), "--format", "json"];
        all.extend_from_slice(args);
        let out = config_hash(&all, &[]);
        assert_eq!(out.status.code(), Some(0), "{out:?}");
        rolls(&String::from_utf8_lossy(&out.stdout))
    };
    assert!(rolled(&[]).is_empty());
    let object = vec![("Deployment web".to_string(), vec!["username".to_string()])];
    assert_eq!(rolled(&["--granularity", "object"]), object);
    let elsewhere = TempDir::new("diff-config");
    let config = elsewhere.write(
        "config-hash.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {granularity: object}\n",
    );
    assert_eq!(rolled(&["-c", &config]), object);
    // A kpt package's Kptfile configures each side, as a run on it.
    for dir in [&before, &after] {
        dir.edit(
            "Kptfile",
            "    - exec: config-hash\n",
            "    - exec: config-hash\n      configMap: {granularity: object}\n",
        );
    }
    assert_eq!(rolled(&[]), object);
    // The flag wins over the Kptfile, as in a run.
    assert!(rolled(&["--granularity", "key"]).is_empty());
}
