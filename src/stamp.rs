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

/// Kind, namespace and name of a source.
pub type SourceKey = (SourceKind, Option<String>, String);

/// What the hash needs of one ConfigMap or Secret, owned, so that the tree it came from
/// can be dropped (large inputs are parsed one item at a time).
#[derive(Debug)]
pub struct SourceEntry {
    pub ignored: bool,
    pub content: Result<Content, ContentError>,
    /// The object as results name it.
    about: KrmResult,
}

impl SourceEntry {
    /// Reads what the hash needs of one ConfigMap or Secret, keyed by the name it will
    /// have after any renaming.
    pub fn read(
        tree: &Tree<'_>,
        item: NodeId,
        id: &ResourceId,
        kind: SourceKind,
        renames: &Renames,
    ) -> (SourceKey, SourceEntry) {
        let name = renames
            .final_name(kind, &id.namespace, &id.name)
            .unwrap_or(&id.name)
            .to_string();
        let entry = SourceEntry {
            ignored: flag(tree, item, IGNORE_ANNOTATION),
            content: hashing::content(tree, item, kind),
            about: KrmResult::new(Severity::Error, String::new()).about(tree, item),
        };
        ((kind, id.namespace.clone(), name), entry)
    }
}

/// The ConfigMaps and Secrets of the input, by kind, namespace and (final) name.
#[derive(Debug, Default)]
pub struct SourceIndex {
    by_id: HashMap<SourceKey, SourceEntry>,
}

impl SourceIndex {
    /// Adds a ConfigMap or Secret; a second object with the same identity is an error.
    pub fn add(
        &mut self,
        tree: &Tree<'_>,
        item: NodeId,
        id: &ResourceId,
        kind: SourceKind,
        renames: &Renames,
    ) -> Result<(), Box<KrmResult>> {
        let (key, entry) = SourceEntry::read(tree, item, id, kind, renames);
        self.insert(key, entry, id)
    }

    /// Adds an entry read earlier (perhaps on another thread).
    pub fn insert(
        &mut self,
        key: SourceKey,
        entry: SourceEntry,
        id: &ResourceId,
    ) -> Result<(), Box<KrmResult>> {
        if self.by_id.contains_key(&key) {
            let mut dup = entry.about;
            dup.message = format!(
                "{id} appears more than once in the input; keep one so the hash is not ambiguous"
            );
            return Err(Box::new(dup));
        }
        self.by_id.insert(key, entry);
        Ok(())
    }

    fn get(&self, key: &SourceKey) -> Option<&SourceEntry> {
        self.by_id.get(key)
    }
}

/// Counts for the summary result.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    stamped: usize,
    skipped: usize,
    missing: usize,
    failed: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.stamped += o.stamped;
        self.skipped += o.skipped;
        self.missing += o.missing;
        self.failed += o.failed;
    }
}

/// A result of one workload, or a mark where an unreadable source it references must be
/// reported (once for the whole input, at its first use).
#[derive(Debug)]
pub enum Note {
    Result(KrmResult),
    SourceError(SourceKind, Option<String>, String),
}

/// What stamping one item produced.
#[derive(Debug, Default)]
pub struct ItemOutcome {
    pub splices: Splices,
    pub notes: Vec<Note>,
    pub counts: Counts,
}

/// Runs the pass over `items` of one tree. References are resolved through `renames`,
/// so a workload is hashed against the names objects will have after suffixing.
pub fn stamp(tree: &Tree<'_>, items: &[NodeId], config: &Config, renames: &Renames) -> Stamped {
    let mut index = SourceIndex::default();
    let mut early = Vec::new();
    for (item, id, kind) in references::config_objects(tree, items) {
        if let Err(dup) = index.add(tree, item, &id, kind, renames) {
            early.push(*dup);
        }
    }
    let outcomes = items
        .iter()
        .filter_map(|&item| stamp_item(tree, item, config, renames, &index));
    finish(early, outcomes, &index)
}

