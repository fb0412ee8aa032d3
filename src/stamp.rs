//! The core pass: for each workload, resolve the ConfigMaps and Secrets its pod template
//! sees, hash exactly that, and stamp the template (annotation and/or env var).

use std::collections::{BTreeMap, HashMap};

use crate::config::{Config, Granularity, OnMissing};
use crate::hashing::{self, Content, ContentError, Seen};
use crate::krm::{KrmResult, ResourceId, Severity, flag, is_local_config};
use crate::references::{self, CONTAINER_LISTS, Keys, Reference, SourceKind};
use crate::suffix::Renames;
use crate::workloads::{self, WorkloadKind};
use crate::yaml::edit::{column, dash_before};
use crate::yaml::{EditError, Editor, Layout, NewValue, NodeId, Splices, Tree};

pub const SKIP_ANNOTATION: &str = "config-hash.dev/skip";
pub const IGNORE_ANNOTATION: &str = "config-hash.dev/ignore";

/// The edits and results of one pass.
#[derive(Debug, Default)]
pub struct Stamped {
    pub splices: Splices,
    pub results: Vec<KrmResult>,
}

/// A ConfigMap or Secret in the input.
struct Source {
    item: NodeId,
    ignored: bool,
}

type SourceKey = (SourceKind, Option<String>, String);

/// The sources of the input, with their content read once, on first use.
struct Sources<'t, 'a> {
    tree: &'t Tree<'a>,
    by_id: HashMap<SourceKey, Source>,
    content: HashMap<NodeId, Result<Content, ContentError>>,
}

impl<'t, 'a> Sources<'t, 'a> {
    fn content(&mut self, item: NodeId, kind: SourceKind) -> &Result<Content, ContentError> {
        let tree = self.tree;
        self.content
            .entry(item)
            .or_insert_with(|| hashing::content(tree, item, kind))
    }
}

#[derive(Default)]
struct Counts {
    stamped: usize,
    skipped: usize,
    missing: usize,
    failed: usize,
}

/// Runs the pass over `items`.
/// Runs the pass over `items`. References are resolved through `renames`, so a
/// workload is hashed against the names objects will have after suffixing.
pub fn stamp(
    tree: &Tree<'_>,
    items: &[NodeId],
    config: &Config,
    layout: Layout,
    renames: &Renames,
) -> Stamped {
    let mut out = Stamped::default();
    let mut sources = Sources {
        tree,
        by_id: HashMap::new(),
        content: HashMap::new(),
    };
    for (item, id, kind) in references::config_objects(tree, items) {
        let name = renames
            .final_name(kind, &id.namespace, &id.name)
            .unwrap_or(&id.name)
            .to_string();
        let key = (kind, id.namespace.clone(), name);
        let ignored = flag(tree, item, IGNORE_ANNOTATION);
        if sources.by_id.contains_key(&key) {
            out.results.push(
                KrmResult::new(
                    Severity::Error,
                    format!("{id} appears more than once in the input; keep one so the hash is not ambiguous"),
                )
                .about(tree, item),
            );
            continue;
        }
        sources.by_id.insert(key, Source { item, ignored });
    }

    let mut counts = Counts::default();
    let mut bad_sources: Vec<NodeId> = Vec::new();
    for &item in items {
        let id = ResourceId::of(tree, item);
        let Some(kind) = workloads::lookup(&id.api_version, &id.kind) else {
            continue;
        };
        if is_local_config(tree, item) {
            continue;
        }
        if flag(tree, item, SKIP_ANNOTATION) {
            counts.skipped += 1;
            continue;
        }
        stamp_workload(
            tree,
            item,
            &id,
            kind,
            config,
            layout,
            renames,
            &mut sources,
            &mut bad_sources,
            &mut counts,
            &mut out,
        );
    }

    // Results describe the output, not the change, so that running the function on its
    // own output reproduces it byte for byte.
    let mut summary = format!("config-hash: {} workload(s) stamped", counts.stamped);
    summary.push_str(&format!(
        ", {} skipped, {} missing reference(s)",
        counts.skipped, counts.missing
    ));
    if counts.failed > 0 {
        summary.push_str(&format!(", {} could not be stamped", counts.failed));
    }
    out.results.push(KrmResult::new(Severity::Info, summary));
    out
}

