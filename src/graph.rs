//! The dependency graph: which workloads read which ConfigMaps and Secrets (and keys),
//! and which references are missing, as a table, JSON, or Graphviz DOT.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::hashing;
use crate::krm::{ResourceId, annotation, is_local_config};
use crate::references::{self, Keys, SourceKind};
use crate::stamp::IGNORE_ANNOTATION;
use crate::workloads;
use crate::yaml::scalar::double_quoted;
use crate::yaml::{NodeId, Tree};

/// What became of a workload's references to one object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Found,
    /// Not in the input, and some reference to it is not optional.
    Missing,
    /// Not in the input, but every reference is optional.
    OptionalAbsent,
    /// Marked `config-hash.dev/ignore`.
    Ignored,
}

impl Status {
    fn as_str(&self) -> &'static str {
        match self {
            Status::Found => "found",
            Status::Missing => "missing",
            Status::OptionalAbsent => "absent (optional)",
            Status::Ignored => "ignored",
        }
    }
}

/// One workload -> object dependency.
#[derive(Debug, Clone)]
pub struct Edge {
    pub workload: ResourceId,
    pub kind: SourceKind,
    pub name: String,
    /// Every key the pod sees (`None`: all keys).
    pub keys: Option<BTreeSet<String>>,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: BTreeSet<String>,
    pub status: Status,
    pub fields: Vec<String>,
}

/// Builds the graph of `items`, workloads in input order, objects sorted.
pub fn build(tree: &Tree<'_>, items: &[NodeId]) -> Vec<Edge> {
    let mut sources: HashMap<(SourceKind, Option<String>, String), NodeId> = HashMap::new();
    for (item, id, kind) in references::config_objects(tree, items) {
        sources.entry((kind, id.namespace, id.name)).or_insert(item);
    }
    let mut out = Vec::new();
    for &item in items.iter().filter(|&&i| !is_local_config(tree, i)) {
        let id = ResourceId::of(tree, item);
        let Some(w) = workloads::lookup(&id.api_version, &id.kind) else {
            continue;
        };
        let Some(template) = tree.get_path(item, w.template) else {
            continue;
        };
        let Some(spec) = tree.get(template, "spec") else {
            continue;
        };
        let mut prefix = w.template.join(".");
        prefix.push_str(if prefix.is_empty() { "spec" } else { ".spec" });
        let mut edges: BTreeMap<(SourceKind, String), Edge> = BTreeMap::new();
        for r in references::find(tree, spec, &prefix) {
            let found = sources
                .get(&(r.kind, id.namespace.clone(), r.name.clone()))
                .copied();
            let edge = edges
                .entry((r.kind, r.name.clone()))
                .or_insert_with(|| Edge {
                    workload: id.clone(),
                    kind: r.kind,
                    name: r.name.clone(),
                    keys: Some(BTreeSet::new()),
                    missing_keys: BTreeSet::new(),
                    status: Status::OptionalAbsent,
                    fields: Vec::new(),
                });
            edge.fields.push(r.field.clone());
            match &r.keys {
                Keys::All => edge.keys = None,
                Keys::Some(ks) => {
                    if let Some(set) = edge.keys.as_mut() {
                        set.extend(ks.iter().cloned());
                    }
                }
            }
            match found {
                Some(src) if annotation(tree, src, IGNORE_ANNOTATION) == Some("true") => {
                    edge.status = Status::Ignored;
                }
                Some(src) => {
                    edge.status = Status::Found;
                    if let (Keys::Some(ks), false) = (&r.keys, r.optional) {
                        if let Ok(content) = hashing::content(tree, src, r.kind) {
                            for k in ks.iter().filter(|k| !content.entries.contains_key(*k)) {
                                edge.missing_keys.insert(k.clone());
                            }
                        }
                    }
                }
                None if !r.optional => edge.status = Status::Missing,
                None => {}
            }
        }
        out.extend(edges.into_values());
    }
    out
}

/// `ConfigMap ns/name`: the object lives in the workload's namespace.
fn source_text(e: &Edge) -> String {
    let ns = e
        .workload
        .namespace
        .as_deref()
        .map(|n| format!("{n}/"))
        .unwrap_or_default();
    format!("{} {ns}{}", e.kind.as_str(), e.name)
}

fn keys_text(e: &Edge) -> String {
    match &e.keys {
        None => "*".to_string(),
        Some(ks) => ks.iter().cloned().collect::<Vec<_>>().join(","),
    }
}

fn status_text(e: &Edge) -> String {
    if e.missing_keys.is_empty() {
        e.status.as_str().to_string()
    } else {
        let ks: Vec<&str> = e.missing_keys.iter().map(String::as_str).collect();
        format!("missing keys: {}", ks.join(","))
    }
}

