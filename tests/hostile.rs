//! Hostile inputs through the library: each would once take minutes, gigabytes or a
//! crash, and must now finish quickly with a clear answer. The deadlines are tens of
//! times what a debug build needs, so a slow machine does not fail them, while the
//! quadratic or exponential behaviour they guard against would.
//!
//! The deadlines count this process's CPU time, not the clock: on a busy machine (a
//! two-core one at load 20, with other builds) the clock ran past them for work that
//! took a tenth of them. So that the process's CPU time is one test's, the tests take
//! turns (their work runs in parallel inside the library, on rayon's threads).

use std::sync::{Mutex, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use config_hash::{Invocation, Outcome};

/// This process's CPU time (user and system, all threads), from /proc/self/stat; `None`
/// where there is no /proc.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // pid (comm) state ...: utime and stime are the 12th and 13th fields after comm.
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(11);
    let ticks: u64 = fields.next()?.parse::<u64>().ok()? + fields.next()?.parse::<u64>().ok()?;
    // USER_HZ, 100 on Linux.
    Some(Duration::from_millis(ticks * 10))
}

/// Runs `f` on another thread and fails if it takes more than `secs` of CPU time (or,
/// without /proc, of the clock), or ten times that of the clock (a hang uses no CPU).
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    static TURN: Mutex<()> = Mutex::new(());
    let _turn = TURN.lock().unwrap_or_else(|e| e.into_inner());
    let limit = Duration::from_secs(secs);
    let (start_cpu, start) = (cpu_time(), Instant::now());
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    loop {
        if let Ok(out) = rx.recv_timeout(Duration::from_millis(100)) {
            return out;
        }
        let wall = start.elapsed();
        let used = match (start_cpu, cpu_time()) {
            (Some(a), Some(b)) => b.saturating_sub(a),
            _ => wall,
        };
        assert!(used <= limit, "did not finish within {secs} s of CPU time");
        assert!(
            wall <= limit * 10,
            "did not finish within {} s (used {used:.1?} of CPU time: stuck?)",
            secs * 10
        );
    }
}

fn run(input: String) -> Result<Outcome, String> {
    config_hash::run(&input, &Invocation::default()).map_err(|e| e.to_string())
}

/// One line number per failing workload was a scan from the start of the input.
#[test]
fn many_failing_workloads_report_their_lines_in_linear_time() {
    let n = 8_000;
    let mut input = String::new();
    for i in 0..n {
        input.push_str(&format!(
            "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: w{i}}}\nspec:\n  template:\n    metadata:\n      annotations: [a]\n    spec:\n      containers:\n      - envFrom: [{{configMapRef: {{name: c, optional: true}}}}]\n"
        ));
    }
    let out = within(30, move || run(input)).unwrap();
    let errors: Vec<String> = out
        .results
        .iter()
        .map(|r| r.message())
        .filter(|m| m.contains("annotations must be a mapping"))
        .collect();
    assert_eq!(errors.len(), n);
    // Line numbers of the whole input: item i starts on line 11 * i + 1.
    let last = format!("(line {} column 20)", 11 * (n - 1) + 8);
    assert!(errors[n - 1].ends_with(&last), "{}", errors[n - 1]);
}

/// F5: de-duplicating a ConfigMap's keys was quadratic.
#[test]
fn a_configmap_with_many_keys_is_hashed_in_linear_time() {
    let mut input = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n");
    for i in 0..150_000 {
        input.push_str(&format!("  k{i}: v\n"));
    }
    input.push_str("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - envFrom: [{configMapRef: {name: c}}]\n");
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.item_edits.len(), 1, "{:?}", out.results);
}

/// JSON surrogate pairs were each checked against every node.
#[test]
fn many_json_surrogate_pairs_are_read_in_linear_time() {
    let values: Vec<String> = (0..150_000)
        .map(|i| format!("\"k{i}\": \"\\ud83d\\ude80\""))
        .collect();
    let input = format!(
        "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"c\"}}, \"data\": {{{}}}}}",
        values.join(", ")
    );
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0);
}

/// F4: aliases that multiply a pod spec are refused before any walk, for a run and for
/// `graph`, naming the limit.
#[test]
fn alias_fan_out_is_refused_naming_the_limit() {
    let refs = |name: &str, n: usize| vec![format!("*{name}"); n].join(", ");
    let input = format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: w}}\nx-e: &e {{configMapRef: {{name: c}}}}\nx-c: &c {{name: a, envFrom: [{}]}}\nspec:\n  template:\n    spec:\n      containers: [{}]\n",
        refs("e", 3000),
        refs("c", 3000)
    );
    let graph_input = input.clone();
    let err = within(30, move || run(input)).unwrap_err();
    assert!(err.contains("alias expansion limit"), "{err}");
    let err = within(30, move || {
        config_hash::resolve(&graph_input, &config_hash::Invocation::default()).map(|_| ())
    })
    .unwrap_err()
    .to_string();
    assert!(err.contains("alias expansion limit"), "{err}");
}

