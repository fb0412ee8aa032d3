//! The dependency graph: which workloads read which ConfigMaps and Secrets (and keys),
//! and which references are missing, as a table, JSON, or Graphviz DOT.
//!
//! Every format is written as it goes from the resolution: an edge borrows what it shows
//! from the resolution and lives only while it is written, so a graph of a large input
//! costs little more than the resolution itself.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Write};

use serde::Serialize;
use serde::ser::{SerializeSeq, Serializer as _};

use crate::model::catalog::SourceKind;
use crate::model::reference::Keys;
use crate::model::resource::ResourceId;
use crate::resolve::resolution::{ItemResolution, Resolution, Resolved};
use crate::views::ResourceJson;
use crate::yaml::scalar::double_quoted;

pub use crate::model::reference::{Status, Via};

/// One referrer -> object dependency: a view of the [`Resolved`] references it gathers.
#[derive(Debug, Clone)]
pub struct Edge<'r> {
    pub workload: &'r ResourceId,
    pub kind: SourceKind,
    /// The object's name (after any renaming).
    pub name: &'r str,
    /// The namespace the object is looked up in.
    pub namespace: Option<&'r str>,
    /// Every key the pod sees (`None`: all keys).
    pub keys: Option<BTreeSet<&'r str>>,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: BTreeSet<&'r str>,
    pub status: Status,
    pub fields: Vec<&'r str>,
    pub via: Via,
    /// The object that makes the source, when git holds that instead (a SealedSecret);
    /// `None` for plain objects and for a source read as itself (a SecretProviderClass).
    pub producer: Option<&'r ResourceId>,
    /// The source's content can change outside git (an ExternalSecret's target, a
    /// SecretProviderClass): the hash covers only what git holds.
    pub runtime: bool,
    /// Keys the object's `config-hash.dev/ignore-keys` leaves out of this workload's
    /// hash (those it reads through `subPath` are hashed, so not listed).
    pub ignored_keys: BTreeSet<&'r str>,
}

impl<'r> Edge<'r> {
    /// An edge of one reference, before any other is gathered into it.
    fn of(workload: &'r ResourceId, r: &'r Resolved, keys: Option<BTreeSet<&'r str>>) -> Self {
        Edge {
            workload,
            kind: r.kind,
            name: &r.name,
            namespace: r.namespace.as_deref(),
            keys,
            missing_keys: BTreeSet::new(),
            status: r.status.clone(),
            fields: vec![&r.field],
            via: r.via,
            producer: r.producer.as_ref(),
            runtime: r.runtime,
            ignored_keys: BTreeSet::new(),
        }
    }
}

/// The edges of a resolution, item by item: a workload's, one per object it reads, then
/// one per name reference. Each item's are made when the iterator reaches it.
pub fn edges(resolution: &Resolution) -> impl Iterator<Item = Edge<'_>> {
    resolution.items.iter().flat_map(item_edges)
}

fn item_edges(item: &ItemResolution) -> Vec<Edge<'_>> {
    let mut out = match &item.workload {
        Some(w) => pod_edges(&item.id, &w.references),
        None => Vec::new(),
    };
    out.extend(item.names.iter().map(|r| Edge::of(&item.id, r, None)));
    out
}

/// A workload's edges, one per object (and way of reading it), from how its references
/// resolved.
fn pod_edges<'r>(id: &'r ResourceId, resolved: &'r [Resolved]) -> Vec<Edge<'r>> {
    let mut edges: BTreeMap<(SourceKind, Option<&str>, &str, Via), Edge<'r>> = BTreeMap::new();
    for r in resolved {
        let edge = edges
            .entry((r.kind, r.namespace.as_deref(), r.name.as_str(), r.via))
            .or_insert_with(|| Edge {
                status: Status::OptionalAbsent,
                fields: Vec::new(),
                ..Edge::of(id, r, Some(BTreeSet::new()))
            });
        edge.fields.push(&r.field);
        edge.ignored_keys
            .extend(r.ignored_keys.iter().map(String::as_str));
        match &r.keys {
            Keys::All => edge.keys = None,
            Keys::Some(ks) => {
                if let Some(set) = edge.keys.as_mut() {
                    set.extend(ks.iter().map(String::as_str));
                }
            }
        }
        match r.status {
            Status::OptionalAbsent => {}
            ref s => edge.status = s.clone(),
        }
        edge.missing_keys
            .extend(r.missing_keys.iter().map(String::as_str));
    }
    edges.into_values().collect()
}