/// Merges the outcomes of every item, in input order, and adds the summary.
pub fn finish(
    early: Vec<KrmResult>,
    outcomes: impl IntoIterator<Item = ItemOutcome>,
    index: &SourceIndex,
) -> Stamped {
    let mut out = Stamped {
        splices: Splices::new(),
        results: early,
    };
    let mut counts = Counts::default();
    let mut reported: Vec<SourceKey> = Vec::new();
    for o in outcomes {
        o.splices.append_to(&mut out.splices);
        counts.add(o.counts);
        for note in o.notes {
            match note {
                Note::Result(r) => out.results.push(r),
                Note::SourceError(kind, ns, name) => {
                    let key = (kind, ns, name);
                    if reported.contains(&key) {
                        continue;
                    }
                    if let Some(Err(e)) = index.get(&key).map(|s| &s.content) {
                        let mut r = index.by_id[&key].about.clone();
                        let sid = r
                            .resource
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        r.message = format!("{sid}: {e}");
                        out.results.push(r);
                    }
                    reported.push(key);
                }
            }
        }
    }
    // Results describe the output, not the change, so that running the function on its
    // own output reproduces it byte for byte.
    let mut summary = format!(
        "config-hash: {} workload(s) stamped, {} skipped, {} missing reference(s)",
        counts.stamped, counts.skipped, counts.missing
    );
    if counts.failed > 0 {
        summary.push_str(&format!(", {} could not be stamped", counts.failed));
    }
    out.results.push(KrmResult::new(Severity::Info, summary));
    out
}

/// Stamps one item if it is a workload (`None` otherwise).
pub fn stamp_item(
    tree: &Tree<'_>,
    item: NodeId,
    config: &Config,
    renames: &Renames,
    index: &SourceIndex,
) -> Option<ItemOutcome> {
    let id = ResourceId::of(tree, item);
    let kind = workloads::lookup(&id.api_version, &id.kind)?;
    if is_local_config(tree, item) {
        return None;
    }
    let mut out = ItemOutcome::default();
    if flag(tree, item, SKIP_ANNOTATION) {
        out.counts.skipped += 1;
        return Some(out);
    }
    stamp_workload(tree, item, &id, kind, config, renames, index, &mut out);
    Some(out)
}

/// What one pod template sees of one source.
struct Acc {
    keys: Keys,
    present: bool,
}

