//! `graph`, `--check` and stamping read one resolution of every reference, so they agree
//! on every golden case: the objects the stamped result says it hashed are the graph's
//! edges, every missing-reference finding is a missing edge, and `--check` reports stale
//! exactly what stamping would edit, and nothing once the output is stamped.

mod common;

use std::collections::BTreeSet;
use std::fs;

use config_hash::model::catalog::SourceKind;
use config_hash::model::findings::Finding;
use config_hash::views::graph::{self, Edge, Status, Via};
use config_hash::{Invocation, resolve, run};

#[test]
fn graph_check_and_stamping_agree_on_every_golden_case() {
    let (mut cases, mut stamped_compared, mut missing_compared) = (0, 0, 0);
    for case in common::golden_cases() {
        let dir = case.dir.clone();
        let Some(input) = case.input() else {
            continue;
        };
        let Ok(text) = fs::read_to_string(&input) else {
            continue;
        };
        let options = Invocation::default();
        let (Ok(out), Ok(resolution)) = (run(&text, &options), resolve(&text, &options)) else {
            continue;
        };
        let edges: Vec<Edge<'_>> = graph::edges(&resolution).collect();
        cases += 1;
        let name = dir.display();
        // --check: stale exactly where stamping edits, and nothing after stamping.
        assert_eq!(
            out.stale.is_empty(),
            out.item_edits.is_empty(),
            "{name}: stale list and edits disagree"
        );
        if out.exit_code == 0 {
            let again = run(&out.output, &options).unwrap();
            assert!(
                again.stale.is_empty(),
                "{name}: stale after stamping: {:?}",
                again.stale
            );
        }
        // What stamping says it covered is the graph's pod edges.
        for r in &out.results {
            let (Finding::Stamped { covered, .. }, Some(workload)) = (&*r.finding, &r.resource)
            else {
                continue;
            };
            type Seen = (SourceKind, String, bool, Option<(String, String)>);
            let said: BTreeSet<Seen> = covered
                .iter()
                .map(|c| {
                    let by = c.made_by.as_ref().map(|b| (b.kind.clone(), b.name.clone()));
                    (c.kind, c.name.clone(), c.absent, by)
                })
                .collect();
            let shown: BTreeSet<Seen> = edges
                .iter()
                .filter(|e| {
                    (e.via == Via::Pod || e.via == Via::Extra)
                        && e.workload == workload
                        && e.status != Status::Ignored
                        // The cluster's own objects (kube-root-ca.crt) are not hashed.
                        && e.status != Status::Cluster
                })
                .map(|e| {
                    let absent = matches!(e.status, Status::Missing | Status::OptionalAbsent);
                    let by = e
                        .producer
                        .map(|p| (p.kind().to_string(), p.name().to_string()));
                    let name = match e.namespace {
                        Some(ns) if e.namespace != e.workload.namespace() => {
                            format!("{ns}/{}", e.name)
                        }
                        _ => e.name.to_string(),
                    };
                    (e.kind, name, absent, by)
                })
                .collect();
            assert_eq!(said, shown, "{name}: {workload}: stamped from vs graph");
            stamped_compared += 1;
        }
        // Every missing-reference finding is a missing edge or a missing key in the graph.
        for r in &out.results {
            let (Finding::Missing(m), Some(res)) = (&*r.finding, &r.resource) else {
                continue;
            };
            let found = edges.iter().any(|e| {
                e.workload == res
                    && e.fields.contains(&m.field.as_str())
                    && match &m.key {
                        None => e.status == Status::Missing,
                        Some(k) => e.missing_keys.contains(k.as_str()),
                    }
            });
            assert!(
                found,
                "{name}: finding {:?} has no missing edge in the graph",
                r.message()
            );
            missing_compared += 1;
        }
    }
    assert!(cases > 100, "only {cases} golden cases read");
    assert!(
        stamped_compared > 100,
        "only {stamped_compared} stamped results compared"
    );
    assert!(
        missing_compared > 10,
        "only {missing_compared} findings compared"
    );
    eprintln!("{cases} cases, {stamped_compared} stamped results, {missing_compared} findings");
}