/// `ConfigMap ns/name`: the object lives in the workload's namespace.
fn source_text(e: &Edge<'_>) -> String {
    match e.namespace {
        Some(ns) => format!("{} {ns}/{}", e.kind.as_str(), e.name),
        None => format!("{} {}", e.kind.as_str(), e.name),
    }
}

/// `ConfigMap a`, or `Secret s (made by SealedSecret s)`.
fn reads_text(e: &Edge<'_>) -> String {
    match e.producer {
        None => source_text(e),
        Some(p) => format!("{} (made by {} {})", source_text(e), p.kind(), p.name()),
    }
}

fn keys_text(e: &Edge<'_>) -> String {
    let keys = match e.via {
        Via::Name => return "(name)".to_string(),
        Via::Extra => "* (annotation)".to_string(),
        Via::Pod => match &e.keys {
            None => "*".to_string(),
            Some(ks) => ks.iter().copied().collect::<Vec<_>>().join(","),
        },
    };
    if e.ignored_keys.is_empty() {
        keys
    } else {
        let ignored: Vec<&str> = e.ignored_keys.iter().copied().collect();
        format!("{keys} (not hashed: {})", ignored.join(","))
    }
}

fn status_text(e: &Edge<'_>) -> String {
    e.status.cell(&e.missing_keys, e.runtime)
}

/// A readable table, one row per workload and object. Two passes over the resolution:
/// the columns' widths, then the rows, each made as it is written.
pub fn write_table(resolution: &Resolution, out: &mut impl Write) -> io::Result<()> {
    let padded = |e: &Edge<'_>| [e.workload.to_string(), reads_text(e), status_text(e)];
    // The keys last: a workload may read hundreds, and padding every row to the
    // longest list made rows of a thousand characters.
    let header = ["WORKLOAD", "READS", "STATUS", "KEYS"];
    let mut widths = [0usize; 3];
    let mut rows = 0usize;
    let mut widen = |cells: &[&str]| {
        for (w, cell) in widths.iter_mut().zip(cells) {
            *w = (*w).max(cell.chars().count());
        }
    };
    widen(&header);
    for e in edges(resolution) {
        let cells = padded(&e);
        widen(&cells.each_ref().map(String::as_str));
        rows += 1;
    }
    let mut line = String::new();
    let mut row = |out: &mut dyn Write, cells: [&str; 3], keys: &str| {
        line.clear();
        for (cell, width) in cells.into_iter().zip(widths) {
            // Padded by hand: `{:<width$}` panics for widths of 65,536 and more.
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', width - cell.chars().count() + 2));
        }
        line.push_str(keys);
        writeln!(out, "{}", line.trim_end())
    };
    row(out, [header[0], header[1], header[2]], header[3])?;
    for e in edges(resolution) {
        let cells = padded(&e);
        row(out, cells.each_ref().map(String::as_str), &keys_text(&e))?;
    }
    if rows == 0 {
        out.write_all(b"(no workload reads a ConfigMap or Secret)\n")?;
    }
    Ok(())
}

/// A node of the JSON graph; its fields in the order JSON objects were written in
/// before (by name).
#[derive(Serialize)]
#[serde(untagged)]
enum NodeJson<'r> {
    Resource {
        #[serde(rename = "apiVersion")]
        api_version: &'r str,
        id: String,
        kind: &'r str,
        name: &'r str,
        namespace: Option<&'r str>,
        role: &'static str,
    },
    Object {
        id: String,
        kind: &'static str,
        name: &'r str,
        namespace: Option<&'r str>,
        role: &'static str,
        runtime: bool,
        status: &'static str,
    },
}

impl<'r> NodeJson<'r> {
    fn resource(r: &'r ResourceId, id: String, role: &'static str) -> Self {
        NodeJson::Resource {
            api_version: r.api_version(),
            id,
            kind: r.kind(),
            name: r.name(),
            namespace: r.namespace(),
            role,
        }
    }
}

#[derive(Serialize)]
struct SourceJson<'r> {
    kind: &'static str,
    name: &'r str,
    namespace: Option<&'r str>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EdgeJson<'e, 'r> {
    all_keys: bool,
    fields: &'e [&'r str],
    from: &'e str,
    ignored_keys: &'e BTreeSet<&'r str>,
    keys: Vec<&'r str>,
    missing_keys: &'e BTreeSet<&'r str>,
    producer: Option<ResourceJson<'r>>,
    runtime: bool,
    source: SourceJson<'r>,
    status: &'static str,
    to: &'e str,
    via: &'static str,
    workload: ResourceJson<'r>,
}

fn via_json(via: Via) -> &'static str {
    match via {
        Via::Pod => "pod",
        Via::Name => "name",
        Via::Extra => "extra",
    }
}

