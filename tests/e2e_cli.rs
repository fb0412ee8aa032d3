//! The command line, end to end through the built binary: plain manifest streams on
//! stdin and as FILES (`examples/pipes/`), `--config` and every flag, ResourceLists
//! with flags, `--check`, `graph`, the kustomize legacy-plugin invocation, `--help`,
//! `--version`, and unreadable input.

mod common;

use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{BINARY, TempDir, is_hash};
use yaml_serde::Value;

const ANNOTATION_KEY: &str = "config-hash.dev/hash";
const WEB: &str = "Deployment/web";
const WORKER: &str = "StatefulSet/worker";

/// Runs config-hash with `args` and `stdin`.
fn run(args: &[&str], stdin: &str) -> Output {
    common::run_with_stdin(
        Command::new(BINARY).args(args).current_dir(pipes_dir()),
        stdin,
    )
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 stdout")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 stderr")
}

fn describe(output: &Output) -> String {
    format!(
        "status {}\nstdout:\n{}\nstderr:\n{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// Asserts the exit code and returns stdout.
fn expect_exit(output: &Output, code: i32, what: &str) -> String {
    assert_eq!(
        output.status.code(),
        Some(code),
        "{what}: exit code\n{}",
        describe(output)
    );
    stdout(output)
}

fn pipes_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/pipes")
}

fn example(file: &str) -> String {
    fs::read_to_string(pipes_dir().join(file)).unwrap_or_else(|e| panic!("read {file}: {e}"))
}

/// The two manifest files as one stream, the way `config-hash FILES` joins them.
fn example_stream() -> String {
    format!(
        "{}---\n{}",
        example("manifests/config.yaml"),
        example("manifests/workloads.yaml")
    )
}

/// The lines of `new` that are not in `original`, given that `new` is `original` with
/// lines inserted and nothing else changed (panics otherwise).
fn inserted_lines(original: &str, new: &str) -> Vec<String> {
    let mut rest = original.split_inclusive('\n').peekable();
    let mut inserted = Vec::new();
    for line in new.split_inclusive('\n') {
        if rest.peek() == Some(&line) {
            rest.next();
        } else {
            inserted.push(line.trim_end_matches('\n').to_owned());
        }
    }
    if let Some(lost) = rest.next() {
        panic!(
            "the original line {lost:?} was changed or removed; only insertions were \
             expected.\n--- original\n{original}\n--- new\n{new}"
        );
    }
    inserted
}

/// `lines` with every double-quoted 64-hex hash replaced by `"<HASH>"`.
fn mask(lines: &[String]) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            line.split('"')
                .enumerate()
                .map(|(i, piece)| {
                    if i % 2 == 1 && is_hash(piece) {
                        "<HASH>"
                    } else {
                        piece
                    }
                })
                .collect::<Vec<_>>()
                .join("\"")
        })
        .collect()
}

/// The documents of a multi-document stream (split at `---` lines), `Kind/name` first.
fn documents(text: &str) -> Vec<(String, Value)> {
    let mut chunks = vec![String::new()];
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "---" {
            chunks.push(String::new());
        } else {
            chunks.last_mut().expect("a chunk").push_str(line);
        }
    }
    chunks
        .iter()
        .filter_map(|chunk| {
            let doc: Value = yaml_serde::from_str(chunk)
                .unwrap_or_else(|e| panic!("a document does not parse: {e}\n{chunk}"));
            if doc.is_null() {
                return None;
            }
            let id = format!(
                "{}/{}",
                doc["kind"].as_str().expect("kind"),
                doc["metadata"]["name"].as_str().expect("name")
            );
            Some((id, doc))
        })
        .collect()
}

fn doc<'a>(docs: &'a [(String, Value)], id: &str) -> &'a Value {
    docs.iter()
        .find(|(i, _)| i == id)
        .map(|(_, d)| d)
        .unwrap_or_else(|| panic!("{id} not in the output"))
}

/// The annotation `key` on a workload's pod template.
fn annotation(docs: &[(String, Value)], id: &str, key: &str) -> Option<String> {
    doc(docs, id)["spec"]["template"]["metadata"]["annotations"][key]
        .as_str()
        .map(str::to_owned)
}

/// The value of env var `name` in each container of a workload.
fn env(docs: &[(String, Value)], id: &str, name: &str) -> Vec<Option<String>> {
    doc(docs, id)["spec"]["template"]["spec"]["containers"]
        .as_sequence()
        .expect("containers")
        .iter()
        .map(|c| {
            let env = c["env"].as_sequence()?;
            let var = env.iter().find(|e| e["name"].as_str() == Some(name))?;
            var["value"].as_str().map(str::to_owned)
        })
        .collect()
}

/// The default annotation's hash on each of the example's two workloads.
fn hashes(text: &str) -> (String, String) {
    let docs = documents(text);
    let get = |id| {
        let h = annotation(&docs, id, ANNOTATION_KEY).unwrap_or_else(|| panic!("{id} unstamped"));
        assert!(is_hash(&h), "{id}: {h:?}");
        h
    };
    (get(WEB), get(WORKER))
}

/// A stream where `api` reads a ConfigMap that is not there, and an optional Secret
/// that is not there either.
const MISSING: &str = "\
# api reads a ConfigMap nobody defined
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  template:
    spec:
      containers:
      - name: api
        image: busybox:1.36
        envFrom:
        - configMapRef:
            name: nowhere
        - secretRef:
            name: maybe
            optional: true
";

#[test]
fn a_plain_stream_is_stamped_and_every_other_byte_kept() {
    let input = example_stream();
    let output = run(&[], &input);
    let out = expect_exit(&output, 0, "config-hash < stream");
    assert_eq!(
        stderr(&output),
        "config-hash: 2 workload(s) stamped, 0 skipped, 0 missing reference(s), 0 warning(s)\n",
        "nothing to warn about: only the summary line"
    );
    assert_eq!(stderr(&run(&["-q"], &input)), "", "-q: no summary");
    assert_eq!(stdout(&run(&["-q"], &input)), out, "-q changes only stderr");
    assert_eq!(
        mask(&inserted_lines(&input, &out)),
        [
            "      annotations:",
            "        config-hash.dev/hash: \"<HASH>\"",
            "      annotations:",
            "        config-hash.dev/hash: \"<HASH>\"",
        ],
        "the lines inserted (a stream stays a stream: no ResourceList, no results)"
    );
    let (web, worker) = hashes(&out);
    assert_ne!(
        web, worker,
        "web reads two keys and the Secret; worker the whole ConfigMap"
    );
    // Idempotent: its own output is up to date.
    assert_eq!(expect_exit(&run(&[], &out), 0, "second run"), out);

    // Separators, a leading `---` with a comment, `...`, comment-only documents, flow
    // style and a `kind: List` all survive.
    let tricky = "\
--- # the settings
apiVersion: v1
kind: ConfigMap
metadata: {name: s}
data:
  A: \"1\"   # aligned comment
...
---
# a comment-only document
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: d
spec:
  template:
    metadata:
      labels: {app: d}
    spec:
      containers:
      - {name: c, image: x, envFrom: [{configMapRef: {name: s}}]}
---
apiVersion: v1
kind: List
items:
- apiVersion: batch/v1
  kind: Job
  metadata: {name: j}
  spec:
    template:
      spec:
        containers:
        - {name: c, image: x, env: [{name: A, valueFrom: {configMapKeyRef: {name: s, key: A}}}]}
";
    let out = expect_exit(&run(&[], tricky), 0, "tricky stream");
    assert_eq!(
        mask(&inserted_lines(tricky, &out)),
        [
            "      annotations:",
            "        config-hash.dev/hash: \"<HASH>\"",
            "      metadata:",
            "        annotations:",
            "          config-hash.dev/hash: \"<HASH>\"",
        ]
    );
}