/// A readable table, one row per workload and object.
pub fn render_table(edges: &[Edge]) -> String {
    let rows: Vec<[String; 4]> = edges
        .iter()
        .map(|e| {
            [
                e.workload.to_string(),
                source_text(e),
                keys_text(e),
                status_text(e),
            ]
        })
        .collect();
    let header = ["WORKLOAD", "READS", "KEYS", "STATUS"].map(str::to_string);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(rows.iter()) {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows.iter()) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            if i < 3 {
                // Padded by hand: `{:<width$}` panics for widths of 65,536 and more.
                line.push_str(cell);
                let pad = widths[i] - cell.chars().count() + 2;
                line.extend(std::iter::repeat_n(' ', pad));
            } else {
                line.push_str(cell);
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if rows.is_empty() {
        out.push_str("(no workload reads a ConfigMap or Secret)\n");
    }
    out
}

/// JSON: `{"edges": [...]}`, one object per workload and object.
pub fn render_json(edges: &[Edge]) -> String {
    let q = |s: &str| double_quoted(s);
    let list =
        |v: &mut dyn Iterator<Item = &String>| v.map(|s| q(s)).collect::<Vec<_>>().join(", ");
    let mut out = String::from("{\"edges\": [");
    for (i, e) in edges.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let w = &e.workload;
        let ns = w.namespace.as_deref().map_or("null".to_string(), q);
        let (keys, all_keys) = match &e.keys {
            None => ("[]".to_string(), true),
            Some(ks) => (format!("[{}]", list(&mut ks.iter())), false),
        };
        let _ = write!(
            out,
            "\n  {{\"workload\": {{\"apiVersion\": {}, \"kind\": {}, \"namespace\": {ns}, \"name\": {}}}, \"source\": {{\"kind\": {}, \"namespace\": {ns}, \"name\": {}}}, \"allKeys\": {all_keys}, \"keys\": {keys}, \"status\": {}, \"missingKeys\": [{}], \"fields\": [{}]}}",
            q(&w.api_version),
            q(&w.kind),
            q(&w.name),
            q(e.kind.as_str()),
            q(&e.name),
            q(match e.status {
                Status::Found => "found",
                Status::Missing => "missing",
                Status::OptionalAbsent => "optional-absent",
                Status::Ignored => "ignored",
            }),
            list(&mut e.missing_keys.iter()),
            list(&mut e.fields.iter()),
        );
    }
    out.push_str(if edges.is_empty() { "]}\n" } else { "\n]}\n" });
    out
}

/// Graphviz DOT; missing objects and keys are drawn red and dashed.
pub fn render_dot(edges: &[Edge]) -> String {
    let q = |s: &str| double_quoted(s);
    let mut out =
        String::from("digraph config_hash {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n");
    let mut nodes: BTreeMap<String, String> = BTreeMap::new();
    for e in edges {
        let w = e.workload.to_string();
        nodes
            .entry(w.clone())
            .or_insert_with(|| format!("  {} [shape=box];\n", q(&w)));
        let s = source_text(e);
        let style = match e.status {
            Status::Missing => " color=red fontcolor=red style=dashed",
            Status::OptionalAbsent | Status::Ignored => " style=dotted",
            Status::Found => "",
        };
        nodes
            .entry(s.clone())
            .or_insert_with(|| format!("  {} [shape=ellipse{style}];\n", q(&s)));
    }
    for line in nodes.values() {
        out.push_str(line);
    }
    for e in edges {
        let s = source_text(e);
        let mut label = keys_text(e);
        let mut style = String::new();
        if !e.missing_keys.is_empty() || e.status == Status::Missing {
            style.push_str(" color=red fontcolor=red style=dashed");
            if !e.missing_keys.is_empty() {
                label = status_text(e);
            }
        }
        let _ = writeln!(
            out,
            "  {} -> {} [label={}{style}];",
            q(&e.workload.to_string()),
            q(&s),
            q(&label)
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "
- {apiVersion: v1, kind: ConfigMap, metadata: {name: cm}, data: {a: '1'}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec:
    template:
      spec:
        containers:
        - name: app
          env:
          - {name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}
          - {name: B, valueFrom: {configMapKeyRef: {name: cm, key: b}}}
          envFrom: [{secretRef: {name: gone}}]
";

    /// F8: `{:<width$}` panics for widths of 65,536 and more.
    #[test]
    fn a_table_cell_of_any_length_is_padded_not_a_panic() {
        let long = "n".repeat(70_000);
        let src = format!(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: {long}}}\n  spec: {{template: {{spec: {{containers: [{{envFrom: [{{configMapRef: {{name: c}}}}]}}]}}}}}}\n"
        );
        let tree = Tree::parse(&src).unwrap();
        let items = tree.items(tree.docs[0].root).to_vec();
        let table = render_table(&build(&tree, &items));
        let lines: Vec<&str> = table.lines().collect();
        // Columns stay aligned: READS starts at the same column in the header and row.
        assert_eq!(
            lines[0].find("READS"),
            lines[1].find("ConfigMap"),
            "{}",
            &table[..80]
        );
        assert!(lines[1].contains(&long));
    }

    fn edges() -> Vec<Edge> {
        let tree = Tree::parse(SRC).unwrap();
        let items = tree.items(tree.docs[0].root).to_vec();
        build(&tree, &items)
    }

    #[test]
    fn reports_found_missing_objects_and_missing_keys() {
        let e = edges();
        assert_eq!(e.len(), 2);
        assert_eq!((e[0].name.as_str(), &e[0].status), ("cm", &Status::Found));
        assert_eq!(e[0].missing_keys.iter().collect::<Vec<_>>(), ["b"]);
        assert_eq!(
            (e[1].name.as_str(), &e[1].status),
            ("gone", &Status::Missing)
        );
        let table = render_table(&e);
        assert!(table.contains("Deployment web  ConfigMap cm"), "{table}");
        assert!(table.contains("missing keys: b"), "{table}");
        let dot = render_dot(&e);
        assert!(
            dot.contains("\"Secret gone\" [shape=ellipse color=red"),
            "{dot}"
        );
        let json = render_json(&e);
        assert!(json.contains("\"status\": \"missing\""), "{json}");
    }
}