/// F3: merge keys chained through aliases, nine times per level.
#[test]
fn merge_key_chains_end_quickly() {
    let mut input =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\nx-m0: &m0 {k0: v}\n");
    for level in 1..16 {
        let refs = vec![format!("*m{}", level - 1); 9].join(", ");
        input.push_str(&format!(
            "x-m{level}: &m{level} {{k{level}: v, <<: [{refs}]}}\n"
        ));
    }
    input.push_str("data: {<<: *m15}\n");
    let err = within(30, move || run(input)).unwrap_err();
    assert!(err.contains("alias expansion limit"), "{err}");
}

/// Each old-name warning in env mode looked up every env list of its workload again, so
/// many mentions in one workload took quadratic time (20,000: 65 s in a release build).
#[test]
fn many_old_name_mentions_in_env_mode_are_reported_in_linear_time() {
    let n = 40_000;
    let mut input = String::from(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fn}\n  data: {mode: env, nameSuffix: \"true\"}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {a: \"1\"}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    template:\n      spec:\n        containers:\n        - name: web\n          envFrom: [{configMapRef: {name: cfg}}]\n          env:\n",
    );
    for i in 0..n {
        input.push_str(&format!("          - {{name: CONFIG_{i}, value: cfg}}\n"));
    }
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0);
    let last_field = |out: &config_hash::Outcome| {
        let fields: Vec<&str> = out
            .results
            .iter()
            .filter(|r| r.message().contains("the old name of an object"))
            .filter_map(|r| r.field.as_deref())
            .collect();
        assert_eq!(fields.len(), n);
        fields[n - 1].to_string()
    };
    // Numbered among the user's entries: the hash entry inserted first is not counted,
    // in the first run or in a run on its output (where it stands first).
    let want = format!("spec.template.spec.containers[0].env[{}].value", n - 1);
    assert_eq!(last_field(&out), want);
    let output = out.output.clone();
    let again = within(60, move || run(output)).unwrap();
    assert_eq!(last_field(&again), want);
}

/// Each reference rewritten by a rename was checked against every edit of the stamp
/// (here: each container's two CONFIG_HASH entries, removed in annotation mode), so one
/// workload with many containers took quadratic time.
#[test]
fn a_rename_beside_many_stamp_edits_in_one_workload_takes_linear_time() {
    let n = 150_000;
    let mut input = String::from(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nfunctionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: fn}\n  data: {nameSuffix: \"true\"}\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: cfg}\n  data: {a: \"1\"}\n- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {name: web}\n  spec:\n    template:\n      spec:\n        containers:\n",
    );
    for _ in 0..n {
        input.push_str(
            "        - {env: [{name: CONFIG_HASH}], envFrom: [{configMapRef: {name: cfg}}]}\n",
        );
    }
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0, "{:?}", out.results.first());
    let renamed = out.output.matches("configMapRef: {name: cfg-").count();
    assert_eq!(renamed, n);
    assert!(!out.output.contains("CONFIG_HASH"));
}

/// A JSON ResourceList on one line (as `json.dumps` or `jq -c` writes it): each item
/// looked for the input's first line break, and for the start of its own line, from
/// the start of the input, so the run was quadratic (40,000 workloads: 66 s).
#[test]
fn a_one_line_json_resource_list_is_read_in_linear_time() {
    let n = 80_000;
    let mut items = Vec::new();
    for i in 0..n {
        items.push(format!(
            "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"c{i}\"}}, \"data\": {{\"a\": \"1\"}}}}"
        ));
        items.push(format!(
            "{{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {{\"name\": \"w{i}\"}}, \"spec\": {{\"template\": {{\"spec\": {{\"containers\": [{{\"envFrom\": [{{\"configMapRef\": {{\"name\": \"c{i}\"}}}}]}}]}}}}}}}}"
        ));
    }
    let input = format!(
        "{{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{}]}}",
        items.join(", ")
    );
    let out = within(120, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.item_edits.len(), n);
    assert!(
        !out.output.contains('\n'),
        "still one line (JSON in, JSON out)"
    );
}

/// Each unreadable ConfigMap was looked for in a list of those already reported, so
/// many of them took quadratic time (80,000: 13.6 s in a release build).
#[test]
fn many_unreadable_sources_are_reported_in_linear_time() {
    let n = 80_000;
    let mut input = String::new();
    for i in 0..n {
        input.push_str(&format!(
            "---\napiVersion: v1\nkind: ConfigMap\nmetadata: {{name: c{i}}}\ndata: [not, a, map]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: w{i}}}\nspec: {{template: {{spec: {{containers: [{{envFrom: [{{configMapRef: {{name: c{i}}}}}]}}]}}}}}}\n"
        ));
    }
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 1);
    let errors = out
        .results
        .iter()
        .filter(|r| r.message().contains("data must be a mapping"))
        .count();
    assert_eq!(errors, n, "{:?}", out.results.first());
}