/// The edges, each written as it is made, gathering the nodes they name (each once, as
/// first named) for [`write_json`] to write after them.
struct EdgesJson<'r> {
    resolution: &'r Resolution,
    nodes: std::cell::RefCell<BTreeMap<String, NodeJson<'r>>>,
}

impl Serialize for EdgesJson<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        let mut nodes = self.nodes.borrow_mut();
        for e in edges(self.resolution) {
            let (from, to) = (e.workload.to_string(), source_text(&e));
            nodes
                .entry(from.clone())
                .or_insert_with(|| NodeJson::resource(e.workload, from.clone(), "workload"));
            nodes.entry(to.clone()).or_insert_with(|| NodeJson::Object {
                id: to.clone(),
                kind: e.kind.as_str(),
                name: e.name,
                namespace: e.namespace,
                role: "object",
                runtime: e.runtime,
                status: e.status.as_json(),
            });
            if let Some(p) = e.producer {
                let id = p.to_string();
                nodes
                    .entry(id.clone())
                    .or_insert_with(|| NodeJson::resource(p, id, "producer"));
            }
            seq.serialize_element(&EdgeJson {
                all_keys: e.keys.is_none(),
                fields: &e.fields,
                from: &from,
                ignored_keys: &e.ignored_keys,
                keys: e.keys.iter().flatten().copied().collect(),
                missing_keys: &e.missing_keys,
                producer: e.producer.map(ResourceJson::of),
                runtime: e.runtime,
                source: SourceJson {
                    kind: e.kind.as_str(),
                    name: e.name,
                    namespace: e.namespace,
                },
                status: e.status.as_json(),
                to: &to,
                via: via_json(e.via),
                workload: ResourceJson::of(e.workload),
            })?;
        }
        seq.end()
    }
}

/// The nodes [`EdgesJson`] gathered, by id.
struct NodesJson<'a, 'r>(&'a EdgesJson<'r>);

impl Serialize for NodesJson<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.nodes.borrow().values())
    }
}

/// JSON: `{"edges": [...], "nodes": [...]}`. A node is a workload, an object read, or
/// a producer, with an `id` (the name the table and DOT give it); an edge is one
/// workload and object, with `from` and `to` naming nodes. The edges come first (the
/// keys are in order), so they are written as they are made; the nodes after them.
pub fn write_json(resolution: &Resolution, out: &mut impl Write) -> io::Result<()> {
    use serde::ser::SerializeStruct;
    let edges = EdgesJson {
        resolution,
        nodes: Default::default(),
    };
    let mut ser = serde_json::Serializer::pretty(&mut *out);
    let mut graph = (&mut ser).serialize_struct("Graph", 2)?;
    graph.serialize_field("edges", &edges)?;
    graph.serialize_field("nodes", &NodesJson(&edges))?;
    SerializeStruct::end(graph)?;
    out.write_all(b"\n")
}

/// A DOT node's attributes, by its kind of node.
fn dot_node(out: &mut impl Write, id: &str, attrs: &str) -> io::Result<()> {
    writeln!(out, "  {} [{attrs}];", double_quoted(id))
}