#[allow(clippy::too_many_arguments)]
fn stamp_workload(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    config: &Config,
    renames: &Renames,
    index: &SourceIndex,
    out: &mut ItemOutcome,
) {
    let Some(template) = tree.get_path(item, kind.template) else {
        return;
    };
    let Some(spec) = tree.get(template, "spec") else {
        return;
    };
    let mut prefix: Vec<&str> = kind.template.to_vec();
    prefix.push("spec");
    let spec_path = prefix.join(".");
    let refs = references::find(tree, spec, &spec_path);
    let shifted = shifted_env_lists(
        tree,
        spec,
        &spec_path,
        kind.env_allowed && config.writes_env(),
        config,
    );
    let unreadable = references::unreadable_names(tree, spec, &spec_path);
    if !unreadable.is_empty() {
        out.counts.failed += 1;
        for field in unreadable {
            out.notes.push(Note::Result(
                KrmResult::new(
                    Severity::Error,
                    format!(
                        "{id}: not stamped: {field} must be a string (the name of a ConfigMap or Secret), not a list or mapping; the API server rejects this manifest"
                    ),
                )
                .about(tree, item)
                .at_field(field),
            ));
        }
        return;
    }

    let mut seen: BTreeMap<(SourceKind, String), Acc> = BTreeMap::new();
    let mut broken = false;
    for r in &refs {
        let r_out;
        let r = match output_field(&r.field, &shifted) {
            Some(field) => {
                r_out = Reference { field, ..r.clone() };
                &r_out
            }
            None => r,
        };
        let name = renames
            .final_name(r.kind, &id.namespace, &r.name)
            .unwrap_or(&r.name)
            .to_string();
        let key = (r.kind, id.namespace.clone(), name.clone());
        let source = index.get(&key);
        if source.is_some_and(|s| s.ignored) {
            continue;
        }
        let keys = match config.granularity {
            Granularity::Key => r.keys.clone(),
            Granularity::Object => Keys::All,
        };
        match source.map(|s| &s.content) {
            Some(Ok(content)) => {
                if let Keys::Some(ks) = &r.keys {
                    for k in ks {
                        if !content.entries.contains_key(k) && !r.optional {
                            out.counts.missing += usize::from(report_missing(
                                tree,
                                item,
                                id,
                                r,
                                &name,
                                Some(k),
                                config,
                                out,
                            ));
                        }
                    }
                }
            }
            Some(Err(_)) => {
                broken = true;
                out.notes.push(Note::SourceError(key.0, key.1, key.2));
            }
            None if !r.optional => {
                out.counts.missing +=
                    usize::from(report_missing(tree, item, id, r, &name, None, config, out));
            }
            None => {}
        }
        let acc = seen.entry((r.kind, name)).or_insert(Acc {
            keys: Keys::Some(Vec::new()),
            present: source.is_some(),
        });
        acc.keys = union(&acc.keys, &keys);
    }
    if broken {
        out.counts.failed += 1;
        return;
    }

    let layout = with_seq_indent(tree, spec, Layout::for_item(tree, item));
    let mut ed = Editor::new(tree, layout);
    let env_applies = kind.env_allowed && config.writes_env();
    let result_about =
        |message: String| Note::Result(KrmResult::new(Severity::Info, message).about(tree, item));
    if !seen.is_empty() && !env_applies && !config.writes_annotation() {
        out.notes.push(result_about(format!(
            "{id}: a {}'s spec cannot change after creation, so env mode leaves it alone (use mode: annotation or both)",
            id.kind
        )));
        return;
    }
    let result = if seen.is_empty() {
        clear(&mut ed, template, spec, config, env_applies)
    } else {
        let seen_list: Vec<Seen<'_>> = seen
            .iter()
            .map(|((k, name), acc)| Seen {
                kind: *k,
                name,
                content: index
                    .get(&(*k, id.namespace.clone(), name.clone()))
                    .and_then(|s| s.content.as_ref().ok()),
                keys: &acc.keys,
            })
            .collect();
        let hash = hashing::pod_hash(&seen_list, config.hash_key.as_ref());
        if config.hash_key.is_none() {
            if let Some(place) = keyed_stamp(tree, template, spec, config) {
                out.counts.failed += 1;
                out.notes.push(Note::Result(
                        KrmResult::new(Severity::Error, format!(
                            "{id}: not stamped: {place} holds a keyed hash (hmac-sha256:...), and no key was given, so it can be neither checked nor reproduced (pass the same key with --key-file FILE, CONFIG_HASH_KEY_FILE or CONFIG_HASH_KEY; to return to unkeyed hashes, delete that value first)"
                        ))
                        .about(tree, item),
                    ));
                return;
            }
        }
        apply(&mut ed, template, spec, config, env_applies, &hash).map(|()| {
            out.counts.stamped += 1;
            let names: Vec<String> = seen
                .iter()
                .map(|((k, name), acc)| {
                    let absent = if acc.present { "" } else { " (absent)" };
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
            out.notes.push(result_about(format!(
                "{id}: {} from {}",
                what.join(" and "),
                names.join(", ")
            )));
            if config.writes_env() && !kind.env_allowed {
                out.notes.push(result_about(format!(
                    "{id}: a {}'s spec cannot change after creation, so env mode leaves it alone{}",
                    id.kind,
                    if config.writes_annotation() {
                        " (annotation only)"
                    } else {
                        ""
                    }
                )));
            }
        })
    };
    match result {
        Ok(()) => out.splices = std::mem::take(&mut ed.splices),
        Err(e) => {
            out.counts.failed += 1;
            out.notes.push(Note::Result(edit_error(tree, item, id, &e)));
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

/// Where a keyed hash is already stamped (the annotation or an env var), if anywhere.
fn keyed_stamp(tree: &Tree<'_>, template: NodeId, spec: NodeId, config: &Config) -> Option<String> {
    if config.writes_annotation() {
        let value = tree
            .get_path(template, &["metadata", "annotations"])
            .and_then(|a| tree.get(a, &config.annotation_key))
            .and_then(|v| tree.str(v));
        if value.is_some_and(hashing::is_keyed) {
            return Some(format!("annotation {}", config.annotation_key));
        }
    }
    if config.writes_env() {
        for list in &CONTAINER_LISTS[..2] {
            for &c in own(tree, spec, list).map_or(&[][..], |s| tree.items(s)) {
                let Some(env) = tree.get(c, "env") else {
                    continue;
                };
                for &var in tree.items(env) {
                    if tree.get(var, "name").and_then(|n| tree.str(n)) == Some(&config.env_name)
                        && tree
                            .get(var, "value")
                            .and_then(|v| tree.str(v))
                            .is_some_and(hashing::is_keyed)
                    {
                        return Some(format!("env {}", config.env_name));
                    }
                }
            }
        }
    }
    None
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
            for idx in env_indices(tree, seq, &config.env_name) {
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

/// The field paths (`...containers[0].env`) of env lists where env mode will add the
/// hash as the first entry, moving every existing entry down by one.
fn shifted_env_lists(
    tree: &Tree<'_>,
    spec: NodeId,
    spec_path: &str,
    env_applies: bool,
    config: &Config,
) -> Vec<String> {
    let mut out = Vec::new();
    if !env_applies {
        return out;
    }
    for list in &CONTAINER_LISTS[..2] {
        let Some(seq) = own(tree, spec, list) else {
            continue;
        };
        for (i, &c) in tree.items(seq).iter().enumerate() {
            let Some(env) = own(tree, c, "env") else {
                continue;
            };
            if tree.is_seq(env)
                && !tree.is_alias(env)
                && env_indices(tree, env, &config.env_name).is_empty()
            {
                out.push(format!("{spec_path}.{list}[{i}].env"));
            }
        }
    }
    out
}

/// For messages about any field of `item`: its path as it reads in the output, where
/// env mode will insert the hash ahead of it in a workload's env list (`None`: as in
/// the input). Results describe the output, so a second run must word them the same.
pub(crate) fn output_field_of(
    tree: &Tree<'_>,
    item: NodeId,
    config: &Config,
    field: &str,
) -> Option<String> {
    let id = ResourceId::of(tree, item);
    let kind = workloads::lookup(&id.api_version, &id.kind)?;
    if !(kind.env_allowed && config.writes_env()) || flag(tree, item, SKIP_ANNOTATION) {
        return None;
    }
    let spec = tree.get(tree.get_path(item, kind.template)?, "spec")?;
    let mut prefix: Vec<&str> = kind.template.to_vec();
    prefix.push("spec");
    let spec_path = prefix.join(".");
    // Only a workload that reads something gets the hash.
    if references::find(tree, spec, &spec_path).is_empty() {
        return None;
    }
    output_field(
        field,
        &shifted_env_lists(tree, spec, &spec_path, true, config),
    )
}

/// A reference's field path as it reads in the output, when the hash entry moves it:
/// results describe the output, so a second run must word them the same.
fn output_field(field: &str, shifted: &[String]) -> Option<String> {
    shifted.iter().find_map(|list| {
        let rest = field.strip_prefix(list.as_str())?.strip_prefix('[')?;
        let (idx, tail) = rest.split_once(']')?;
        let idx: usize = idx.parse().ok()?;
        Some(format!("{list}[{}]{tail}", idx + 1))
    })
}

/// Every entry of an env list with this name: Kubernetes uses the last, so all of them
/// are kept equal.
fn env_indices(tree: &Tree<'_>, seq: NodeId, name: &str) -> Vec<usize> {
    tree.items(seq)
        .iter()
        .enumerate()
        .filter(|&(_, &i)| tree.get(i, "name").and_then(|n| tree.str(n)) == Some(name))
        .map(|(idx, _)| idx)
        .collect()
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
        Some(v) if tree.is_null(v) => {
            ed.set_value(container, &["env"], NewValue::Seq(vec![entry()]))
        }
        Some(seq) if tree.is_seq(seq) && !tree.is_alias(seq) => {
            let found = env_indices(tree, seq, name);
            if found.is_empty() {
                return ed.insert_item(seq, &entry());
            }
            for idx in found {
                let var = tree.items(seq)[idx];
                if own(tree, var, "valueFrom").is_some() {
                    return Err(EditError::WrongType {
                        pos: tree.node(var).span.start,
                        field: format!("env {name}"),
                        expected: "a plain value, not valueFrom (rename envName or remove that variable)",
                    });
                }
                ed.set_string(var, &[], "value", hash)?;
            }
            Ok(())
        }
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

/// Reports a missing object or key under its final name (after any rename), so that a
/// second run on the output words it the same.
#[allow(clippy::too_many_arguments)]
fn report_missing(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    r: &Reference,
    name: &str,
    key: Option<&str>,
    config: &Config,
    out: &mut ItemOutcome,
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
        None => format!("{} {:?}, which is not in the input", r.kind.as_str(), name),
        Some(k) => format!(
            "key {k:?} of {} {:?}, which has no such key",
            r.kind.as_str(),
            name
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
    out.notes.push(Note::Result(
        KrmResult::new(severity, message)
            .about(tree, item)
            .at_field(r.field.clone()),
    ));
    true
}

fn edit_error(tree: &Tree<'_>, item: NodeId, id: &ResourceId, e: &EditError) -> KrmResult {
    let (pos, why) = (e.pos(), e.why());
    let (line, col) = tree.line_col(pos);
    KrmResult::new(
        Severity::Error,
        format!("{id}: not stamped: {why} (line {line} column {col})"),
    )
    .about(tree, item)
}