#[test]
fn files_are_one_stream_in_the_order_given() {
    let from_files = run(&["manifests/config.yaml", "manifests/workloads.yaml"], "");
    let out = expect_exit(&from_files, 0, "config-hash FILES");
    let from_stdin = run(&[], &example_stream());
    assert_eq!(
        out,
        stdout(&from_stdin),
        "FILES and the same stream on stdin"
    );
    assert_eq!(stderr(&from_files), stderr(&from_stdin));

    // Reversed: the workloads come first, with the same hashes.
    let reversed = run(&["manifests/workloads.yaml", "manifests/config.yaml"], "");
    let reversed = expect_exit(&reversed, 0, "config-hash FILES reversed");
    assert!(reversed.starts_with("# The web front end"), "{reversed}");
    assert_eq!(hashes(&reversed), hashes(&out));

    // One file that is not a ConfigHash object is a manifest file, not plugin config.
    let one = expect_exit(&run(&["manifests/workloads.yaml"], ""), 0, "one file");
    assert_eq!(documents(&one).len(), 3);
    // The ConfigMap and Secret are in the other file: the references are missing, and
    // each warning names the file and the line of the object.
    let err = stderr(&run(&["manifests/workloads.yaml"], ""));
    assert!(
        err.starts_with("warning: manifests/workloads.yaml:")
            && err.contains(": Deployment shop/web"),
        "{err}"
    );
}

#[test]
fn config_files_in_both_forms_and_flags_over_them() {
    let input = example_stream();
    let (web, worker) = hashes(&expect_exit(&run(&[], &input), 0, "defaults"));

    // ConfigHash form (examples/pipes/config-hash.yaml): mode both.
    for flag in ["--config", "-c"] {
        let out = expect_exit(&run(&[flag, "config-hash.yaml"], &input), 0, flag);
        let docs = documents(&out);
        assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY).as_ref(), Some(&web));
        assert_eq!(env(&docs, WEB, "CONFIG_HASH"), [Some(web.clone())]);
        assert_eq!(env(&docs, WORKER, "CONFIG_HASH"), [Some(worker.clone())]);
    }

    // ConfigMap form, as kpt passes key=value pairs.
    let tmp = TempDir::new("e2e-cli");
    let config_map = tmp.write(
        "fn-config.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: function-input\n\
         data:\n  mode: env\n  envName: SETTINGS_HASH\n",
    );
    let out = expect_exit(&run(&["-c", &config_map], &input), 0, "ConfigMap config");
    let docs = documents(&out);
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY), None);
    assert_eq!(env(&docs, WEB, "SETTINGS_HASH"), [Some(web.clone())]);
    assert_eq!(env(&docs, WEB, "CONFIG_HASH"), [None]);

    // A flag overrides the file's field; the file's other fields stay.
    let out = run(&["-c", &config_map, "--mode", "annotation"], &input);
    let docs = documents(&expect_exit(&out, 0, "-c with --mode"));
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY).as_ref(), Some(&web));
    assert_eq!(env(&docs, WEB, "SETTINGS_HASH"), [None]);

    // A bad config file: exit 1, nothing on stdout, the error on stderr.
    let bad = tmp.write(
        "bad.yaml",
        "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: x}\n\
         spec: {mode: sideways}\n",
    );
    let out = run(&["-c", &bad], &input);
    assert_eq!(expect_exit(&out, 1, "bad config"), "");
    let err = stderr(&out);
    assert!(
        err.starts_with("error: ") && err.contains("sideways"),
        "{err}"
    );

    // A config file that cannot be read.
    let out = run(&["-c", "no-such-config.yaml"], &input);
    assert_eq!(expect_exit(&out, 1, "missing config"), "");
    assert!(
        stderr(&out).contains("no-such-config.yaml"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn each_flag_does_what_it_says() {
    let input = example_stream();
    let (web, worker) = hashes(&expect_exit(&run(&[], &input), 0, "defaults"));

    // --mode env: only env vars, same hashes.
    let docs = documents(&expect_exit(
        &run(&["--mode", "env"], &input),
        0,
        "--mode env",
    ));
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY), None);
    assert_eq!(env(&docs, WEB, "CONFIG_HASH"), [Some(web.clone())]);
    assert_eq!(env(&docs, WORKER, "CONFIG_HASH"), [Some(worker.clone())]);

    // --mode both.
    let docs = documents(&expect_exit(
        &run(&["--mode", "both"], &input),
        0,
        "--mode both",
    ));
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY).as_ref(), Some(&web));
    assert_eq!(env(&docs, WEB, "CONFIG_HASH"), [Some(web.clone())]);

    // --annotation-key.
    let out = run(&["--annotation-key", "example.com/config"], &input);
    let docs = documents(&expect_exit(&out, 0, "--annotation-key"));
    assert_eq!(
        annotation(&docs, WEB, "example.com/config").as_ref(),
        Some(&web)
    );
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY), None);

    // --env-name (with --mode env).
    let out = run(&["--mode", "env", "--env-name", "APP_HASH"], &input);
    let docs = documents(&expect_exit(&out, 0, "--env-name"));
    assert_eq!(env(&docs, WORKER, "APP_HASH"), [Some(worker.clone())]);
    assert_eq!(env(&docs, WORKER, "CONFIG_HASH"), [None]);

    // A bad flag value: a usage error from clap (exit 2), nothing on stdout.
    let out = run(&["--mode", "sideways"], &input);
    assert_eq!(expect_exit(&out, 2, "--mode sideways"), "");
    // An invalid annotation key or env name is a bad flag value too: exit 2, as the
    // exit-code table says, nothing on stdout.
    for args in [["--annotation-key", "not a key!"], ["--env-name", "1BAD"]] {
        let out = run(&args, &input);
        assert_eq!(expect_exit(&out, 2, "bad flag value"), "");
        assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
    }
    // So is a bad CONFIG_HASH_ON_MISSING, the environment's --on-missing.
    let out = common::run_with_stdin(
        Command::new(BINARY).env("CONFIG_HASH_ON_MISSING", "sometimes"),
        input.as_str(),
    );
    assert_eq!(expect_exit(&out, 2, "bad CONFIG_HASH_ON_MISSING"), "");
}

#[test]
fn granularity_object_hashes_keys_the_pod_does_not_see() {
    let input = example_stream();
    // QUEUE_SIZE is read by the worker (envFrom), not by web (two configMapKeyRefs).
    let edited = input.replace("QUEUE_SIZE: \"100\"", "QUEUE_SIZE: \"200\"");
    assert_ne!(edited, input);
    for (args, web_changes) in [(&[][..], false), (&["--granularity", "object"][..], true)] {
        let before = hashes(&expect_exit(&run(args, &input), 0, "before"));
        let after = hashes(&expect_exit(&run(args, &edited), 0, "after"));
        assert_eq!(before.0 != after.0, web_changes, "{args:?}: web's hash");
        assert_ne!(before.1, after.1, "{args:?}: the worker sees QUEUE_SIZE");
    }
    let key = hashes(&expect_exit(
        &run(&["--granularity", "key"], &input),
        0,
        "key",
    ));
    assert_eq!(
        key,
        hashes(&stdout(&run(&[], &input))),
        "key is the default"
    );
}

