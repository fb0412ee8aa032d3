//! The dependency graph: which workloads read which ConfigMaps and Secrets (and keys),
//! and which references are missing, as a table, JSON, or Graphviz DOT.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::model::catalog::SourceKind;
use crate::model::reference::Keys;
use crate::model::resource::ResourceId;
use crate::resolve::resolution::{Resolution, Resolved};
use crate::yaml::scalar::double_quoted;

pub use crate::model::reference::{Status, Via};

/// One referrer -> object dependency.
#[derive(Debug, Clone)]
pub struct Edge {
    pub workload: ResourceId,
    pub kind: SourceKind,
    /// The object's name (after any renaming).
    pub name: String,
    /// The namespace the object is looked up in.
    pub namespace: Option<String>,
    /// Every key the pod sees (`None`: all keys).
    pub keys: Option<BTreeSet<String>>,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: BTreeSet<String>,
    pub status: Status,
    pub fields: Vec<String>,
    pub via: Via,
    /// The object that makes the source, when git holds that instead (a SealedSecret);
    /// `None` for plain objects and for a source read as itself (a SecretProviderClass).
    pub producer: Option<ResourceId>,
    /// The source's content can change outside git (an ExternalSecret's target, a
    /// SecretProviderClass): the hash covers only what git holds.
    pub runtime: bool,
    /// Keys the object's `config-hash.dev/ignore-keys` leaves out of this workload's
    /// hash (those it reads through `subPath` are hashed, so not listed).
    pub ignored_keys: BTreeSet<String>,
}

/// The edges of a resolution, item by item: a workload's, one per object it reads, then
/// one per name reference.
pub fn edges(resolution: &Resolution) -> Vec<Edge> {
    let mut out = Vec::new();
    for item in &resolution.items {
        if let Some(w) = &item.workload {
            out.extend(pod_edges(&item.id, &w.references));
        }
        out.extend(item.names.iter().map(|r| Edge {
            workload: item.id.clone(),
            kind: r.kind,
            name: r.name.clone(),
            namespace: r.namespace.clone(),
            keys: None,
            missing_keys: BTreeSet::new(),
            status: r.status.clone(),
            fields: vec![r.field.clone()],
            via: r.via,
            producer: r.producer.clone(),
            runtime: r.runtime,
            ignored_keys: BTreeSet::new(),
        }));
    }
    out
}

/// A workload's edges, one per object (and way of reading it), from how its references
/// resolved.
fn pod_edges(id: &ResourceId, resolved: &[Resolved]) -> Vec<Edge> {
    let mut edges: BTreeMap<(SourceKind, &Option<String>, &str, Via), Edge> = BTreeMap::new();
    for r in resolved {
        let edge = edges
            .entry((r.kind, &r.namespace, r.name.as_str(), r.via))
            .or_insert_with(|| Edge {
                workload: id.clone(),
                kind: r.kind,
                name: r.name.clone(),
                namespace: r.namespace.clone(),
                keys: Some(BTreeSet::new()),
                missing_keys: BTreeSet::new(),
                status: Status::OptionalAbsent,
                fields: Vec::new(),
                via: r.via,
                producer: r.producer.clone(),
                runtime: r.runtime,
                ignored_keys: BTreeSet::new(),
            });
        edge.fields.push(r.field.clone());
        edge.ignored_keys.extend(r.ignored_keys.iter().cloned());
        match &r.keys {
            Keys::All => edge.keys = None,
            Keys::Some(ks) => {
                if let Some(set) = edge.keys.as_mut() {
                    set.extend(ks.iter().cloned());
                }
            }
        }
        match r.status {
            Status::OptionalAbsent => {}
            ref s => edge.status = s.clone(),
        }
        edge.missing_keys.extend(r.missing_keys.iter().cloned());
    }
    edges.into_values().collect()
}

/// `ConfigMap ns/name`: the object lives in the workload's namespace.
fn source_text(e: &Edge) -> String {
    let ns = e
        .namespace
        .as_deref()
        .map(|n| format!("{n}/"))
        .unwrap_or_default();
    format!("{} {ns}{}", e.kind.as_str(), e.name)
}