/// Graphviz DOT; missing objects and keys are drawn red and dashed, an extra dependency
/// (named by an annotation) has a hollow arrowhead, a producer is a
/// note with a bold `makes` edge to what it makes, and a source that changes at runtime
/// is drawn blue. Two passes: the nodes (and what producers make), then the edges.
pub fn write_dot(resolution: &Resolution, out: &mut impl Write) -> io::Result<()> {
    let q = |s: &str| double_quoted(s);
    out.write_all(
        b"digraph config_hash {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\"];\n",
    )?;
    // Each node once, as first named: its id, and its shape and style.
    let mut nodes: BTreeMap<String, String> = BTreeMap::new();
    let mut made: BTreeSet<(String, String)> = BTreeSet::new();
    for e in edges(resolution) {
        nodes
            .entry(e.workload.to_string())
            .or_insert_with(|| "shape=box".to_string());
        let s = source_text(&e);
        nodes.entry(s.clone()).or_insert_with(|| {
            let style = match e.status {
                Status::Missing => " color=red fontcolor=red style=dashed",
                Status::OptionalAbsent | Status::Ignored | Status::Cluster => " style=dotted",
                Status::Found => "",
            };
            let runtime = if e.runtime { " color=blue" } else { "" };
            format!("shape=ellipse{style}{runtime}")
        });
        if let Some(p) = e.producer {
            let p = p.to_string();
            nodes
                .entry(p.clone())
                .or_insert_with(|| "shape=note".to_string());
            made.insert((p, s));
        }
    }
    for (id, attrs) in &nodes {
        dot_node(out, id, attrs)?;
    }
    drop(nodes);
    for e in edges(resolution) {
        let mut label = keys_text(&e);
        let mut style = String::new();
        if e.via == Via::Extra {
            style.push_str(" arrowhead=empty");
        }
        if !e.missing_keys.is_empty() || e.status == Status::Missing {
            style.push_str(" color=red fontcolor=red style=dashed");
            if !e.missing_keys.is_empty() {
                label = status_text(&e);
            }
        }
        writeln!(
            out,
            "  {} -> {} [label={}{style}];",
            q(&e.workload.to_string()),
            q(&source_text(&e)),
            q(&label)
        )?;
    }
    for (p, s) in made {
        writeln!(
            out,
            "  {} -> {} [label=\"makes\" style=bold];",
            q(&p),
            q(&s)
        )?;
    }
    out.write_all(b"}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::to_text;

    fn resolve(src: &str) -> Resolution {
        crate::resolve(src, &crate::Invocation::default()).unwrap()
    }

    fn render_table(r: &Resolution) -> String {
        to_text(|w| write_table(r, w))
    }

    fn render_json(r: &Resolution) -> String {
        to_text(|w| write_json(r, w))
    }

    fn render_dot(r: &Resolution) -> String {
        to_text(|w| write_dot(r, w))
    }

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
        let table = render_table(&resolve(&src));
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
        let r = resolve(src);
        let e: Vec<Edge<'_>> = edges(&r).collect();
        let by: Vec<(&str, Option<&str>, bool)> = e
            .iter()
            .map(|e| (e.name, e.producer.map(|p| p.kind()), e.runtime))
            .collect();
        assert_eq!(
            by,
            [
                ("s", Some("SealedSecret"), false),
                ("t", Some("ExternalSecret"), true)
            ]
        );
        let table = render_table(&r);
        assert!(
            table.contains("Secret s (made by SealedSecret s)"),
            "{table}"
        );
        assert!(table.contains("found (changes at runtime)"), "{table}");
        let json: serde_json::Value = serde_json::from_str(&render_json(&r)).unwrap();
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
        let dot = render_dot(&r);
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
        let r = resolve(src);
        let e: Vec<Edge<'_>> = edges(&r).collect();
        let got: Vec<(Via, Option<&str>, &str, &Status)> = e
            .iter()
            .map(|e| (e.via, e.namespace, e.name, &e.status))
            .collect();
        assert_eq!(
            got,
            [
                (Via::Pod, Some("a"), "c", &Status::Found),
                (Via::Extra, Some("a"), "c", &Status::Found),
                (Via::Extra, Some("b"), "s", &Status::Missing)
            ]
        );
        assert!(render_table(&r).contains("* (annotation)"));
        assert!(render_json(&r).contains("\"via\": \"extra\""));
        assert!(render_dot(&r).contains("arrowhead=empty"));
    }

    /// F8: `{:<width$}` panics for widths of 65,536 and more.
    #[test]
    fn a_table_cell_of_any_length_is_padded_not_a_panic() {
        let long = "n".repeat(70_000);
        let src = format!(
            "- apiVersion: apps/v1\n  kind: Deployment\n  metadata: {{name: {long}}}\n  spec: {{template: {{spec: {{containers: [{{envFrom: [{{configMapRef: {{name: c}}}}]}}]}}}}}}\n"
        );
        let src = format!("kind: ResourceList\nitems:\n{src}");
        let table = render_table(&resolve(&src));
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
        let r = resolve(SRC);
        let e: Vec<Edge<'_>> = edges(&r).collect();
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].name, &e[0].status), ("cm", &Status::Found));
        assert_eq!(e[0].missing_keys.iter().copied().collect::<Vec<_>>(), ["b"]);
        assert_eq!((e[1].name, &e[1].status), ("gone", &Status::Missing));
        assert_eq!(
            (e[2].name, e[2].via, e[2].fields.as_slice()),
            ("tls", Via::Name, &["spec.tls[0].secretName"][..])
        );
        let table = render_table(&r);
        assert!(table.contains("Deployment web  ConfigMap cm"), "{table}");
        assert!(table.contains("missing keys: b"), "{table}");
        let dot = render_dot(&r);
        assert!(
            dot.contains("\"Secret gone\" [shape=ellipse color=red"),
            "{dot}"
        );
        let json = render_json(&r);
        assert!(json.contains("\"status\": \"missing\""), "{json}");
        assert!(json.contains("\"via\": \"name\""), "{json}");
    }
}