#[test]
fn on_missing_warn_error_ignore() {
    // Default (warn): stamped, one warning line naming the workload and the object.
    let out = run(&[], MISSING);
    let stamped = expect_exit(&out, 0, "warn");
    assert_ne!(stamped, MISSING);
    let err = stderr(&out);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(
        err.ends_with(", 1 missing reference(s), 1 warning(s)\n"),
        "the summary counts the warning: {err}"
    );
    assert!(
        err.starts_with("warning: Deployment api")
            && err.contains("spec.template.spec.containers[0].envFrom[0].configMapRef")
            && err.contains("ConfigMap \"nowhere\""),
        "{err}"
    );

    // error: exit 1, nothing on stdout (a pipe into `kubectl apply -f -` must not apply
    // unstamped manifests), the same message as an error.
    let out = run(&["--on-missing", "error"], MISSING);
    assert_eq!(expect_exit(&out, 1, "--on-missing error"), "");
    let err = stderr(&out);
    assert!(err.lines().count() >= 1, "{err}");
    assert!(
        err.lines().all(|l| l.starts_with("error: ")) && err.contains("ConfigMap \"nowhere\""),
        "{err}"
    );

    // ignore: stamped the same as with warn, silently.
    let out = run(&["--on-missing", "ignore", "-q"], MISSING);
    assert_eq!(expect_exit(&out, 0, "--on-missing ignore"), stamped);
    assert_eq!(stderr(&out), "");
}

#[test]
fn name_suffix_renames_and_rewrites_references() {
    let input = example_stream();
    let out = expect_exit(&run(&["--name-suffix"], &input), 0, "--name-suffix");
    let docs = documents(&out);
    let names: Vec<&str> = docs.iter().map(|(id, _)| id.as_str()).collect();
    let config = names
        .iter()
        .find(|id| id.starts_with("ConfigMap/shop-settings-"))
        .unwrap_or_else(|| panic!("no suffixed ConfigMap in {names:?}"));
    let secret = names
        .iter()
        .find(|id| id.starts_with("Secret/shop-db-"))
        .unwrap_or_else(|| panic!("no suffixed Secret in {names:?}"));
    let config = config.trim_start_matches("ConfigMap/");
    let secret = secret.trim_start_matches("Secret/");
    assert_eq!(config.len(), "shop-settings-".len() + 10, "{config}");
    assert_eq!(
        doc(&docs, &format!("ConfigMap/{config}"))["metadata"]["annotations"]
            ["config-hash.dev/base-name"]
            .as_str(),
        Some("shop-settings")
    );
    // Every reference now names the suffixed objects, and nothing else moved.
    assert!(!out.contains("name: shop-settings}") && !out.contains("name: shop-db}"));
    assert_eq!(out.matches(&format!("name: {config}")).count(), 4, "{out}");
    assert_eq!(out.matches(&format!("name: {secret}")).count(), 2, "{out}");
    assert!(out.contains("# raise to debug when chasing a bug"));
    // Idempotent, and up to date for --check.
    assert_eq!(expect_exit(&run(&["--name-suffix"], &out), 0, "again"), out);
    assert_eq!(
        expect_exit(&run(&["--name-suffix", "--check"], &out), 0, "check"),
        "config-hash: up to date\n"
    );

    // --immutable marks the suffixed objects immutable.
    let out = run(&["--name-suffix", "--immutable"], &input);
    let docs = documents(&expect_exit(&out, 0, "--immutable"));
    for (id, d) in &docs {
        if id.starts_with("ConfigMap/") || id.starts_with("Secret/") {
            assert_eq!(d["immutable"].as_bool(), Some(true), "{id}");
        }
    }
}

const RESOURCE_LIST: &str = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: web-config
  data:
    LOG_LEVEL: info # comment kept
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
  spec:
    template:
      spec:
        containers:
        - name: web
          image: nginx:1.27
          envFrom:
          - configMapRef: {name: web-config}
functionConfig:
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: function-input
  data:
    mode: env
";

fn resource_list_items(text: &str) -> Vec<(String, Value)> {
    let list: Value = yaml_serde::from_str(text).expect("a ResourceList");
    assert_eq!(list["kind"].as_str(), Some("ResourceList"), "{text}");
    list["items"]
        .as_sequence()
        .expect("items")
        .iter()
        .map(|i| {
            let id = format!(
                "{}/{}",
                i["kind"].as_str().expect("kind"),
                i["metadata"]["name"].as_str().expect("name")
            );
            (id, i.clone())
        })
        .collect()
}

#[test]
fn a_resource_list_still_works_and_flags_override_its_function_config() {
    // Its own functionConfig: mode env.
    let out = run(&[], RESOURCE_LIST);
    let text = expect_exit(&out, 0, "ResourceList");
    assert_eq!(
        stderr(&out),
        "",
        "a ResourceList carries results, not stderr lines"
    );
    assert!(
        text.contains("results:") && text.contains("# comment kept"),
        "{text}"
    );
    let items = resource_list_items(&text);
    let hash = env(&items, WEB, "CONFIG_HASH")[0]
        .clone()
        .expect("env stamped");
    assert_eq!(annotation(&items, WEB, ANNOTATION_KEY), None);

    // A flag wins over the functionConfig.
    let text = expect_exit(&run(&["--mode", "annotation"], RESOURCE_LIST), 0, "--mode");
    let items = resource_list_items(&text);
    assert_eq!(annotation(&items, WEB, ANNOTATION_KEY), Some(hash.clone()));
    assert_eq!(env(&items, WEB, "CONFIG_HASH"), [None]);

    // So does a --config file.
    let text = expect_exit(&run(&["-c", "config-hash.yaml"], RESOURCE_LIST), 0, "-c");
    let items = resource_list_items(&text);
    assert_eq!(annotation(&items, WEB, ANNOTATION_KEY), Some(hash.clone()));
    assert_eq!(env(&items, WEB, "CONFIG_HASH"), [Some(hash)]);

    // An error is a result in the ResourceList (exit 1), not a stderr line.
    let text = expect_exit(
        &run(
            &["--on-missing", "error"],
            &RESOURCE_LIST.replace("{name: web-config}", "{name: gone}"),
        ),
        1,
        "missing in a ResourceList",
    );
    assert!(
        text.contains("severity: error") && text.contains("gone"),
        "{text}"
    );
}

#[test]
fn check_exit_codes_and_output() {
    let input = example_stream();
    let stamped = stdout(&run(&[], &input));

    // Stale stream: exit 3, one line per stale workload, nothing else on stdout.
    let out = run(&["--check"], &input);
    let text = expect_exit(&out, 3, "--check stale");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..2],
        [
            "out of date: Deployment shop/web",
            "out of date: StatefulSet shop/worker"
        ],
        "{text}"
    );
    assert_eq!(lines.len(), 3, "two lines and a summary: {text}");
    assert!(
        !text.contains("apiVersion"),
        "--check must not write the stream"
    );

    // Up to date: exit 0.
    assert_eq!(
        expect_exit(&run(&["--check"], &stamped), 0, "--check fresh"),
        "config-hash: up to date\n"
    );

    // One ConfigMap edit makes exactly its readers stale.
    let edited = stamped.replace("CURRENCY: EUR", "CURRENCY: USD");
    let text = expect_exit(&run(&["--check"], &edited), 3, "--check after edit");
    assert!(
        text.starts_with(
            "out of date: Deployment shop/web\nout of date: StatefulSet shop/worker\n"
        )
    );
    let edited = stamped.replace("username: shop", "username: nobody");
    assert_eq!(
        expect_exit(&run(&["--check"], &edited), 0, "--check unseen key"),
        "config-hash: up to date\n"
    );
    let edited = stamped.replace("QUEUE_SIZE: \"100\"", "QUEUE_SIZE: \"7\"");
    assert_eq!(
        expect_exit(&run(&["--check"], &edited), 3, "--check worker's key"),
        "out of date: StatefulSet shop/worker\n\
         config-hash: 1 resource(s) out of date; run config-hash --in-place (or kpt fn render) and commit the result\n"
    );

    // Flags apply: the stamped stream is stale for --mode env.
    expect_exit(
        &run(&["--check", "--mode", "env"], &stamped),
        3,
        "--check --mode env",
    );

    // Error: exit 1, the error on stderr.
    let out = run(&["--check", "--on-missing", "error"], MISSING);
    assert_eq!(expect_exit(&out, 1, "--check error"), "");
    assert!(
        stderr(&out).contains("error: Deployment api"),
        "{}",
        stderr(&out)
    );

    // On files: the same lines, and which files would change; the files are not
    // touched. A directory gives the same.
    let files = [
        "--check",
        "manifests/config.yaml",
        "manifests/workloads.yaml",
    ];
    let expected = text_of_stale(&input).replacen(
        "\nconfig-hash:",
        "\nwould change: manifests/workloads.yaml\nconfig-hash:",
        1,
    );
    assert_eq!(expect_exit(&run(&files, ""), 3, "--check FILES"), expected);
    assert_eq!(
        expect_exit(&run(&["--check", "manifests"], ""), 3, "--check DIR"),
        expected
    );
    assert_eq!(example_stream(), input, "--check changed a file");
    let tmp = TempDir::new("e2e-cli");
    let fresh = tmp.write("stamped.yaml", &stamped);
    assert_eq!(
        expect_exit(&run(&["--check", &fresh], ""), 0, "--check fresh file"),
        "config-hash: up to date\n"
    );
    assert_eq!(fs::read_to_string(&fresh).expect("read"), stamped);

    // On a ResourceList: no ResourceList on stdout, the same kind of lines.
    let text = expect_exit(&run(&["--check"], RESOURCE_LIST), 3, "--check ResourceList");
    assert!(text.starts_with("out of date: Deployment web\n"), "{text}");
    let stamped_list = stdout(&run(&[], RESOURCE_LIST));
    assert_eq!(
        expect_exit(&run(&["--check"], &stamped_list), 0, "--check fresh list"),
        "config-hash: up to date\n"
    );
    let broken = RESOURCE_LIST.replace("mode: env", "mode: sideways");
    let out = run(&["--check"], &broken);
    assert_eq!(expect_exit(&out, 1, "--check bad functionConfig"), "");
    assert!(stderr(&out).starts_with("error: "), "{}", stderr(&out));
}

