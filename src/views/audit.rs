//! `audit`: which workloads read a ConfigMap or Secret and have nothing that rolls them
//! when it changes, in manifests as they are (a chart's render, a directory). A view of
//! the resolution a run makes: what a workload reads is what stamping would hash.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::catalog::SourceKind;
use crate::model::reference::Keys;
use crate::model::resource::ResourceId;
use crate::resolve::resolution::Resolution;
use crate::views::ResourceJson;

/// A ConfigMap or Secret a workload reads that nothing ties its pods to, as the
/// resolution has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Untied<'r> {
    pub kind: SourceKind,
    /// As hashed: `namespace/name` for another namespace's object.
    pub name: &'r str,
    /// The namespace it is looked up in (the workload's, unless the name says another).
    pub namespace: Option<&'r str>,
    /// The keys the pod sees (`None`: every key).
    pub keys: Option<&'r [String]>,
    /// It is in the input (an object made at install time or by hand is not).
    pub in_input: bool,
}

/// A workload with no roll trigger, and what it reads.
#[derive(Debug, Clone)]
pub struct Finding<'r> {
    pub workload: &'r ResourceId,
    pub reads: Vec<Untied<'r>>,
}

/// What an audit found.
#[derive(Debug, Clone, Default)]
pub struct Audit<'r> {
    /// Workloads that read a ConfigMap or Secret and have no roll trigger.
    pub untriggered: Vec<Finding<'r>>,
    /// Workloads that read a ConfigMap or Secret.
    pub reading: usize,
}

/// Every workload of the resolution that reads a ConfigMap or Secret and has no roll
/// trigger: no config-hash stamp, no `checksum/*` pod-template annotation, no Reloader or
/// wave annotation, and what it reads has no hashed name (listed: the objects without
/// one).
pub fn audit(r: &Resolution) -> Audit<'_> {
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
        let reads: Vec<Untied<'_>> = w
            .reads
            .iter()
            .filter(|read| {
                !r.sources
                    .get(&read.key_ref())
                    .is_some_and(|s| s.hashed_name)
            })
            .map(|read| Untied {
                kind: read.kind,
                name: &read.shown,
                namespace: read.namespace.as_deref(),
                keys: match &read.keys {
                    Keys::All => None,
                    Keys::Some(ks) => Some(ks),
                },
                in_input: read.present,
            })
            .collect();
        if !reads.is_empty() {
            out.untriggered.push(Finding {
                workload: &item.id,
                reads,
            });
        }
    }
    out
}

/// `ConfigMap ns/name`, as `graph` and `diff` show it.
fn read_text(u: &Untied<'_>) -> String {
    let mut s = match u.namespace {
        Some(ns) if !u.name.contains('/') => format!("{} {ns}/{}", u.kind.as_str(), u.name),
        _ => format!("{} {}", u.kind.as_str(), u.name),
    };
    if !u.in_input {
        s.push_str(" (not in the input)");
    }
    s
}

/// A readable table, one row per workload, then a summary line (left out under `-q`,
/// with the blank line before it).
pub fn write_table(a: &Audit<'_>, summary: bool, out: &mut impl Write) -> io::Result<()> {
    if !a.untriggered.is_empty() {
        let width = a
            .untriggered
            .iter()
            .map(|f| f.workload.to_string().chars().count())
            .max()
            .unwrap_or(0)
            .max("WORKLOAD".len());
        let mut line = String::new();
        let mut row = |out: &mut dyn Write, left: &str, right: &str| {
            // Padded by hand: `{:<width$}` panics for widths of 65,536 and more.
            line.clear();
            line.push_str(left);
            line.extend(std::iter::repeat_n(' ', width - left.chars().count() + 2));
            line.push_str(right);
            writeln!(out, "{line}")
        };
        row(out, "WORKLOAD", "READS, WITH NO ROLL TRIGGER")?;
        for f in &a.untriggered {
            let reads: Vec<String> = f.reads.iter().map(read_text).collect();
            row(out, &f.workload.to_string(), &reads.join(", "))?;
        }
        if !summary {
            return Ok(());
        }
        out.write_all(b"\n")?;
    }
    if !summary {
        return Ok(());
    }
    writeln!(
        out,
        "config-hash audit: {} of {} workload(s) that read a ConfigMap or Secret have no roll trigger{}",
        a.untriggered.len(),
        a.reading,
        if a.untriggered.is_empty() {
            ""
        } else {
            " (stamp them with config-hash, or give what they read a hashed name)"
        }
    )
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct UntiedJson<'r> {
    in_input: bool,
    keys: Option<&'r [String]>,
    kind: &'static str,
    name: &'r str,
}

#[derive(Serialize)]
struct FindingJson<'r> {
    reads: Vec<UntiedJson<'r>>,
    workload: ResourceJson<'r>,
}

/// The findings, each made as it is written.
struct UntriggeredJson<'a, 'r>(&'a [Finding<'r>]);

impl Serialize for UntriggeredJson<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.iter().map(|f| {
            FindingJson {
                reads: f
                    .reads
                    .iter()
                    .map(|u| UntiedJson {
                        in_input: u.in_input,
                        keys: u.keys,
                        kind: u.kind.as_str(),
                        name: u.name,
                    })
                    .collect(),
                workload: ResourceJson::of(f.workload),
            }
        }))
    }
}

#[derive(Serialize)]
struct AuditJson<'a, 'r> {
    reading: usize,
    untriggered: UntriggeredJson<'a, 'r>,
    version: u32,
}

/// JSON, as docs/review.md documents it (`"version": 1`).
pub fn write_json(a: &Audit<'_>, out: &mut impl Write) -> io::Result<()> {
    let value = AuditJson {
        reading: a.reading,
        untriggered: UntriggeredJson(&a.untriggered),
        version: 1,
    };
    serde_json::to_writer_pretty(&mut *out, &value)?;
    out.write_all(b"\n")
}
