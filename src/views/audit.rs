//! `audit`: which workloads read a ConfigMap or Secret and have nothing that rolls them
//! when it changes, in manifests as they are (a chart's render, a directory). A view of
//! the resolution a run makes: what a workload reads is what stamping would hash.

use std::fmt::Write as _;

use crate::model::catalog::SourceKind;
use crate::model::reference::Keys;
use crate::model::resource::ResourceId;
use crate::resolve::resolution::Resolution;

/// A ConfigMap or Secret a workload reads that nothing ties its pods to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untied {
    pub kind: SourceKind,
    /// As hashed: `namespace/name` for another namespace's object.
    pub name: String,
    /// The namespace it is looked up in (the workload's, unless the name says another).
    pub namespace: Option<String>,
    /// The keys the pod sees (`None`: every key).
    pub keys: Option<Vec<String>>,
    /// It is in the input (an object made at install time or by hand is not).
    pub in_input: bool,
}

/// A workload with no roll trigger, and what it reads.
#[derive(Debug, Clone)]
pub struct Finding {
    pub workload: ResourceId,
    pub reads: Vec<Untied>,
}

/// What an audit found.
#[derive(Debug, Clone, Default)]
pub struct Audit {
    /// Workloads that read a ConfigMap or Secret and have no roll trigger.
    pub untriggered: Vec<Finding>,
    /// Workloads that read a ConfigMap or Secret.
    pub reading: usize,
}

/// Every workload of the resolution that reads a ConfigMap or Secret and has no roll
/// trigger: no config-hash stamp, no `checksum/*` pod-template annotation, no Reloader or
/// wave annotation, and what it reads has no hashed name (listed: the objects without
/// one).
pub fn audit(r: &Resolution) -> Audit {
    let mut out = Audit::default();
    for item in &r.items {
        let (Some(w), Some(marks)) = (&item.workload, &item.marks) else {
            continue;
        };
        if w.reads.is_empty() || !marks.rolls {
            continue;
        }
        out.reading += 1;
        if !marks.triggers.is_empty() {
            continue;
        }
        let reads: Vec<Untied> = w
            .reads
            .iter()
            .filter(|read| !r.sources.get(&read.key()).is_some_and(|s| s.hashed_name))
            .map(|read| Untied {
                kind: read.kind,
                name: read.shown.clone(),
                namespace: read.namespace.clone(),
                keys: match &read.keys {
                    Keys::All => None,
                    Keys::Some(ks) => Some(ks.clone()),
                },
                in_input: read.present,
            })
            .collect();
        if !reads.is_empty() {
            out.untriggered.push(Finding {
                workload: item.id.clone(),
                reads,
            });
        }
    }
    out
}

/// `ConfigMap ns/name`, as `graph` and `diff` show it.
fn read_text(u: &Untied) -> String {
    let mut s = match &u.namespace {
        Some(ns) if !u.name.contains('/') => format!("{} {ns}/{}", u.kind.as_str(), u.name),
        _ => format!("{} {}", u.kind.as_str(), u.name),
    };
    if !u.in_input {
        s.push_str(" (not in the input)");
    }
    s
}

/// A readable table, one row per workload, then a summary line.
pub fn render_table(a: &Audit) -> String {
    let mut out = String::new();
    if !a.untriggered.is_empty() {
        let width = a
            .untriggered
            .iter()
            .map(|f| f.workload.to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max("WORKLOAD".len());
        let row = |out: &mut String, left: &str, right: &str| {
            out.push_str(left);
            out.extend(std::iter::repeat_n(' ', width - left.chars().count() + 2));
            out.push_str(right);
            out.push('\n');
        };
        row(&mut out, "WORKLOAD", "READS, WITH NO ROLL TRIGGER");
        for f in &a.untriggered {
            let reads: Vec<String> = f.reads.iter().map(read_text).collect();
            row(&mut out, &f.workload.to_string(), &reads.join(", "));
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "config-hash audit: {} of {} workload(s) that read a ConfigMap or Secret have no roll trigger{}",
        a.untriggered.len(),
        a.reading,
        if a.untriggered.is_empty() {
            ""
        } else {
            " (stamp them with config-hash, or give what they read a hashed name)"
        }
    );
    out
}

/// JSON, as docs/review.md documents it (`"version": 1`).
pub fn render_json(a: &Audit) -> String {
    use serde_json::json;
    let workloads: Vec<serde_json::Value> = a
        .untriggered
        .iter()
        .map(|f| {
            let w = &f.workload;
            json!({
                "workload": {
                    "apiVersion": w.api_version(),
                    "kind": w.kind(),
                    "namespace": w.namespace(),
                    "name": w.name(),
                },
                "reads": f.reads.iter().map(|u| json!({
                    "kind": u.kind.as_str(),
                    "name": u.name,
                    "keys": u.keys,
                    "inInput": u.in_input,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    let value = json!({
        "version": 1,
        "untriggered": workloads,
        "reading": a.reading,
    });
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_default();
    text.push('\n');
    text
}
