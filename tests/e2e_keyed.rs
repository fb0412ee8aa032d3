//! Keyed hashing through the built binary: the key comes from `--key-file`,
//! `CONFIG_HASH_KEY_FILE` or `CONFIG_HASH_KEY` (never from the functionConfig), the
//! stamp says it is keyed, and `--check` or a later run without the key refuses to
//! guess instead of silently replacing it.

mod common;

use std::process::{Command, Output};

use common::{BINARY, TempDir};

const STREAM: &str = "apiVersion: v1
kind: Secret
metadata:
  name: db
stringData:
  PASSWORD: hunter2
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: app
        envFrom:
        - secretRef:
            name: db
";

/// Runs config-hash with a clean key environment plus `env`.
fn run(args: &[&str], env: &[(&str, &str)], stdin: &str) -> Output {
    let mut cmd = Command::new(BINARY);
    cmd.args(args)
        .env_remove("CONFIG_HASH_KEY")
        .env_remove("CONFIG_HASH_KEY_FILE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    common::run_with_stdin(&mut cmd, stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("UTF-8")
}

/// The stamped annotation value of the only workload.
fn stamped(out: &str) -> String {
    let line = out
        .lines()
        .find(|l| l.contains("config-hash.dev/hash:"))
        .unwrap_or_else(|| panic!("no hash in\n{out}"));
    line.split_once(": ")
        .unwrap()
        .1
        .trim_matches('"')
        .to_string()
}

#[test]
fn every_key_source_gives_the_same_keyed_hash_and_unkeyed_differs() {
    let dir = TempDir::new("keyed");
    let file = dir.path().join("key");
    std::fs::write(&file, "correct horse\n").unwrap();
    let file = file.to_str().unwrap();

    let plain = run(&[], &[], STREAM);
    assert_eq!(plain.status.code(), Some(0), "{}", text(&plain.stderr));
    let plain = stamped(&text(&plain.stdout));
    assert!(!plain.contains(':') && plain.len() == 64, "{plain}");

    let mut keyed = Vec::new();
    for (args, env) in [
        (vec!["--key-file", file], vec![]),
        (vec![], vec![("CONFIG_HASH_KEY_FILE", file)]),
        (vec![], vec![("CONFIG_HASH_KEY", "correct horse")]),
    ] {
        let out = run(&args, &env, STREAM);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let out = text(&out.stdout);
        assert!(!out.contains("correct horse"), "the key is printed:\n{out}");
        keyed.push(stamped(&out));
    }
    assert!(keyed[0].starts_with("hmac-sha256:"), "{}", keyed[0]);
    assert_eq!(keyed[0], keyed[1]);
    assert_eq!(keyed[0], keyed[2]);
    assert_ne!(keyed[0].trim_start_matches("hmac-sha256:"), plain);

    let other = run(&[], &[("CONFIG_HASH_KEY", "another key")], STREAM);
    assert_ne!(stamped(&text(&other.stdout)), keyed[0]);
}

#[test]
fn check_needs_the_same_key_and_says_so() {
    let key = [("CONFIG_HASH_KEY", "correct horse")];
    let out = run(&[], &key, STREAM);
    let stamped_stream = text(&out.stdout);

    let same = run(&["--check"], &key, &stamped_stream);
    assert_eq!(same.status.code(), Some(0), "{}", text(&same.stdout));

    let other = run(
        &["--check"],
        &[("CONFIG_HASH_KEY", "wrong")],
        &stamped_stream,
    );
    assert_eq!(other.status.code(), Some(3), "{}", text(&other.stdout));

    for args in [&["--check"][..], &[][..]] {
        let none = run(args, &[], &stamped_stream);
        assert_eq!(none.status.code(), Some(1), "{args:?}");
        let err = text(&none.stderr);
        assert!(err.contains("keyed hash"), "{err}");
        assert!(err.contains("CONFIG_HASH_KEY"), "{err}");
        assert!(err.contains("Deployment"), "{err}");
    }
    // Without the key, the keyed stamp is never replaced by an unkeyed one: the run is
    // an error, and a pipe gets nothing to apply.
    let none = run(&[], &[], &stamped_stream);
    assert_eq!(none.status.code(), Some(1));
    assert_eq!(text(&none.stdout), "");
}

#[test]
fn an_empty_or_unreadable_key_is_an_error_not_an_unkeyed_run() {
    let dir = TempDir::new("keyed-empty");
    let empty = dir.path().join("empty");
    std::fs::write(&empty, "\n").unwrap();
    let out = run(&["--key-file", empty.to_str().unwrap()], &[], STREAM);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("empty"), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());

    let missing = dir.path().join("missing");
    let out = run(&["--key-file", missing.to_str().unwrap()], &[], STREAM);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
}