/// What one pod template sees of one source.
struct Acc {
    keys: Keys,
    present: Option<NodeId>,
}

#[allow(clippy::too_many_arguments)]
fn stamp_workload(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    config: &Config,
    layout: Layout,
    renames: &Renames,
    sources: &mut Sources<'_, '_>,
    bad_sources: &mut Vec<NodeId>,
    counts: &mut Counts,
    out: &mut Stamped,
) {
    let Some(template) = tree.get_path(item, kind.template) else {
        return;
    };
    let Some(spec) = tree.get(template, "spec") else {
        return;
    };
    let mut prefix: Vec<&str> = kind.template.to_vec();
    prefix.push("spec");
    let refs = references::find(tree, spec, &prefix.join("."));

    let mut seen: BTreeMap<(SourceKind, String), Acc> = BTreeMap::new();
    let mut broken = false;
    for r in &refs {
        let name = renames
            .final_name(r.kind, &id.namespace, &r.name)
            .unwrap_or(&r.name)
            .to_string();
        let key = (r.kind, id.namespace.clone(), name.clone());
        let source = sources.by_id.get(&key).map(|s| (s.item, s.ignored));
        if let Some((_, true)) = source {
            continue;
        }
        let present = source.map(|(item, _)| item);
        let keys = match config.granularity {
            Granularity::Key => r.keys.clone(),
            Granularity::Object => Keys::All,
        };
        match present {
            Some(src_item) => match sources.content(src_item, r.kind) {
                Ok(content) => {
                    if let Keys::Some(ks) = &r.keys {
                        for k in ks {
                            if !content.entries.contains_key(k) && !r.optional {
                                counts.missing += usize::from(report_missing(
                                    tree,
                                    item,
                                    id,
                                    r,
                                    Some(k),
                                    config,
                                    out,
                                ));
                            }
                        }
                    }
                }
                Err(e) => {
                    broken = true;
                    if !bad_sources.contains(&src_item) {
                        bad_sources.push(src_item);
                        let sid = ResourceId::of(tree, src_item);
                        out.results.push(
                            KrmResult::new(Severity::Error, format!("{sid}: {e}"))
                                .about(tree, src_item),
                        );
                    }
                }
            },
            None if !r.optional => {
                counts.missing += usize::from(report_missing(tree, item, id, r, None, config, out));
            }
            None => {}
        }
        let acc = seen.entry((r.kind, name)).or_insert(Acc {
            keys: Keys::Some(Vec::new()),
            present,
        });
        acc.keys = union(&acc.keys, &keys);
    }
    if broken {
        counts.failed += 1;
        return;
    }

    let mut ed = Editor::new(tree, with_seq_indent(tree, spec, layout));
    let env_applies = kind.env_allowed && config.writes_env();
    if !seen.is_empty() && !env_applies && !config.writes_annotation() {
        out.results.push(
            KrmResult::new(
                Severity::Info,
                format!(
                    "{id}: a {}'s spec cannot change after creation, so env mode leaves it alone (use mode: annotation or both)",
                    id.kind
                ),
            )
            .about(tree, item),
        );
        return;
    }
    let result = if seen.is_empty() {
        clear(&mut ed, template, spec, config, env_applies).map(|_| ())
    } else {
        let contents: Vec<(SourceKind, &str, Option<&Content>, &Keys)> = seen
            .iter()
            .map(|((k, name), acc)| {
                let content = acc
                    .present
                    .and_then(|i| sources.content.get(&i))
                    .and_then(|c| c.as_ref().ok());
                (*k, name.as_str(), content, &acc.keys)
            })
            .collect();
        let seen_list: Vec<Seen<'_>> = contents
            .iter()
            .map(|&(kind, name, content, keys)| Seen {
                kind,
                name,
                content,
                keys,
            })
            .collect();
        let hash = hashing::pod_hash(&seen_list);
        apply(&mut ed, template, spec, config, env_applies, &hash).map(|_| {
            counts.stamped += 1;
            let names: Vec<String> = seen
                .iter()
                .map(|((k, name), acc)| {
                    let absent = if acc.present.is_none() { " (absent)" } else { "" };
                    format!("{} {name}{absent}", k.as_str())
                })
                .collect();
            let mut what = Vec::new();
            if config.writes_annotation() {
                what.push(format!("annotation {}", config.annotation_key));
            }
            if env_applies {
                what.push(format!("env {}", config.env_name));
            }
            out.results.push(
                KrmResult::new(
                    Severity::Info,
                    format!("{id}: {} from {}", what.join(" and "), names.join(", ")),
                )
                .about(tree, item),
            );
            if config.writes_env() && !kind.env_allowed {
                out.results.push(
                    KrmResult::new(
                        Severity::Info,
                        format!(
                            "{id}: a {}'s spec cannot change after creation, so env mode leaves it alone{}",
                            id.kind,
                            if config.writes_annotation() { " (annotation only)" } else { "" }
                        ),
                    )
                    .about(tree, item),
                );
            }
        })
    };
    match result {
        Ok(()) => std::mem::take(&mut ed.splices).append_to(&mut out.splices),
        Err(e) => {
            counts.failed += 1;
            out.results.push(edit_error(tree, item, id, &e));
        }
    }
}