/// What `--check` prints for the stale example stream.
fn text_of_stale(input: &str) -> String {
    stdout(&run(&["--check"], input))
}

#[test]
fn graph_answers_what_rolls_when_a_config_map_changes() {
    let files = ["manifests/config.yaml", "manifests/workloads.yaml"];

    // Table (default): one row per workload and source.
    let mut args = vec!["graph"];
    args.extend(files);
    let table = expect_exit(&run(&args, ""), 0, "graph");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .map(|l| {
            l.split("  ")
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .collect()
        })
        .collect();
    assert_eq!(rows[0], ["WORKLOAD", "READS", "STATUS", "KEYS"], "{table}");
    let readers = |source: &str| -> Vec<&str> {
        rows[1..]
            .iter()
            .filter(|r| r[1] == source)
            .map(|r| r[0])
            .collect()
    };
    assert_eq!(
        readers("ConfigMap shop/shop-settings"),
        ["Deployment shop/web", "StatefulSet shop/worker"],
        "{table}"
    );
    assert_eq!(
        readers("Secret shop/shop-db"),
        ["Deployment shop/web"],
        "{table}"
    );
    assert!(rows[1..].iter().all(|r| r[2] == "found"), "{table}");
    let web_keys: Vec<&str> = rows[1..]
        .iter()
        .filter(|r| r[0] == "Deployment shop/web")
        .map(|r| r[3])
        .collect();
    assert_eq!(web_keys, ["CURRENCY,LOG_LEVEL", "password"], "{table}");
    // Same on stdin.
    assert_eq!(
        expect_exit(&run(&["graph"], &example_stream()), 0, "graph stdin"),
        table
    );

    // JSON parses, and says the same.
    let mut args = vec!["graph", "--format", "json"];
    args.extend(files);
    let json = expect_exit(&run(&args, ""), 0, "graph json");
    let value: Value = yaml_serde::from_str(&json).unwrap_or_else(|e| panic!("JSON: {e}\n{json}"));
    let edges = value["edges"].as_sequence().expect("edges");
    assert_eq!(edges.len(), 3, "{json}");
    let worker = edges
        .iter()
        .find(|e| e["workload"]["name"].as_str() == Some("worker"))
        .expect("worker edge");
    assert_eq!(worker["workload"]["kind"].as_str(), Some("StatefulSet"));
    assert_eq!(worker["workload"]["namespace"].as_str(), Some("shop"));
    assert_eq!(worker["source"]["kind"].as_str(), Some("ConfigMap"));
    assert_eq!(worker["source"]["name"].as_str(), Some("shop-settings"));
    assert_eq!(worker["status"].as_str(), Some("found"));

    // DOT.
    let mut args = vec!["graph", "--format", "dot"];
    args.extend(files);
    let dot = expect_exit(&run(&args, ""), 0, "graph dot");
    assert!(
        dot.starts_with("digraph ") && dot.trim_end().ends_with('}'),
        "{dot}"
    );
    assert!(
        dot.contains("\"Deployment shop/web\" -> \"Secret shop/shop-db\""),
        "{dot}"
    );

    // No Secret value ever shows.
    for text in [&table, &json, &dot] {
        assert!(
            !text.contains("change-me"),
            "a Secret value leaked:\n{text}"
        );
    }
}

/// A ClusterRole's `resourceNames` name an object of any namespace, as kustomize reads
/// them: the graph finds the Secret (it said "missing"), before and after renaming.
#[test]
fn graph_finds_what_a_cluster_role_names_in_any_namespace() {
    let input = "apiVersion: v1\nkind: Secret\nmetadata: {name: webhook-certs, namespace: es}\ndata: {tls.crt: YQ==}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: cert-controller}\nrules:\n- apiGroups: [\"\"]\n  resources: [secrets]\n  resourceNames: [webhook-certs]\n  verbs: [get]\n";
    for (args, shown) in [
        (&["graph"][..], "Secret es/webhook-certs "),
        (&["graph", "--name-suffix"][..], "Secret es/webhook-certs-"),
    ] {
        let table = expect_exit(&run(args, input), 0, "graph");
        let row = table
            .lines()
            .find(|l| l.starts_with("ClusterRole cert-controller"))
            .unwrap_or_else(|| panic!("no row for the ClusterRole:\n{table}"));
        assert!(row.contains(shown) && row.contains("found"), "{table}");
    }
}

/// A Secret whose content cannot be read (invalid base64) fails `graph` as it fails
/// `--check`: exit 1 with the error, rather than a graph that shows it found.
#[test]
fn graph_fails_on_a_source_it_cannot_read_as_check_does() {
    let input = "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: '!!!'}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: [{name: c, envFrom: [{secretRef: {name: s}}]}]}}}\n";
    for args in [&["--check"][..], &["graph"], &["graph", "--format", "json"]] {
        let output = run(args, input);
        let out = expect_exit(&output, 1, &args.join(" "));
        assert!(out.is_empty(), "{args:?}: {out}");
        let err = stderr(&output);
        assert!(
            err.contains("Secret s: data.a is not valid base64"),
            "{args:?}: {err}"
        );
    }
    let readable = input.replace("'!!!'", "YQ==");
    let table = expect_exit(&run(&["graph"], &readable), 0, "graph");
    assert!(
        table.contains("Secret s") && table.contains("found"),
        "{table}"
    );
}