/// `ConfigMap a`, or `Secret s (made by SealedSecret s)`.
fn reads_text(e: &Edge) -> String {
    match &e.producer {
        None => source_text(e),
        Some(p) => format!("{} (made by {} {})", source_text(e), p.kind(), p.name()),
    }
}

fn keys_text(e: &Edge) -> String {
    let keys = match e.via {
        Via::Name => return "(name)".to_string(),
        Via::Extra => "* (annotation)".to_string(),
        Via::Pod => match &e.keys {
            None => "*".to_string(),
            Some(ks) => ks.iter().cloned().collect::<Vec<_>>().join(","),
        },
    };
    if e.ignored_keys.is_empty() {
        keys
    } else {
        let ignored: Vec<&str> = e.ignored_keys.iter().map(String::as_str).collect();
        format!("{keys} (not hashed: {})", ignored.join(","))
    }
}

fn status_text(e: &Edge) -> String {
    e.status.cell(&e.missing_keys, e.runtime)
}

/// A readable table, one row per workload and object.
pub fn render_table(edges: &[Edge]) -> String {
    let rows: Vec<[String; 4]> = edges
        .iter()
        .map(|e| {
            [
                e.workload.to_string(),
                reads_text(e),
                status_text(e),
                keys_text(e),
            ]
        })
        .collect();
    // The keys last: a workload may read hundreds, and padding every row to the
    // longest list made rows of a thousand characters.
    let header = ["WORKLOAD", "READS", "STATUS", "KEYS"].map(str::to_string);
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

/// JSON: `{"nodes": [...], "edges": [...]}`. A node is a workload, an object read, or
/// a producer, with an `id` (the name the table and DOT give it); an edge is one
/// workload and object, with `from` and `to` naming nodes.
pub fn render_json(edges: &[Edge]) -> String {
    use serde_json::{Value, json};
    let resource = |r: &ResourceId| {
        json!({
            "apiVersion": r.api_version(),
            "kind": r.kind(),
            "namespace": r.namespace(),
            "name": r.name(),
        })
    };
    let mut nodes: BTreeMap<String, Value> = BTreeMap::new();
    let mut list = Vec::with_capacity(edges.len());
    for e in edges {
        let (from, to) = (e.workload.to_string(), source_text(e));
        let mut node = resource(&e.workload);
        node["id"] = json!(from);
        node["role"] = json!("workload");
        nodes.entry(from.clone()).or_insert(node);
        nodes.entry(to.clone()).or_insert_with(|| {
            json!({
                "id": to,
                "role": "object",
                "kind": e.kind.as_str(),
                "namespace": e.namespace,
                "name": e.name,
                "status": e.status.as_json(),
                "runtime": e.runtime,
            })
        });
        if let Some(p) = &e.producer {
            let id = p.to_string();
            let mut node = resource(p);
            node["id"] = json!(id);
            node["role"] = json!("producer");
            nodes.entry(id).or_insert(node);
        }
        list.push(json!({
            "from": from,
            "to": to,
            "workload": resource(&e.workload),
            "source": {"kind": e.kind.as_str(), "namespace": e.namespace, "name": e.name},
            "via": match e.via {
                Via::Pod => "pod",
                Via::Name => "name",
                Via::Extra => "extra",
            },
            "producer": e.producer.as_ref().map(resource),
            "runtime": e.runtime,
            "allKeys": e.keys.is_none(),
            "keys": e.keys.iter().flatten().collect::<Vec<_>>(),
            "status": e.status.as_json(),
            "missingKeys": e.missing_keys,
            "ignoredKeys": e.ignored_keys,
            "fields": e.fields,
        }));
    }
    let graph = json!({"nodes": nodes.into_values().collect::<Vec<_>>(), "edges": list});
    let mut out = serde_json::to_string_pretty(&graph).expect("a graph is plain JSON");
    out.push('\n');
    out
}

/// Graphviz DOT; missing objects and keys are drawn red and dashed, an extra dependency
/// (named by an annotation) has a hollow arrowhead, a producer is a
/// note with a bold `makes` edge to what it makes, and a source that changes at runtime
/// is drawn blue.
pub fn render_dot(edges: &[Edge]) -> String {
    let q = |s: &str| double_quoted(s);
    let mut out = String::from(
        "digraph config_hash {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n",
    );
    let mut nodes: BTreeMap<String, String> = BTreeMap::new();
    for e in edges {
        let w = e.workload.to_string();
        nodes
            .entry(w.clone())
            .or_insert_with(|| format!("  {} [shape=box];\n", q(&w)));
        let s = source_text(e);
        let style = match e.status {
            Status::Missing => " color=red fontcolor=red style=dashed",
            Status::OptionalAbsent | Status::Ignored | Status::Cluster => " style=dotted",
            Status::Found => "",
        };
        let runtime = if e.runtime { " color=blue" } else { "" };
        nodes
            .entry(s.clone())
            .or_insert_with(|| format!("  {} [shape=ellipse{style}{runtime}];\n", q(&s)));
        if let Some(p) = &e.producer {
            let p = p.to_string();
            nodes
                .entry(p.clone())
                .or_insert_with(|| format!("  {} [shape=note];\n", q(&p)));
        }
    }
    for line in nodes.values() {
        out.push_str(line);
    }
    for e in edges {
        let s = source_text(e);
        let mut label = keys_text(e);
        let mut style = String::new();
        if e.via == Via::Extra {
            style.push_str(" arrowhead=empty");
        }
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
    let mut made: BTreeSet<(String, String)> = BTreeSet::new();
    for e in edges {
        if let Some(p) = &e.producer {
            made.insert((p.to_string(), source_text(e)));
        }
    }
    for (p, s) in made {
        let _ = writeln!(
            out,
            "  {} -> {} [label=\"makes\" style=bold];",
            q(&p),
            q(&s)
        );
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "
kind: ResourceList
items:
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
- apiVersion: networking.k8s.io/v1
  kind: Ingress
  metadata: {name: web}
  spec:
    tls: [{secretName: tls}]
";

    #[test]
    fn the_keys_come_last_so_a_long_list_pads_no_row() {
        let src = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: big}}\ndata: {{{}}}\n---\n\
             apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web}}\nspec:\n  template:\n    spec:\n      containers:\n      - name: a\n        env:\n{}        - {{name: S, valueFrom: {{secretKeyRef: {{name: s, key: k}}}}}}\n",
            (0..50).map(|i| format!("key{i}: v")).collect::<Vec<_>>().join(", "),
            (0..50)
                .map(|i| format!("        - {{name: V{i}, valueFrom: {{configMapKeyRef: {{name: big, key: key{i}}}}}}}\n"))
                .collect::<String>()
        );
        let table = render_table(&crate::graph(&src, &crate::Invocation::default()).unwrap());
        let secret_row = table.lines().find(|l| l.contains("Secret s")).expect("row");
        assert!(secret_row.ends_with("missing  k"), "{table}");
        assert!(table.ends_with('\n'), "{table}");
    }

    #[test]
    fn producer_and_runtime_edges_are_shown_in_every_format() {
        let src = "kind: ResourceList
items:
- {apiVersion: bitnami.com/v1alpha1, kind: SealedSecret, metadata: {name: s}, spec: {encryptedData: {k: AgB}}}
- {apiVersion: external-secrets.io/v1, kind: ExternalSecret, metadata: {name: e}, spec: {target: {name: t}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web}
  spec: {template: {spec: {containers: [{name: a, envFrom: [{secretRef: {name: s}}, {secretRef: {name: t}}]}]}}}
";
        let e = crate::graph(src, &crate::Invocation::default()).unwrap();
        let by: Vec<(&str, Option<&str>, bool)> = e
            .iter()
            .map(|e| {
                (
                    e.name.as_str(),
                    e.producer.as_ref().map(|p| p.kind()),
                    e.runtime,
                )
            })
            .collect();
        assert_eq!(
            by,
            [
                ("s", Some("SealedSecret"), false),
                ("t", Some("ExternalSecret"), true)
            ]
        );
        let table = render_table(&e);
        assert!(
            table.contains("Secret s (made by SealedSecret s)"),
            "{table}"
        );
        assert!(table.contains("found (changes at runtime)"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&render_json(&e)).unwrap();
        assert_eq!(
            json["edges"][0]["producer"],
            serde_json::json!({"apiVersion": "bitnami.com/v1alpha1", "kind": "SealedSecret", "namespace": null, "name": "s"}),
            "{json}"
        );
        assert_eq!(json["edges"][1]["runtime"], true, "{json}");
        // Every end of an edge is a node, and each node once.
        let ids: Vec<&str> = json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["id"].as_str().unwrap())
            .collect();
        assert_eq!(
            ids,
            [
                "Deployment web",
                "ExternalSecret e",
                "SealedSecret s",
                "Secret s",
                "Secret t"
            ],
            "{json}"
        );
        for edge in json["edges"].as_array().unwrap() {
            for end in ["from", "to"] {
                assert!(ids.contains(&edge[end].as_str().unwrap()), "{edge}");
            }
        }
        assert_eq!(json["nodes"][2]["role"], "producer", "{json}");
        assert_eq!(json["nodes"][4]["runtime"], true, "{json}");
        let dot = render_dot(&e);
        // Edge labels in the nodes' font (Graphviz's default is Times).
        assert!(
            dot.contains("  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n"),
            "{dot}"
        );
        assert!(
            dot.contains("\"ExternalSecret e\" -> \"Secret t\" [label=\"makes\" style=bold];"),
            "{dot}"
        );
        assert!(
            dot.contains("\"Secret t\" [shape=ellipse color=blue];"),
            "{dot}"
        );
    }

    #[test]
    fn extra_dependencies_are_their_own_edge_kind() {
        let src = "kind: ResourceList
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: a}, data: {k: v}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {name: web, namespace: a, annotations: {config-hash.dev/extra-configmaps: c, wave.pusher.com/extra-secrets: b/s}}
  spec: {template: {spec: {containers: [{name: a, envFrom: [{configMapRef: {name: c}}]}]}}}
";
        let e = crate::graph(src, &crate::Invocation::default()).unwrap();
        let got: Vec<(Via, Option<&str>, &str, &Status)> = e
            .iter()
            .map(|e| (e.via, e.namespace.as_deref(), e.name.as_str(), &e.status))
            .collect();
        assert_eq!(
            got,
            [
                (Via::Pod, Some("a"), "c", &Status::Found),
                (Via::Extra, Some("a"), "c", &Status::Found),
                (Via::Extra, Some("b"), "s", &Status::Missing)
            ]
        );
        assert!(render_table(&e).contains("* (annotation)"));
        assert!(render_json(&e).contains("\"via\": \"extra\""));
        assert!(render_dot(&e).contains("arrowhead=empty"));
    }

    /// F8: `{:<width$}` panics for widths of 65,536 and more.
    #[test]
    fn a_table_cell_of_any_length_is_padded_not_a_panic() {
        let long = "n".repeat(70_000);
        let src = format!(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: {long}}}\n  spec: {{template: {{spec: {{containers: [{{envFrom: [{{configMapRef: {{name: c}}}}]}}]}}}}}}\n"
        );
        let src = format!("kind: ResourceList\nitems:\n{src}");
        let table = render_table(&crate::graph(&src, &crate::Invocation::default()).unwrap());
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

    #[test]
    fn reports_found_missing_objects_and_missing_keys() {
        let e = crate::graph(SRC, &crate::Invocation::default()).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].name.as_str(), &e[0].status), ("cm", &Status::Found));
        assert_eq!(e[0].missing_keys.iter().collect::<Vec<_>>(), ["b"]);
        assert_eq!(
            (e[1].name.as_str(), &e[1].status),
            ("gone", &Status::Missing)
        );
        assert_eq!(
            (e[2].name.as_str(), e[2].via, e[2].fields.as_slice()),
            (
                "tls",
                Via::Name,
                &["spec.tls[0].secretName".to_string()][..]
            )
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
        assert!(json.contains("\"via\": \"name\""), "{json}");
    }
}