/// Each item looked itself up by a scan of the catalog, and each declared workload
/// scanned every row before it, so a long catalog in the functionConfig made the run
/// quadratic (32,000 custom kinds and objects: 7.7 s of CPU in a release build).
#[test]
fn a_long_user_catalog_is_looked_up_in_linear_time() {
    let n = 48_000;
    let mut config = String::from(
        "apiVersion: config-hash.dev/v1alpha1\nkind: ConfigHash\nmetadata: {name: c}\nspec:\n  workloads:\n",
    );
    for i in 0..n {
        config.push_str(&format!(
            "  - {{group: example.com, kind: W{i}, template: spec/podTemplate}}\n"
        ));
    }
    config.push_str("  references:\n  - kind: Secret\n    fieldSpecs:\n");
    for i in 0..n {
        config.push_str(&format!(
            "    - {{group: example.com, kind: W{i}, path: spec/auth/secretName}}\n"
        ));
    }
    let mut input =
        String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");
    for i in 0..n {
        input.push_str(&format!(
            "---\napiVersion: example.com/v1\nkind: W{i}\nmetadata: {{name: w{i}}}\nspec: {{podTemplate: {{spec: {{containers: [{{envFrom: [{{configMapRef: {{name: c}}}}]}}]}}}}}}\n"
        ));
    }
    let out = within(60, move || {
        config_hash::run(
            &input,
            &Invocation {
                config_text: Some(config),
                ..Invocation::default()
            },
        )
    })
    .unwrap();
    assert_eq!(out.exit_code, 0, "{:?}", out.results.first());
    assert_eq!(out.item_edits.len(), n);
}

/// Quoted scalars continued at column 0 (go-yaml has no indentation rule inside quotes)
/// are read in the one pass like any other: 40,000 of them in a 590 KB ConfigMap. With
/// the parser this replaced, each cost one more parse of the text, up to a limit.
#[test]
fn many_quoted_scalars_continued_at_column_0_are_read_in_linear_time() {
    let mut input = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n");
    for i in 0..40_000 {
        input.push_str(&format!("  a{i}: \"x\ny\"\n"));
    }
    let out = within(20, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0, "{:?}", out.results.first());
}

/// Comments indented less than a block scalar's indentation indicator end it (as go-yaml
/// reads them), in the one pass too.
#[test]
fn many_comments_ending_block_scalars_are_read_in_linear_time() {
    let mut input = String::from("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata:\n");
    for i in 0..40_000 {
        input.push_str(&format!("  a{i}: |4\n     # c\n"));
    }
    let out = within(20, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0, "{:?}", out.results.first());
}

/// Per subPath mount a scan of every volume, and per reference a scan of every subPath
/// mount, were quadratic in a pod spec of many volumes mounted through subPath.
#[test]
fn many_sub_path_mounts_of_ignored_keys_are_resolved_in_linear_time() {
    let n = 20_000;
    let mut input = String::from(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations: {config-hash.dev/ignore-keys: k}\ndata: {k: v, other: w}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        volumeMounts:\n",
    );
    for i in 0..n {
        input.push_str(&format!(
            "        - {{name: v{i}, mountPath: /m/{i}, subPath: k}}\n"
        ));
    }
    input.push_str("      volumes:\n");
    for i in 0..n {
        input.push_str(&format!("      - {{name: v{i}, configMap: {{name: c}}}}\n"));
    }
    let out = within(60, move || run(input)).unwrap();
    let warnings: Vec<String> = out
        .results
        .iter()
        .map(|r| r.message())
        .filter(|m| m.contains("through subPath"))
        .collect();
    // One warning for the source, at its first mount.
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(warnings[0].contains("volumeMounts[0]"), "{}", warnings[0]);
}

/// Each further reference to a missing object joins the one finding about it: looking
/// that finding up by a scan of the workload's findings was quadratic in the objects
/// missing.
#[test]
fn many_missing_objects_in_one_workload_are_reported_in_linear_time() {
    let n = 40_000;
    let mut input = String::from(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w}\nspec:\n  template:\n    spec:\n      containers:\n      - name: app\n        envFrom:\n",
    );
    for i in 0..n {
        input.push_str(&format!("        - configMapRef: {{name: gone-{i}}}\n"));
    }
    // Each object read twice: one finding per object, naming both fields.
    input.push_str("      volumes:\n");
    for i in 0..n {
        input.push_str(&format!(
            "      - {{name: v{i}, configMap: {{name: gone-{i}}}}}\n"
        ));
    }
    let out = within(20, move || run(input)).unwrap();
    let missing: Vec<String> = out
        .results
        .iter()
        .map(|r| r.message())
        .filter(|m| m.contains("which is not in the input"))
        .collect();
    assert_eq!(missing.len(), n);
    assert!(
        missing[n - 1].contains(" and spec.template.spec.volumes["),
        "{}",
        missing[n - 1]
    );
}