#[test]
fn graph_shows_missing_references() {
    let table = expect_exit(&run(&["graph"], MISSING), 0, "graph");
    assert!(
        table
            .lines()
            .any(|l| l.contains("ConfigMap nowhere") && l.contains("  missing  ")),
        "{table}"
    );
    assert!(
        table
            .lines()
            .any(|l| l.contains("Secret maybe") && l.contains("optional")),
        "{table}"
    );

    let json = expect_exit(&run(&["graph", "--format", "json"], MISSING), 0, "json");
    let value: Value = yaml_serde::from_str(&json).unwrap_or_else(|e| panic!("JSON: {e}\n{json}"));
    let statuses: Vec<&str> = value["edges"]
        .as_sequence()
        .expect("edges")
        .iter()
        .map(|e| e["status"].as_str().expect("status"))
        .collect();
    assert_eq!(statuses, ["missing", "optional-absent"], "{json}");

    let dot = expect_exit(&run(&["graph", "--format", "dot"], MISSING), 0, "dot");
    let missing_node = dot
        .lines()
        .find(|l| l.trim_start().starts_with("\"ConfigMap nowhere\" ["))
        .unwrap_or_else(|| panic!("no node for the missing ConfigMap:\n{dot}"));
    assert!(
        missing_node.contains("color=red") && missing_node.contains("style=dashed"),
        "{missing_node}"
    );
    let missing_edge = dot
        .lines()
        .find(|l| l.contains("-> \"ConfigMap nowhere\""))
        .unwrap_or_else(|| panic!("no edge to the missing ConfigMap:\n{dot}"));
    assert!(
        missing_edge.contains("color=red") && missing_edge.contains("style=dashed"),
        "{missing_edge}"
    );
    // Found sources are not red.
    let found = expect_exit(
        &run(
            &[
                "graph",
                "--format",
                "dot",
                "manifests/config.yaml",
                "manifests/workloads.yaml",
            ],
            "",
        ),
        0,
        "dot",
    );
    assert!(!found.contains("red"), "{found}");

    // A ResourceList works as input too.
    let table = expect_exit(&run(&["graph"], RESOURCE_LIST), 0, "graph ResourceList");
    assert!(
        table.contains("Deployment web") && table.contains("ConfigMap web-config"),
        "{table}"
    );
}

/// `graph` reads the configuration a run reads: a kpt package's Kptfile (here it
/// declares the Widget kind and turns on hashed names), `-c`, and the run's flags.
#[test]
fn graph_takes_the_configuration_of_a_run() {
    let package = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/custom-resource");
    let package = package.to_str().expect("UTF-8 path");
    let table = expect_exit(&run(&["graph", package], ""), 0, "graph PKG");
    let stamped = expect_exit(&run(&[package], ""), 0, "run PKG");
    let renamed = |base: &str| {
        let at = stamped
            .find(&format!("name: {base}-"))
            .unwrap_or_else(|| panic!("{base} is renamed:\n{stamped}"));
        stamped[at + 6..]
            .split_whitespace()
            .next()
            .unwrap()
            .to_string()
    };
    let (settings, token) = (renamed("gizmo-settings"), renamed("gizmo-token"));
    let row = |reads: &str| {
        table
            .lines()
            .find(|l| l.starts_with("Widget gizmo") && l.contains(reads))
            .unwrap_or_else(|| panic!("no row for {reads}:\n{table}"))
            .to_string()
    };
    assert!(
        row(&format!("ConfigMap {settings}")).contains("found"),
        "{table}"
    );
    assert!(
        row(&format!("Secret {token}")).contains("(name)"),
        "{table}"
    );
    // The same configuration from -c, and a flag on top of it.
    let config = format!("{package}/config-hash.yaml");
    let manifests = [
        format!("{package}/config.yaml"),
        format!("{package}/widget.yaml"),
    ];
    let with_c = expect_exit(
        &run(&["graph", "-c", &config, &manifests[0], &manifests[1]], ""),
        0,
        "graph -c",
    );
    assert_eq!(with_c, table);
    let no_suffix = expect_exit(
        &run(
            &[
                "graph",
                "-c",
                &config,
                "--name-suffix=false",
                &manifests[0],
                &manifests[1],
            ],
            "",
        ),
        0,
        "graph -c --name-suffix=false",
    );
    assert!(
        no_suffix.contains("ConfigMap gizmo-settings ") && !no_suffix.contains(&settings),
        "{no_suffix}"
    );
}

#[test]
fn legacy_plugin_invocation_reads_config_from_the_one_file_and_the_stream_from_stdin() {
    let tmp = TempDir::new("e2e-cli");
    let config = tmp.write(
        "kust-plugin-config-123",
        "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata:\n  name: config-hash\n\
         spec:\n  mode: env\n  envName: PLUGIN_HASH\n",
    );
    let input = example_stream();
    let out = run(&[&config], &input);
    let text = expect_exit(&out, 0, "plugin invocation");
    assert_eq!(stderr(&out), "");
    let docs = documents(&text);
    let (web, _) = hashes(&stdout(&run(&[], &input)));
    assert_eq!(env(&docs, WEB, "PLUGIN_HASH"), [Some(web)]);
    assert_eq!(annotation(&docs, WEB, ANNOTATION_KEY), None);
    // The same as passing the file with -c.
    assert_eq!(text, stdout(&run(&["-c", &config], &input)));
    // Nothing but the env vars changed (the worker had no `env:` list).
    assert_eq!(
        mask(&inserted_lines(&input, &text)),
        [
            "        - name: PLUGIN_HASH",
            "          value: \"<HASH>\"",
            "        env:",
            "        - name: PLUGIN_HASH",
            "          value: \"<HASH>\"",
        ]
    );
}

#[test]
fn help_mentions_every_flag() {
    let top = expect_exit(&run(&["--help"], ""), 0, "--help");
    for flag in [
        "--config",
        "-c,",
        "--mode",
        "--annotation-key",
        "--env-name",
        "--granularity",
        "--on-missing",
        "--name-suffix",
        "--immutable",
        "--check",
        "--help",
        "--version",
        "install-kustomize-plugin",
        "graph",
        "install-helm-plugin",
        "--in-place",
        "[PATH]...",
    ] {
        assert!(top.contains(flag), "--help does not mention {flag}:\n{top}");
    }
    for value in [
        "annotation, env, both",
        "key, object",
        "warn, error, ignore",
        "Exit status: 0 success",
        "1 an error result",
        "2 a usage error",
        "3 (with --check) something is out of date",
    ] {
        assert!(
            top.contains(value),
            "--help does not mention {value:?}:\n{top}"
        );
    }
    let graph = expect_exit(&run(&["graph", "--help"], ""), 0, "graph --help");
    // The same configuration flags as a run.
    for flag in [
        "--format",
        "table",
        "json",
        "dot",
        "[PATH]...",
        "--config",
        "--name-suffix",
        "--mode",
        "--key-file",
        "--help",
    ] {
        assert!(
            graph.contains(flag),
            "graph --help does not mention {flag}:\n{graph}"
        );
    }
    let install = expect_exit(
        &run(&["install-kustomize-plugin", "--help"], ""),
        0,
        "install --help",
    );
    for flag in [
        "--plugin-home",
        "XDG_CONFIG_HOME",
        "config-hash.dev/v1alpha1/confighash/ConfigHash",
        "--help",
    ] {
        assert!(
            install.contains(flag),
            "install-kustomize-plugin --help does not mention {flag}:\n{install}"
        );
    }
    assert_eq!(stdout(&run(&["help", "graph"], "")), graph);
}

#[test]
fn version() {
    let out = expect_exit(&run(&["--version"], ""), 0, "--version");
    assert_eq!(out, format!("config-hash {}\n", env!("CARGO_PKG_VERSION")));
    assert_eq!(stdout(&run(&["-V"], "")), out);
}

#[test]
fn install_kustomize_plugin_with_plugin_home() {
    let tmp = TempDir::new("e2e-cli");
    let home = tmp.path().join("plugins");
    let out = run(
        &[
            "install-kustomize-plugin",
            "--plugin-home",
            home.to_str().expect("UTF-8"),
        ],
        "",
    );
    let printed = expect_exit(&out, 0, "install --plugin-home");
    let expected = home.join("config-hash.dev/v1alpha1/confighash/ConfigHash");
    assert_eq!(printed, format!("{}\n", expected.display()));
    assert!(fs::read(&expected).expect("installed") == fs::read(BINARY).expect("binary"));
}

