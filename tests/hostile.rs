//! Hostile inputs through the library: each would once take minutes, gigabytes or a
//! crash, and must now finish quickly with a clear answer. The deadlines are tens of
//! times what a debug build needs, so a slow machine does not fail them, while the
//! quadratic or exponential behaviour they guard against would.

use std::sync::mpsc;
use std::thread;
use std::time::Duration;

use config_hash::{Options, Outcome};

/// Runs `f` on another thread and fails if it takes longer than `secs`.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs))
        .unwrap_or_else(|_| panic!("did not finish within {secs} s"))
}

fn run(input: String) -> Result<Outcome, String> {
    config_hash::run(&input, &Options::default()).map_err(|e| e.to_string())
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
    let errors: Vec<&str> = out
        .results
        .iter()
        .map(|r| r.message.as_str())
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

/// One-line JSON: each item's chunk looked for its line's start, and its layout for the
/// input's first line break, by a scan over the whole input.
#[test]
fn a_one_line_json_list_is_read_in_linear_time() {
    let items: Vec<String> = (0..40_000)
        .map(|i| {
            format!(
                "{{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {{\"name\": \"c{i}\"}}, \"data\": {{\"A\": \"1\"}}}}, {{\"apiVersion\": \"apps/v1\", \"kind\": \"Deployment\", \"metadata\": {{\"name\": \"w{i}\"}}, \"spec\": {{\"template\": {{\"spec\": {{\"containers\": [{{\"envFrom\": [{{\"configMapRef\": {{\"name\": \"c{i}\"}}}}]}}]}}}}}}}}"
            )
        })
        .collect();
    let input = format!(
        "{{\"apiVersion\": \"config.kubernetes.io/v1\", \"kind\": \"ResourceList\", \"items\": [{}]}}",
        items.join(", ")
    );
    let out = within(60, move || run(input)).unwrap();
    assert_eq!(out.exit_code, 0);
    assert_eq!(out.item_edits.len(), 40_000, "{:?}", out.results.last());
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
        config_hash::graph(&graph_input, &config_hash::Options::default()).map(|_| ())
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