fn union(a: &Keys, b: &Keys) -> Keys {
    match (a, b) {
        (Keys::All, _) | (_, Keys::All) => Keys::All,
        (Keys::Some(x), Keys::Some(y)) => {
            let mut v = x.clone();
            for k in y {
                if !v.contains(k) {
                    v.push(k.clone());
                }
            }
            Keys::Some(v)
        }
    }
}

/// Matches new block sequences to the indentation of the pod's `containers` list.
fn with_seq_indent(tree: &Tree<'_>, spec: NodeId, mut layout: Layout) -> Layout {
    let src = tree.src;
    let found = tree.own_entries(spec).iter().find_map(|&(k, v)| {
        (tree.str(k) == Some("containers") && !tree.is_flow(v))
            .then(|| tree.items(v).first().map(|&first| (k, first)))
            .flatten()
    });
    if let Some((k, first)) = found {
        let key_col = column(src, tree.node(k).span.start);
        let start = tree.node(first).span.start;
        if let Some(dash) = dash_before(src, start) {
            let dash_col = column(src, dash);
            layout.seq_indent = dash_col.saturating_sub(key_col);
            if !src[dash..start].contains('\n') {
                layout.item_gap = column(src, start).saturating_sub(dash_col).max(2);
            }
        }
    }
    layout
}

/// Writes the hash (an equal value already there is left as written).
fn apply(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    spec: NodeId,
    config: &Config,
    env: bool,
    hash: &str,
) -> Result<(), EditError> {
    if config.writes_annotation() {
        ed.set_string(
            template,
            &["metadata", "annotations"],
            &config.annotation_key,
            hash,
        )?;
    }
    if env {
        for c in containers(ed.tree, spec)? {
            set_env(ed, c, &config.env_name, hash)?;
        }
    }
    Ok(())
}

/// Removes a hash an earlier run left.
fn clear(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    spec: NodeId,
    config: &Config,
    env: bool,
) -> Result<(), EditError> {
    if config.writes_annotation() {
        ed.remove(
            template,
            &["metadata", "annotations"],
            &config.annotation_key,
        )?;
    }
    if env {
        for c in containers(ed.tree, spec)? {
            let tree = ed.tree;
            let Some(seq) = own(tree, c, "env").filter(|&s| tree.is_seq(s)) else {
                continue;
            };
            if let Some(idx) = env_index(tree, seq, &config.env_name) {
                ed.remove_item(seq, idx)?;
            }
        }
    }
    Ok(())
}

/// The containers whose env gets the hash: regular and init containers (ephemeral
/// containers cannot be part of a template).
fn containers(tree: &Tree<'_>, spec: NodeId) -> Result<Vec<NodeId>, EditError> {
    let mut out = Vec::new();
    for list in &CONTAINER_LISTS[..2] {
        let Some(seq) = own(tree, spec, list) else {
            continue;
        };
        for &c in tree.items(seq) {
            if tree.is_alias(seq) || tree.is_alias(c) {
                return Err(EditError::ThroughAlias {
                    pos: tree.node(c).span.start,
                });
            }
            if tree.is_map(c) {
                out.push(c);
            }
        }
    }
    Ok(out)
}