/// A link at the plugin's plugin.yaml is replaced by the file, and what it pointed to
/// is left as it was.
#[cfg(unix)]
#[test]
fn install_helm_plugin_replaces_a_link_at_plugin_yaml_not_its_target() {
    let tmp = TempDir::new("e2e-cli-helm-link");
    let dir = tmp.path().join("plugins");
    fs::create_dir_all(dir.join("config-hash")).expect("mkdir");
    let victim = tmp.write("victim.txt", "not yours\n");
    std::os::unix::fs::symlink(&victim, dir.join("config-hash/plugin.yaml")).expect("symlink");
    let out = run(
        &[
            "install-helm-plugin",
            "--plugins-dir",
            dir.to_str().expect("UTF-8"),
        ],
        "",
    );
    expect_exit(&out, 0, "install-helm-plugin over a link");
    assert_eq!(fs::read_to_string(&victim).expect("read"), "not yours\n");
    let manifest = dir.join("config-hash/plugin.yaml");
    let meta = fs::symlink_metadata(&manifest).expect("lstat");
    assert!(meta.file_type().is_file(), "plugin.yaml is a file now");
    assert!(
        fs::read_to_string(&manifest)
            .expect("read")
            .contains("postrenderer")
    );
}

#[test]
fn unreadable_input_is_one_line_with_a_position() {
    let cases: [(&[&str], &str); 4] = [
        (
            &[],
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: [x\n",
        ),
        (&["--check"], "a: 1\n  b: 2\n"),
        (&["graph"], "apiVersion: v1\nkind: [\n"),
        (
            &[],
            "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: [a, {\n",
        ),
    ];
    for (args, input) in cases {
        let out = run(args, input);
        assert_eq!(
            expect_exit(&out, 1, &format!("{args:?} {input:?}")),
            "",
            "nothing on stdout"
        );
        let err = stderr(&out);
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        let has_position = err.split("line ").nth(1).is_some_and(|rest| {
            let (line, rest) = rest.split_once(" column ").unwrap_or(("", ""));
            line.parse::<u32>().is_ok()
                && rest
                    .split(|c: char| !c.is_ascii_digit())
                    .next()
                    .is_some_and(|c| c.parse::<u32>().is_ok())
        });
        assert!(has_position, "no line/column in: {err}");
    }
    // Not UTF-8, and a file that is not there.
    let out = Command::new(BINARY)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .and_then(|mut c| {
            c.stdin.take().expect("stdin").write_all(b"a: \xff\n")?;
            c.wait_with_output()
        })
        .expect("run config-hash");
    assert_eq!(expect_exit(&out, 1, "not UTF-8"), "");
    assert_eq!(stderr(&out).lines().count(), 1, "{}", stderr(&out));
    let out = run(&["no-such-file.yaml", "manifests/config.yaml"], "");
    assert_eq!(expect_exit(&out, 1, "missing file"), "");
    assert!(
        stderr(&out).contains("no-such-file.yaml"),
        "{}",
        stderr(&out)
    );
}

/// An upstream command that failed leaves empty stdin: an error, never "up to date" or an
/// empty success.
#[test]
fn empty_input_is_an_error_that_says_so() {
    let blank = TempDir::new("e2e-cli-blank");
    let file = blank.write("empty.yaml", "# nothing here\n---\n");
    for (args, input) in [
        (vec![], ""),
        (vec![], "\n# only a comment\n---\n"),
        (vec!["--check"], ""),
        (vec!["--mode", "env"], "  \n"),
        (vec!["graph"], ""),
        (vec![file.as_str()], ""),
        (vec!["--check", file.as_str()], ""),
    ] {
        let out = run(&args, input);
        assert_eq!(expect_exit(&out, 1, &format!("{args:?} {input:?}")), "");
        let err = stderr(&out);
        assert!(
            err.starts_with("error: ") && err.contains("no manifests"),
            "{args:?}: {err}"
        );
    }
}

/// Every input is read with a limit and, for text, refuses a NUL byte as soon as it is
/// read: an endless stream of NULs (stdin, a file, -c, the key file, prune's --live)
/// stops at once, with an error naming the input; `--max-input-size` sets the limit.
#[test]
fn endless_or_oversized_input_is_refused_while_it_is_read() {
    let dir = TempDir::new("e2e-cli-limits");
    let manifest = dir.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    );
    let zero = || Stdio::from(fs::File::open("/dev/zero").expect("open /dev/zero"));
    let started = std::time::Instant::now();
    for (args, from_zero, says) in [
        (vec![], true, "stdin holds a NUL byte"),
        (
            vec![manifest.as_str(), "--key-file", "/dev/zero"],
            false,
            "the key file /dev/zero holds more than",
        ),
        (
            vec![manifest.as_str(), "-c", "/dev/zero"],
            false,
            "/dev/zero holds a NUL byte",
        ),
        (
            vec!["prune", "--live", "/dev/zero", manifest.as_str()],
            false,
            "/dev/zero holds a NUL byte",
        ),
        (
            vec!["prune", "--live", "-", manifest.as_str()],
            true,
            "stdin holds a NUL byte",
        ),
    ] {
        let mut command = Command::new(BINARY);
        command
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        command.stdin(if from_zero { zero() } else { Stdio::null() });
        let out = command.output().expect("run config-hash");
        assert_eq!(expect_exit(&out, 1, &format!("{args:?}")), "");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
    assert!(
        started.elapsed() < std::time::Duration::from_secs(20),
        "the NULs were read to the end"
    );
    // The limit counts all inputs together, and the flag sets it.
    let big = dir.write(
        "big.yaml",
        &format!("{}kind: ConfigMap\n", "# comment\n".repeat(200)),
    );
    let out = run(&["--max-input-size", "1K", &big], "");
    assert_eq!(expect_exit(&out, 1, "over --max-input-size"), "");
    assert!(
        stderr(&out).contains("big.yaml is too large") && stderr(&out).contains("--max-input-size"),
        "{}",
        stderr(&out)
    );
    let out = run(&["--max-input-size", "3K", &big, &big], "");
    assert_eq!(
        expect_exit(&out, 1, "two files over --max-input-size together"),
        ""
    );
    let out = run(&["--max-input-size", "3K", &big], "");
    expect_exit(&out, 0, "under --max-input-size");
    // Only a key file is held to a key's size: 100 KiB of manifests read as usual.
    let large = dir.write(
        "large.yaml",
        &format!("{}kind: ConfigMap\n", "# comment\n".repeat(10_240)),
    );
    let out = run(&[&large], "");
    expect_exit(&out, 0, "100 KiB of manifests");
    let out = run(&["--max-input-size", "lots"], "");
    expect_exit(&out, 2, "a size that is not one");
}

/// An alias to an anchor of another document is refused as kubectl, kustomize and kpt
/// refuse it, naming the alias and its line; nothing is written.
#[test]
fn an_alias_across_documents_is_refused_naming_it() {
    let stream = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\ndata: {A: &v \"1\"}\n---\n\
                  apiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\ndata: {A: *v}\n";
    let out = run(&[], stream);
    assert_eq!(expect_exit(&out, 1, "alias across documents"), "");
    let err = stderr(&out);
    assert!(
        err.contains("line 9 column 11: *v: alias names an anchor of an earlier document"),
        "{err}"
    );
}

/// A byte-order mark at the start of a line inside a stream (`helm template` of
/// templates that each begin with one) makes kubectl, kustomize and kpt read the key
/// after it as another key: the Deployment below has no apiVersion for them. It is
/// refused, naming the file and line, rather than passed on unstamped with exit 0.
#[test]
fn a_byte_order_mark_inside_a_stream_is_refused_naming_the_line() {
    let stream = format!(
        "{}---\n# Source: t.yaml\n\u{feff}{}",
        example("manifests/config.yaml"),
        example("manifests/workloads.yaml")
    );
    let line = stream
        .lines()
        .position(|l| l.starts_with('\u{feff}'))
        .unwrap()
        + 1;
    for args in [vec![], vec!["--check"]] {
        let out = run(&args, &stream);
        assert_eq!(expect_exit(&out, 1, &format!("BOM {args:?}")), "");
        let err = stderr(&out);
        assert!(
            err.contains(&format!(
                "stdin: line {line}: a byte-order mark (U+FEFF) starts the line"
            )),
            "{err}"
        );
    }
    let dir = TempDir::new("e2e-cli-bom");
    let file = dir.write("all.yaml", &stream);
    let out = run(&[&file], "");
    assert_eq!(expect_exit(&out, 1, "BOM in a file"), "");
    assert!(
        stderr(&out).contains(&format!("all.yaml: line {line}:")),
        "{}",
        stderr(&out)
    );
    // At the start of the text it is nothing, as for every reader.
    let out = run(&[], &format!("\u{feff}{}", example_stream()));
    expect_exit(&out, 0, "BOM at the start");
}

/// A FILE argument, or stdin, that holds no Kubernetes object at all (a chart's values,
/// /etc/passwd) is an error naming it, as kubectl and kustomize refuse it; the same file
/// found in a directory is passed through, as kpt passes it.
#[test]
fn a_named_input_without_any_object_is_refused() {
    let dir = TempDir::new("e2e-cli-objectless");
    let values = dir.write(
        "values.yaml",
        "replicaCount: 1\nimage: {repository: nginx}\n",
    );
    for (args, stdin, name) in [
        (vec![values.as_str()], "", "values.yaml"),
        (vec!["--check", values.as_str()], "", "values.yaml"),
        (vec![], "root:x:0:0:root:/root:/bin/bash\n", "stdin"),
    ] {
        let out = run(&args, stdin);
        assert_eq!(expect_exit(&out, 1, &format!("{args:?}")), "");
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{name} holds no Kubernetes object")),
            "{err}"
        );
    }
    dir.write(
        "cm.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n",
    );
    let out = run(&[dir.str()], "");
    assert!(expect_exit(&out, 0, "a directory with values.yaml").contains("replicaCount"));
    // Still unreadable input is worded as such, with its line and column.
    let out = run(&[], "a: [1\n");
    assert!(stderr(&out).contains("line 2 column 1"), "{}", stderr(&out));
}

/// Any error result in a plain stream: exit 1 and nothing on stdout; a ResourceList
/// still comes back whole, with the error in its results, as kpt needs.
#[test]
fn errors_leave_stdout_empty_for_streams_but_not_for_resource_lists() {
    let stream = example_stream();
    let out = run(&["--annotation-key", "Not A Key"], &stream);
    assert_eq!(expect_exit(&out, 2, "bad flag value"), "");
    assert!(stderr(&out).contains("annotationKey"), "{}", stderr(&out));

    let list = "\
apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: api}
  spec:
    template:
      spec:
        containers:
        - name: api
          envFrom: [{configMapRef: {name: nowhere}}]
";
    let out = run(&["--on-missing", "error"], list);
    let written = expect_exit(&out, 1, "ResourceList with an error");
    assert!(written.starts_with(list), "{written}");
    assert!(written.contains("severity: error"), "{written}");
}

/// The documentation's sample message for a missing volume source is what the function
/// prints (the page wraps it; joined with spaces it is the stderr line).
#[test]
fn documented_sample_for_a_missing_volume_source_is_what_is_printed() {
    let docs = common::user_docs();
    let block = docs
        .iter()
        .flat_map(|(_, text)| text.split("```"))
        .find(|b| b.contains("\"web-cfg\"") && b.contains("which is not in the input"))
        .expect("a code block in the docs with the web-cfg sample");
    let sample = block.split_whitespace().collect::<Vec<_>>().join(" ");
    let input = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  template:
    spec:
      containers:
      - name: app
        volumeMounts: [{name: cfg, mountPath: /etc/web}]
      volumes:
      - name: cfg
        configMap: {name: web-cfg}
";
    let out = run(&["-q"], input);
    expect_exit(&out, 0, "a missing volume source");
    assert_eq!(stderr(&out).trim_end(), sample);
}

/// Every boolean flag takes `=false`; a flag that means nothing alone is a usage error.
#[test]
fn boolean_flags_take_false_and_lonely_flags_are_errors() {
    let input = example_stream();
    let tmp = TempDir::new("e2e-cli-bools");
    let suffixing = tmp.write(
        "suffix.yaml",
        "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: x}\nspec: {nameSuffix: \"true\"}\n",
    );
    let renamed = expect_exit(
        &run(&["-c", &suffixing], &input),
        0,
        "nameSuffix from the file",
    );
    assert!(!renamed.contains("name: shop-settings\n"), "{renamed}");
    let plain = expect_exit(&run(&[], &input), 0, "defaults");
    let out = run(&["-c", &suffixing, "--name-suffix=false"], &input);
    assert_eq!(
        expect_exit(&out, 0, "--name-suffix=false over the file"),
        plain
    );
    for flag in [
        "--check=false",
        "-q=false",
        "--quiet=true",
        "--name-suffix=true",
    ] {
        expect_exit(&run(&[flag], &input), 0, flag);
    }
    let out = run(&["--immutable"], &input);
    assert_eq!(expect_exit(&out, 2, "--immutable alone"), "");
    assert!(stderr(&out).contains("--name-suffix"), "{}", stderr(&out));
    let out = run(&["--immutable", "--name-suffix"], &input);
    assert!(expect_exit(&out, 0, "--immutable --name-suffix").contains("immutable: true"));
}

/// All configuration problems in one run, each worded once: on stderr the field path
/// once; in a ResourceList the path in `field` only (kpt prints `field: message`).
#[test]
fn every_config_error_at_once_each_worded_once() {
    let tmp = TempDir::new("e2e-cli-config-errors");
    let bad = tmp.write(
        "bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {mode: sideways, colour: red}\n",
    );
    let out = run(&["-c", &bad, "--env-name", "1X"], &example_stream());
    // Every problem is reported; one is a flag's, so the exit status is a usage error's.
    assert_eq!(expect_exit(&out, 2, "three config errors"), "");
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 3, "{err}");
    assert!(
        lines[0].starts_with("error: functionConfig data.mode: \"sideways\" is not accepted"),
        "{err}"
    );
    assert!(
        lines[1].starts_with("error: functionConfig data.colour: unknown field"),
        "{err}"
    );
    assert!(
        lines[2].starts_with("error: envName (a flag): \"1X\""),
        "{err}"
    );
    for line in &lines {
        assert_eq!(
            line.matches("data.").count(),
            usize::from(line.contains("data.")),
            "{line}"
        );
    }

    let list = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n\
                functionConfig: {apiVersion: v1, kind: ConfigMap, metadata: {name: f}, data: {mode: side, onMissing: never}}\n";
    let out = run(&[], list);
    let text = expect_exit(&out, 1, "ResourceList with two config errors");
    let results = &yaml_serde::from_str::<Value>(&text).expect("YAML")["results"];
    let errors: Vec<(&str, &str)> = results
        .as_sequence()
        .expect("results")
        .iter()
        .filter(|r| r["severity"].as_str() == Some("error"))
        .map(|r| {
            (
                r["field"]["path"].as_str().unwrap_or(""),
                r["message"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(errors.len(), 2, "{text}");
    assert_eq!(errors[0].0, "data.mode");
    assert_eq!(errors[1].0, "data.onMissing");
    for (path, message) in errors {
        assert!(!message.contains(path), "{path} repeated in {message:?}");
    }
}

/// A config file's error reads the same from `prune` (a usage error) as from a run:
/// `functionConfig FIELD: MESSAGE`.
#[test]
fn prune_words_a_config_error_as_a_run_does() {
    let tmp = TempDir::new("e2e-cli-prune-config-error");
    let bad = tmp.write(
        "bad.yaml",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {mode: sideways}\n",
    );
    let empty = tmp.write("empty.yaml", "");
    let out = run(&["-c", &bad], &example_stream());
    expect_exit(&out, 1, "a run with a bad config file");
    let from_run = stderr(&out);
    let line = from_run.lines().next().expect("an error line");
    assert!(
        line.starts_with("error: functionConfig data.mode: \"sideways\""),
        "{from_run}"
    );
    let out = run(&["prune", "--live", &empty, "-c", &bad, &empty], "");
    expect_exit(&out, 2, "prune with a bad config file");
    let from_prune = stderr(&out);
    assert_eq!(from_prune.lines().next(), Some(line), "{from_prune}");
}

/// A ConfigHash among plain manifests (the user forgot `-c`) gets a warning naming `-c`.
#[test]
fn a_config_object_among_manifests_gets_a_warning_pointing_at_c() {
    let out = run(
        &[
            "config-hash.yaml",
            "manifests/config.yaml",
            "manifests/workloads.yaml",
        ],
        "",
    );
    expect_exit(&out, 0, "ConfigHash among FILES");
    let err = stderr(&out);
    assert!(
        err.lines().next().is_some_and(|l| l.starts_with(
            "warning: config-hash.yaml:2: ConfigHash config-hash is among the manifests"
        ) && l.contains("-c FILE")),
        "{err}"
    );
    // The summary counts the warnings that were printed, this one too.
    let printed = err.lines().filter(|l| l.starts_with("warning:")).count();
    assert!(
        err.lines()
            .last()
            .is_some_and(|l| l.ends_with(&format!(", {printed} warning(s)"))),
        "{err}"
    );
    let with_c = run(&["-c", "config-hash.yaml", "manifests/config.yaml"], "");
    assert!(
        !stderr(&with_c).contains("among the manifests"),
        "{}",
        stderr(&with_c)
    );
    // The config file inside a directory read is configuration, not a manifest.
    let dir = run(&["-c", "config-hash.yaml", "."], "");
    expect_exit(&dir, 0, "-c FILE DIR holding FILE");
    assert!(
        !stderr(&dir).contains("among the manifests"),
        "{}",
        stderr(&dir)
    );
    let without_c = run(&["."], "");
    assert!(
        stderr(&without_c).contains("among the manifests"),
        "{}",
        stderr(&without_c)
    );
}

/// Switching `mode` removes the stamp the other mode wrote earlier, and `--check` flags
/// it while it is there.
#[test]
fn a_mode_switch_removes_the_stale_stamp_and_check_flags_it() {
    let input = example_stream();
    let both = expect_exit(&run(&["--mode", "both", "-q"], &input), 0, "--mode both");
    let env_only = expect_exit(&run(&["--mode", "env", "-q"], &input), 0, "--mode env");
    let annotation_only = expect_exit(&run(&["-q"], &input), 0, "--mode annotation");
    assert!(both.contains(ANNOTATION_KEY) && both.contains("CONFIG_HASH"));

    let out = run(&["--check", "--mode", "env"], &both);
    assert_eq!(
        expect_exit(&out, 3, "--check --mode env on both"),
        text_of_stale(&both)
    );
    let switched = expect_exit(&run(&["--mode", "env", "-q"], &both), 0, "both -> env");
    assert_eq!(switched, env_only);
    assert!(!switched.contains(ANNOTATION_KEY));

    let out = run(&["--check"], &both);
    expect_exit(&out, 3, "--check --mode annotation on both");
    let switched = expect_exit(&run(&["-q"], &both), 0, "both -> annotation");
    assert_eq!(switched, annotation_only);
    assert!(!switched.contains("CONFIG_HASH"));
}

#[test]
fn runtime_reload_flag_writes_and_removes_reloaders_annotation() {
    let input = "apiVersion: external-secrets.io/v1
kind: ExternalSecret
metadata: {name: db}
spec: {target: {name: db-credentials}, data: [{secretKey: password, remoteRef: {key: db}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: web
        envFrom:
        - secretRef: {name: db-credentials}
";
    let on = expect_exit(
        &run(&["--runtime-reload", "reloader"], input),
        0,
        "--runtime-reload reloader",
    );
    assert!(
        on.contains(
            "  annotations:\n    secret.reloader.stakater.com/reload: \"db-credentials\"\n"
        ),
        "{on}"
    );
    // Idempotent, and the written list is not read back as an extra dependency.
    let again = expect_exit(&run(&["--runtime-reload", "reloader"], &on), 0, "again");
    assert_eq!(again, on);
    // Without the flag, it goes again, byte for byte back to a plain stamp.
    let off = expect_exit(&run(&[], &on), 0, "without the flag");
    let plain = expect_exit(&run(&[], input), 0, "plain");
    assert_eq!(off, plain);
    let bad = run(&["--runtime-reload", "wave"], input);
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
}

#[test]
fn gitops_flag_marks_hashed_objects_for_the_tool_over_a_config_file() {
    let input = "apiVersion: v1
kind: ConfigMap
metadata: {name: app}
data: {a: b}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - name: web
        envFrom:
        - configMapRef: {name: app}
";
    let flux = expect_exit(
        &run(&["--name-suffix", "--gitops", "flux"], input),
        0,
        "--gitops flux",
    );
    assert!(
        flux.contains("kustomize.toolkit.fluxcd.io/prune: \"disabled\""),
        "{flux}"
    );
    assert!(!flux.contains("argocd"), "{flux}");
    let again = expect_exit(
        &run(&["--name-suffix", "--gitops", "flux"], &flux),
        0,
        "again",
    );
    assert_eq!(again, flux);
    // The flag wins over a config file's gitops, `none` included.
    let dir = common::TempDir::new("gitops-config");
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {gitops: argocd, nameSuffix: \"true\"}\n",
    )
    .unwrap();
    let config = config.to_str().unwrap();
    let argo = expect_exit(&run(&["-c", config], input), 0, "config file");
    assert!(
        argo.contains("argocd.argoproj.io/sync-options: \"Prune=false\""),
        "{argo}"
    );
    let flux_over = expect_exit(&run(&["-c", config, "--gitops", "flux"], input), 0, "flag");
    assert_eq!(flux_over, flux);
    let none = expect_exit(&run(&["-c", config, "--gitops", "none"], input), 0, "none");
    assert_eq!(
        none,
        expect_exit(&run(&["--name-suffix"], input), 0, "plain")
    );
    let bad = run(&["--gitops", "kapp"], input);
    assert_eq!(bad.status.code(), Some(2), "{}", describe(&bad));
}

#[test]
fn graph_lists_the_keys_ignore_keys_leaves_out_of_each_hash() {
    let input = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/ignore-keys-read-through-sub-path-stay-hashed/input.yaml"),
    )
    .unwrap();
    let table = expect_exit(&run(&["graph"], &input), 0, "graph");
    // web mounts the whole ConfigMap (log-level not hashed) and feature-flags through
    // subPath (hashed); db reads every key through subPathExpr (all hashed).
    let rows: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("ConfigMap app"))
        .collect();
    assert_eq!(rows.len(), 2, "{table}");
    assert!(
        rows[0].starts_with("Deployment web") && rows[0].ends_with("* (not hashed: log-level)"),
        "{table}"
    );
    assert!(
        rows[1].starts_with("StatefulSet db") && rows[1].ends_with("  *"),
        "{table}"
    );
    let json = expect_exit(&run(&["graph", "--format", "json"], &input), 0, "json");
    let value: Value = yaml_serde::from_str(&json).unwrap();
    let ignored: Vec<String> = value["edges"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|e| {
            yaml_serde::to_string(&e["ignoredKeys"])
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(ignored, ["- log-level", "[]"], "{json}");
}