fn own(tree: &Tree<'_>, map: NodeId, key: &str) -> Option<NodeId> {
    tree.own_entries(map)
        .iter()
        .find(|&&(k, _)| tree.str(k) == Some(key))
        .map(|&(_, v)| v)
}

fn env_index(tree: &Tree<'_>, seq: NodeId, name: &str) -> Option<usize> {
    tree.items(seq)
        .iter()
        .position(|&i| tree.get(i, "name").and_then(|n| tree.str(n)) == Some(name))
}

fn set_env(
    ed: &mut Editor<'_, '_>,
    container: NodeId,
    name: &str,
    hash: &str,
) -> Result<(), EditError> {
    let tree = ed.tree;
    let entry = || {
        NewValue::Map(vec![
            ("name".into(), NewValue::Plain(name.into())),
            ("value".into(), NewValue::Str(hash.into())),
        ])
    };
    match own(tree, container, "env") {
        None => ed.insert_entry(container, "env", &NewValue::Seq(vec![entry()])),
        Some(v) if tree.is_null(v) => ed
            .set_value(container, &["env"], NewValue::Seq(vec![entry()]))
            .map(|_| ()),
        Some(seq) if tree.is_seq(seq) && !tree.is_alias(seq) => match env_index(tree, seq, name) {
            Some(idx) => {
                let var = tree.items(seq)[idx];
                if own(tree, var, "valueFrom").is_some() {
                    return Err(EditError::WrongType {
                        pos: tree.node(var).span.start,
                        field: format!("env {name}"),
                        expected: "a plain value, not valueFrom (rename envName or remove that variable)",
                    });
                }
                ed.set_string(var, &[], "value", hash).map(|_| ())
            }
            None => ed.insert_item(seq, &entry()),
        },
        Some(seq) if tree.is_alias(seq) => Err(EditError::ThroughAlias {
            pos: tree.node(seq).span.start,
        }),
        Some(v) => Err(EditError::WrongType {
            pos: tree.node(v).span.start,
            field: "env".into(),
            expected: "a list",
        }),
    }
}

fn report_missing(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    r: &Reference,
    key: Option<&str>,
    config: &Config,
    out: &mut Stamped,
) -> bool {
    let severity = match config.on_missing {
        OnMissing::Ignore => return false,
        OnMissing::Warn => Severity::Warning,
        OnMissing::Error => Severity::Error,
    };
    let container = r
        .container
        .as_ref()
        .map(|c| format!(" container {c:?}"))
        .unwrap_or_default();
    let what = match key {
        None => format!(
            "{} {:?}, which is not in the input",
            r.kind.as_str(),
            r.name
        ),
        Some(k) => format!(
            "key {k:?} of {} {:?}, which has no such key",
            r.kind.as_str(),
            r.name
        ),
    };
    // Env references stop the container; volume references stop the mount.
    let failure = if r.field.contains(".volumes[") {
        "the pod would not start: its volume cannot be mounted"
    } else {
        "the pod would fail with CreateContainerConfigError"
    };
    let message = format!(
        "{id}{container}: {} refers to {what} ({failure}; mark it optional: true, or add it, or set onMissing: ignore)",
        r.field
    );
    out.results.push(
        KrmResult::new(severity, message)
            .about(tree, item)
            .at_field(r.field.clone()),
    );
    true
}

fn edit_error(tree: &Tree<'_>, item: NodeId, id: &ResourceId, e: &EditError) -> KrmResult {
    let (pos, why) = match e {
        EditError::ThroughAlias { pos } => (
            *pos,
            "the place to write is reached through a YAML alias, and writing there would change every use of the anchor; expand the alias or add config-hash.dev/skip: \"true\"".to_string(),
        ),
        EditError::WrongType { pos, field, expected } => {
            (*pos, format!("{field} must be {expected}"))
        }
        EditError::Layout { pos, what } => (
            *pos,
            format!("cannot edit this layout losslessly ({what}); reformat that part or add config-hash.dev/skip: \"true\""),
        ),
    };
    let (line, col) = tree.line_col(pos);
    KrmResult::new(
        Severity::Error,
        format!("{id}: not stamped: {why} (line {line} column {col})"),
    )
    .about(tree, item)
}
