//! The core pass: for each workload, resolve the ConfigMaps and Secrets its pod template
//! sees, hash exactly that, and stamp the template (annotation and/or env var).

use std::collections::{BTreeMap, HashMap};

use crate::model::catalog::CONTAINER_LISTS;
use crate::model::catalog::{Restart, WorkloadKind, annotations};
use crate::model::config::{Config, RuntimeReload};
use crate::model::findings::{Covered, Finding, MadeBy, SpecFixed, Written};
use crate::model::hash::{self, Seen};
use crate::model::reference::Keys;
use crate::model::reference::{SourceKey, SourceRef};
use crate::model::resource::{ResourceId, flag, is_local_config};
use crate::model::result::KrmResult;
use crate::read::data_refs::{DataRefs, DataStamp};
use crate::read::env_shift::{env_indices, own, user_positions};
use crate::read::references::{self};
use crate::resolve::resolution::{Note, Read, WorkloadResolution};
use crate::resolve::sources::SourceIndex;
use crate::resolve::workload::{self, Context, PodTemplate, reloader_keys_written};
use crate::yaml::{EditError, Editor, Layout, NewValue, NodeId, Splices, Tree};

/// Counts for the summary result. None for workloads that could not be stamped: each
/// gives an error result, and a run with errors writes no info results, the summary
/// among them.
#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    stamped: usize,
    skipped: usize,
    missing: usize,
}

impl Counts {
    fn add(&mut self, o: Counts) {
        self.stamped += o.stamped;
        self.skipped += o.skipped;
        self.missing += o.missing;
    }
}

/// What stamping one item produced.
#[derive(Debug, Default)]
pub struct ItemOutcome {
    pub splices: Splices,
    pub notes: Vec<Note>,
    pub counts: Counts,
    /// The workload's resolution, when views asked for it.
    pub resolution: Option<WorkloadResolution>,
    /// The workload's name in the output, when stamping gives it a hashed name (a Job).
    pub renamed: Option<ResourceId>,
}

/// Stamping's results, gathered item by item in input order, then the summary.
pub struct Finish {
    results: Vec<KrmResult>,
    counts: Counts,
    /// Sources whose content cannot be read, each reported once, at its first use.
    unreadable: HashMap<SourceKey, KrmResult>,
}

impl Finish {
    /// `early`: results that come before any item's (duplicate sources).
    pub fn new(early: Vec<KrmResult>, unreadable: HashMap<SourceKey, KrmResult>) -> Self {
        Finish {
            results: early,
            counts: Counts::default(),
            unreadable,
        }
    }

    /// Takes one item's outcome (its edits are taken already).
    pub fn add(&mut self, o: ItemOutcome) {
        debug_assert!(o.splices.is_empty(), "an outcome's edits are taken first");
        self.counts.add(o.counts);
        for note in o.notes {
            match note {
                Note::Result(r) => self.results.push(r),
                Note::SourceError(key) => {
                    self.results.extend(self.unreadable.remove(&key));
                }
            }
        }
    }

    /// The results, ending with the summary.
    pub fn results(mut self) -> Vec<KrmResult> {
        // Results describe the output, not the change, so that running the function on
        // its own output reproduces it byte for byte.
        let c = self.counts;
        self.results.push(KrmResult::new(Finding::Summary {
            stamped: c.stamped,
            skipped: c.skipped,
            missing: c.missing,
        }));
        self.results
    }
}

/// Stamps one workload (`None` when it is local-config): resolve what its pod template
/// reads, hash that, write the hash, write the runtime tools' annotations, and give a
/// Job that asks for one its hashed name.
pub fn stamp_item(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    ctx: &Context<'_>,
) -> Option<ItemOutcome> {
    if is_local_config(tree, item) {
        return None;
    }
    let mut out = ItemOutcome::default();
    if flag(tree, item, annotations::SKIP) {
        out.counts.skipped += 1;
        return Some(out);
    }
    let Some(pod) = PodTemplate::of(tree, item, kind) else {
        out.notes.extend(without_template(tree, item, kind));
        return Some(out);
    };
    let config = ctx.config;

    // Resolve.
    let spec_path = kind.spec_field();
    let positions = user_positions(tree, pod.spec, &spec_path, config);
    let mut data = DataRefs::find(tree, pod.spec, pod.template, &spec_path);
    let mut resolution =
        workload::resolve_workload(tree, item, id, kind, pod, ctx, &mut data, &|field| {
            positions.user_field(field)
        });
    out.counts.missing += resolution.missing;
    let reads = &resolution.reads;
    let stamp = Stamp::of(tree, item, kind, config);
    let mut ed = Editor::new(
        tree,
        with_seq_indent(tree, pod.spec, Layout::for_item(tree, item)),
    );
    let written = if resolution.failed {
        Err(None)
    } else if !reads.is_empty() && !stamp.writes_anything() {
        out.notes
            .push(stamp.about(Finding::SpecFixed(SpecFixed::NothingWritten)));
        // Left as it is, and counted so in the summary.
        out.counts.skipped += 1;
        Err(None)
    } else {
        hash_and_write(&mut ed, &stamp, id, pod, &mut data, reads, ctx, &mut out)
    };
    match written {
        Ok(stamped) => {
            out.splices = ed.into_splices();
            // Stamped: say when the workload's own spec keeps the stamp from rolling it.
            if !resolution.reads.is_empty() {
                if let Some(held) = crate::resolve::rollout::held(tree, item, stamp.kind) {
                    out.notes.push(stamp.about(Finding::Held(held)));
                }
            }
            if ctx.record {
                resolution.stamp = stamped;
            }
        }
        Err(None) => {}
        Err(Some(e)) => {
            out.notes.push(Note::Result(edit_error(tree, item, e)));
        }
    }
    // The resolution's findings come first, as they were found before anything was
    // written; a Job's new name applies to them too.
    let mut notes = std::mem::take(&mut resolution.notes);
    notes.append(&mut out.notes);
    out.notes = notes;
    if let Some(renamed) = &out.renamed {
        for note in &mut out.notes {
            if let Note::Result(r) = note {
                if r.resource.as_ref() == Some(id) {
                    r.resource = Some(renamed.clone());
                }
            }
        }
    }
    if ctx.record {
        out.resolution = Some(resolution);
    }
    Some(out)
}

/// Hashes what the pod template reads (and each `__data` object whole), writes the hash,
/// the runtime tools' annotations, and a Job's hashed name when it asks for one. `Ok`:
/// the hash stamped, for views (`None` when they did not ask, or nothing is read).
#[allow(clippy::too_many_arguments)]
fn hash_and_write(
    ed: &mut Editor<'_, '_>,
    stamp: &Stamp<'_, '_>,
    id: &ResourceId,
    pod: PodTemplate,
    data: &mut DataRefs,
    reads: &[Read],
    ctx: &Context<'_>,
    out: &mut ItemOutcome,
) -> Result<Option<String>, Option<EditError>> {
    let config = ctx.config;
    let hash = (!reads.is_empty()).then(|| {
        for d in &mut data.refs {
            if let Some((k, name)) = &d.resolved {
                let content = ctx.resolver.index.get(&SourceRef {
                    kind: *k,
                    namespace: id.namespace(),
                    name,
                });
                let one = [Seen {
                    kind: *k,
                    name,
                    content: content.and_then(|s| s.content.as_ref().ok()),
                    keys: &Keys::All,
                    skip: content.map_or(&[], |s| &s.ignored_keys),
                }];
                d.hash = Some(hash::pod_hash(&one, config.hash_key.as_ref()));
            }
        }
        pod_hash(reads, ctx.resolver.index, config)
    });
    write(ed, stamp, pod, data, hash.as_deref(), reads, ctx, out)?;
    runtime_annotations(ed, stamp, reads, ctx, out).map_err(Some)?;
    job_name(ed, stamp, id, pod, reads, hash.as_deref(), ctx, out)?;
    Ok(hash.filter(|_| ctx.record))
}

/// The findings about a workload whose pod template is not where its catalog row says:
/// one that delegates to another workload (an Argo Rollout's `workloadRef`), or one a
/// user declared.
fn without_template(tree: &Tree<'_>, item: NodeId, kind: &WorkloadKind) -> Vec<Note> {
    let delegate = kind.delegate.as_ref().and_then(|path| {
        let node = tree
            .get_path(item, &references::path_strs(path))
            .filter(|&n| tree.is_map(n))?;
        let field = |k: &str| tree.get(node, k).and_then(|n| tree.str(n)).unwrap_or("");
        Some((path.dotted(), field("kind"), field("name")))
    });
    if let Some((at, k, n)) = delegate {
        let k = if k.is_empty() { "Deployment" } else { k };
        return vec![Note::Result(
            KrmResult::new(Finding::Delegates {
                at: at.clone(),
                kind: k.to_string(),
                name: n.to_string(),
            })
            .about(tree, item)
            .at_field(at),
        )];
    }
    match &kind.declared_at {
        Some(at) => vec![Note::Result(
            KrmResult::new(Finding::NoTemplate {
                declared_at: at.to_string(),
                kind: kind.kind.to_string(),
                template: kind.template.to_string(),
            })
            .about(tree, item)
            .at_field(kind.template_field()),
        )],
        None => Vec::new(),
    }
}

/// Where and how one workload gets its hash.
struct Stamp<'t, 'a> {
    tree: &'t Tree<'a>,
    item: NodeId,
    kind: &'t WorkloadKind,
    /// OpenKruise: the annotation, and an env var reading it, whatever the mode.
    in_place: bool,
    env: bool,
    annotation: bool,
}

impl<'t, 'a> Stamp<'t, 'a> {
    fn of(tree: &'t Tree<'a>, item: NodeId, kind: &'t WorkloadKind, config: &Config) -> Self {
        let in_place = kind.restart == Restart::DownwardApi;
        Stamp {
            tree,
            item,
            kind,
            in_place,
            env: kind.env_allowed && (config.writes_env() || in_place),
            annotation: config.writes_annotation() || in_place,
        }
    }

    fn writes_anything(&self) -> bool {
        self.env || self.annotation
    }

    /// A result about the workload.
    fn about(&self, finding: Finding) -> Note {
        Note::Result(KrmResult::new(finding).about(self.tree, self.item))
    }
}

/// The hash of everything the pod template reads.
fn pod_hash(reads: &[Read], index: &SourceIndex, config: &Config) -> String {
    let seen: Vec<Seen<'_>> = reads
        .iter()
        .map(|r| Seen {
            kind: r.kind,
            name: &r.shown,
            content: index
                .get(&r.key_ref())
                .and_then(|s| s.content.as_ref().ok()),
            keys: &r.keys,
            skip: &r.unhashed,
        })
        .collect();
    hash::pod_hash(&seen, config.hash_key.as_ref())
}

/// Writes the hash (`None`: the template reads nothing, so a stale stamp goes), and
/// says what it wrote.
#[allow(clippy::too_many_arguments)]
fn write(
    ed: &mut Editor<'_, '_>,
    stamp: &Stamp<'_, '_>,
    pod: PodTemplate,
    data: &DataRefs,
    hash: Option<&str>,
    reads: &[Read],
    ctx: &Context<'_>,
    out: &mut ItemOutcome,
) -> Result<(), Option<EditError>> {
    let (tree, config, index) = (stamp.tree, ctx.config, ctx.resolver.index);
    let PodTemplate { template, spec } = pod;
    let Some(hash) = hash else {
        clear(ed, template, spec, config, stamp.kind.env_allowed)?;
        if data.had_record {
            remove_annotation(ed, template, annotations::DATA_REFS)?;
        }
        return Ok(());
    };
    if config.hash_key.is_none() {
        if let Some(place) = keyed_stamp(tree, template, spec, config) {
            out.notes
                .push(stamp.about(Finding::KeyedWithoutKey { place }));
            return Err(None);
        }
    }
    let record = data.record();
    data.rewrite(ed)?;
    // Removing the record's entry while inserting the hash annotation after it would be
    // two edits at one place: where the hash annotation is not there yet, the record's
    // entry becomes it instead.
    let annotations_node = tree.get_path(template, &["metadata", "annotations"]);
    let hash_there = annotations_node
        .and_then(|a| tree.get(a, &config.annotation_key))
        .is_some();
    let mut hash_written = false;
    if record.is_empty() && data.had_record {
        let entry = annotations_node.and_then(|a| {
            tree.own_entries(a).find(|&(k, v)| {
                tree.str(k) == Some(annotations::DATA_REFS) && tree.str(v).is_some()
            })
        });
        match entry {
            Some((k, v)) if stamp.annotation && !hash_there && !tree.is_alias(v) => {
                ed.rewrite_entry(k, v, &config.annotation_key, hash);
                hash_written = true;
            }
            _ => remove_annotation(ed, template, annotations::DATA_REFS)?,
        }
    }
    let data = DataStamp {
        record: &record,
        hash_written,
    };
    apply(ed, template, spec, config, stamp.kind, hash, &data)?;
    out.counts.stamped += 1;
    // A view reads the resolution, not what stamping says per workload: a large input's
    // one info result per workload is not held for it.
    if !ctx.record {
        let covered = reads
            .iter()
            .map(|r| Covered {
                kind: r.kind,
                name: r.shown.clone(),
                absent: !r.present,
                made_by: index
                    .get(&r.key_ref())
                    .and_then(|s| s.producer.as_ref())
                    .filter(|p| p.id.kind() != r.kind.as_str())
                    .map(|p| MadeBy {
                        kind: p.id.kind().to_string(),
                        name: p.id.name().to_string(),
                    }),
            })
            .collect();
        let written = Written {
            annotation: stamp.annotation.then(|| config.annotation_key.clone()),
            env: stamp.env.then(|| config.env_name.clone()),
            downward: stamp.in_place,
        };
        out.notes
            .push(stamp.about(Finding::Stamped { written, covered }));
    }
    if stamp.in_place {
        out.notes.push(stamp.about(Finding::InPlace {
            annotation: config.annotation_key.clone(),
            env: config.env_name.clone(),
        }));
    }
    for r in reads {
        let Some(p) = index
            .get(&r.key_ref())
            .and_then(|s| s.producer.as_ref())
            .filter(|p| p.runtime)
        else {
            continue;
        };
        out.notes.push(stamp.about(Finding::Runtime {
            kind: r.kind,
            name: r.shown.clone(),
            producer: p.id.clone(),
            hint: config.runtime_reload == RuntimeReload::None,
        }));
    }
    if config.writes_env() && !stamp.kind.env_allowed {
        out.notes.push(
            stamp.about(Finding::SpecFixed(if config.writes_annotation() {
                SpecFixed::AnnotationOnly
            } else {
                SpecFixed::Plain
            })),
        );
    }
    Ok(())
}

/// `runtimeReload: reloader`: Reloader's explicit annotations on the workload, listing
/// exactly the sources that change outside git; those written earlier and no longer
/// needed go.
fn runtime_annotations(
    ed: &mut Editor<'_, '_>,
    stamp: &Stamp<'_, '_>,
    reads: &[Read],
    ctx: &Context<'_>,
    out: &mut ItemOutcome,
) -> Result<(), EditError> {
    let (tree, item, config) = (stamp.tree, stamp.item, ctx.config);
    let mut wanted: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    if config.runtime_reload == RuntimeReload::Reloader {
        for r in reads {
            let runtime = ctx
                .resolver
                .index
                .get(&r.key_ref())
                .and_then(|s| s.producer.as_ref())
                .is_some_and(|p| p.runtime);
            let key = annotations::RELOADER_KEYS
                .iter()
                .find(|(kind, _)| *kind == r.kind);
            if let (true, Some((_, key))) = (runtime, key) {
                wanted.entry(key).or_default().push(&r.shown);
            }
        }
    }
    let before = reloader_keys_written(tree, item);
    // A list the user wrote (not marked as ours) is theirs: read as extra dependencies,
    // never rewritten.
    wanted.retain(|key, names| {
        let theirs =
            crate::model::resource::annotation(tree, item, key).filter(|_| !before.contains(key));
        if let Some(value) = theirs {
            let listed: Vec<&str> = value.split(',').map(str::trim).collect();
            let missing: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| !listed.contains(n))
                .collect();
            if !missing.is_empty() {
                out.notes.push(stamp.about(Finding::ReloaderByHand {
                    key: key.to_string(),
                    missing: missing.iter().map(|n| n.to_string()).collect(),
                }));
            }
        }
        theirs.is_none()
    });
    let stale: Vec<&str> = before
        .iter()
        .copied()
        .filter(|k| !wanted.contains_key(k))
        .collect();
    if wanted.is_empty() {
        if flag_present(tree, item, annotations::RELOADER_WRITTEN) {
            let mut gone = stale;
            gone.push(annotations::RELOADER_WRITTEN);
            remove_annotations(ed, item, &gone)?;
        }
        return Ok(());
    }
    let values: Vec<(String, String)> = wanted
        .iter()
        .map(|(k, names)| (k.to_string(), names.join(",")))
        .collect();
    let keys: Vec<&str> = wanted.keys().copied().collect();
    let mark = keys.join(",");
    let mut pairs: Vec<(&str, &str)> = values
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    pairs.push((annotations::RELOADER_WRITTEN, &mark));
    if !stale.is_empty() {
        remove_annotations(ed, item, &stale)?;
    }
    set_annotations(ed, item, &pairs)?;
    for (k, v) in &values {
        out.notes.push(stamp.about(Finding::ReloaderListed {
            key: k.clone(),
            names: v.clone(),
        }));
    }
    Ok(())
}

/// A kind whose pod template cannot change once the object exists (a Job): with
/// `config-hash.dev/name-suffix: "true"` it gets a hashed name (see
/// [`crate::edit::rename::rename_job`]); without, an info result names the trade-off.
#[allow(clippy::too_many_arguments)]
fn job_name(
    ed: &mut Editor<'_, '_>,
    stamp: &Stamp<'_, '_>,
    id: &ResourceId,
    pod: PodTemplate,
    reads: &[Read],
    hash: Option<&str>,
    ctx: &Context<'_>,
    out: &mut ItemOutcome,
) -> Result<(), Option<EditError>> {
    let (tree, item, config) = (stamp.tree, stamp.item, ctx.config);
    if stamp.kind.restart != Restart::NewObject {
        return Ok(());
    }
    let opted_in =
        crate::model::resource::annotation(tree, item, annotations::NAME_SUFFIX) == Some("true");
    if !opted_in {
        if !reads.is_empty() {
            out.notes.push(stamp.about(Finding::ImmutableTemplate));
        }
        return Ok(());
    }
    // The stamp itself does not feed the name: the same name on the function's output.
    let mut stamped_nodes = Vec::new();
    if let Some(v) = tree
        .get_path(pod.template, &["metadata", "annotations"])
        .and_then(|a| tree.get(a, &config.annotation_key))
    {
        stamped_nodes.push(v);
    }
    for list in &CONTAINER_LISTS[..2] {
        for c in tree
            .get(pod.spec, list)
            .into_iter()
            .flat_map(|s| tree.items(s))
        {
            if let Some(env) = tree.get(c, "env") {
                let items: Vec<NodeId> = tree.items(env).collect();
                stamped_nodes.extend(
                    env_indices(tree, env, &config.env_name)
                        .iter()
                        .map(|&i| items[i]),
                );
            }
        }
    }
    let spec_path = stamp.kind.spec_field();
    let job = crate::edit::rename::JobToRename {
        id,
        template: pod.template,
        spec: pod.spec,
        spec_path: &spec_path,
        stamped_nodes: &stamped_nodes,
        hash: hash.unwrap_or(""),
    };
    match crate::edit::rename::rename_job(
        tree,
        item,
        &job,
        &ctx.catalog.pod_sites,
        ctx.resolver.renames,
        ed,
    ) {
        Ok((base, renamed)) => {
            // Results describe the output: the Job under its new name.
            out.notes.push(Note::Result(
                KrmResult::new(Finding::JobRenamed { base }).about(tree, item),
            ));
            out.renamed = Some(renamed);
            Ok(())
        }
        Err(crate::edit::rename::JobRenameError::TooLong(new_name)) => {
            out.notes.push(Note::Result(
                KrmResult::new(Finding::JobNameTooLong { new_name })
                    .about(tree, item)
                    .at_field("metadata.name"),
            ));
            Err(None)
        }
        Err(crate::edit::rename::JobRenameError::Edit(e)) => Err(Some(e)),
    }
}

/// Matches new block sequences to the indentation of the pod's `containers` list.
fn with_seq_indent(tree: &Tree<'_>, spec: NodeId, layout: Layout) -> Layout {
    let found = tree.own_entries(spec).find(|&(k, v)| {
        tree.str(k) == Some("containers") && !tree.is_flow(v) && tree.items(v).next().is_some()
    });
    match found {
        Some((k, seq)) => layout.following_sequence(tree, k, seq),
        None => layout,
    }
}

/// Writes the hash (an equal value already there is left as written).
fn apply(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    spec: NodeId,
    config: &Config,
    kind: &WorkloadKind,
    hash: &str,
    data: &DataStamp<'_>,
) -> Result<(), EditError> {
    let (record, hash_written) = (data.record, data.hash_written);
    let env_allowed = kind.env_allowed;
    let mut pairs = vec![(config.annotation_key.as_str(), hash)];
    if hash_written {
        pairs.clear();
    }
    if !record.is_empty() {
        pairs.push((annotations::DATA_REFS, record));
    }
    if kind.restart == Restart::DownwardApi {
        set_annotations(ed, template, &pairs)?;
        // Init containers have run by the time an in-place update comes.
        for c in containers(ed.tree(), spec)? {
            if own(ed.tree(), spec, "containers")
                .is_some_and(|seq| ed.tree().items(seq).any(|i| i == c))
            {
                set_env_from_annotation(ed, c, &config.env_name, &config.annotation_key)?;
            }
        }
        return Ok(());
    }
    if config.writes_annotation() {
        set_annotations(ed, template, &pairs)?;
    } else {
        // The mode left the annotation out: one an earlier run wrote is stale now.
        remove_annotation(ed, template, &config.annotation_key)?;
        let others: Vec<(&str, &str)> = pairs
            .iter()
            .copied()
            .filter(|(k, _)| *k != config.annotation_key)
            .collect();
        set_annotations(ed, template, &others)?;
    }
    if env_allowed && config.writes_env() {
        for c in containers(ed.tree(), spec)? {
            set_env(ed, c, &config.env_name, hash)?;
        }
    } else if env_allowed {
        remove_env(ed, spec, &config.env_name)?;
    }
    Ok(())
}

/// Whether an annotation is there at all (whatever its value).
fn flag_present(tree: &Tree<'_>, item: NodeId, key: &str) -> bool {
    crate::model::resource::annotation(tree, item, key).is_some()
}

/// Removes several annotations of `owner` (an object or a pod template); when they are
/// all it has, the `annotations:` block goes, as [`remove_annotation`] does for one.
fn remove_annotations(
    ed: &mut Editor<'_, '_>,
    owner: NodeId,
    keys: &[&str],
) -> Result<(), EditError> {
    let tree = ed.tree();
    let Some(ann) = tree.get_path(owner, &["metadata", "annotations"]) else {
        return Ok(());
    };
    let present: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| tree.get(ann, k).is_some())
        .collect();
    if present.len() == 1 {
        return remove_annotation(ed, owner, present[0]);
    }
    if present.len() > 1 && present.len() == tree.own_entries(ann).count() {
        let block = |m: NodeId| tree.is_map(m) && !tree.is_flow(m) && !tree.is_alias(m);
        let key_of = |map: NodeId, name: &str| {
            tree.own_entries(map)
                .find(|&(k, _)| tree.str(k) == Some(name))
                .map(|(k, _)| k)
        };
        if let Some(meta) = tree
            .get(owner, "metadata")
            .filter(|&m| block(m) && block(ann))
        {
            let from = if tree.own_entries(meta).count() == 1 {
                key_of(owner, "metadata")
            } else {
                key_of(meta, "annotations")
            };
            if from.is_some_and(|from| ed.delete_lines(from, ann)) {
                return Ok(());
            }
        }
    }
    ed.remove_keys(owner, &["metadata", "annotations"], &present)
}

/// Sets several pod-template annotations, creating the `annotations:` mapping once
/// when it is not there.
fn set_annotations(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    pairs: &[(&str, &str)],
) -> Result<(), EditError> {
    let tree = ed.tree();
    let exists = tree
        .get_path(template, &["metadata", "annotations"])
        .is_some_and(|a| tree.is_map(a));
    if exists || pairs.len() < 2 {
        for (k, v) in pairs {
            ed.set_string(template, &["metadata", "annotations"], k, v)?;
        }
        return Ok(());
    }
    let map = pairs
        .iter()
        .map(|(k, v)| ((*k).to_string(), NewValue::Str((*v).to_string())))
        .collect();
    ed.set_value(template, &["metadata", "annotations"], NewValue::Map(map))
}

/// Where a keyed hash is already stamped (the annotation or an env var), if anywhere.
fn keyed_stamp(tree: &Tree<'_>, template: NodeId, spec: NodeId, config: &Config) -> Option<String> {
    if config.writes_annotation() {
        let value = tree
            .get_path(template, &["metadata", "annotations"])
            .and_then(|a| tree.get(a, &config.annotation_key))
            .and_then(|v| tree.str(v));
        if value.is_some_and(hash::is_keyed) {
            return Some(format!("annotation {}", config.annotation_key));
        }
    }
    if config.writes_env() {
        for list in &CONTAINER_LISTS[..2] {
            for c in own(tree, spec, list)
                .into_iter()
                .flat_map(|s| tree.items(s))
            {
                let Some(env) = tree.get(c, "env") else {
                    continue;
                };
                for var in tree.items(env) {
                    if tree.get(var, "name").and_then(|n| tree.str(n)) == Some(&config.env_name)
                        && tree
                            .get(var, "value")
                            .and_then(|v| tree.str(v))
                            .is_some_and(hash::is_keyed)
                    {
                        return Some(format!("env {}", config.env_name));
                    }
                }
            }
        }
    }
    None
}

/// Removes a hash an earlier run left, under the configured annotation key and env name
/// whatever the mode (the mode may have changed since).
fn clear(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    spec: NodeId,
    config: &Config,
    env_allowed: bool,
) -> Result<(), EditError> {
    remove_annotation(ed, template, &config.annotation_key)?;
    if env_allowed {
        remove_env(ed, spec, &config.env_name)?;
    }
    Ok(())
}

/// Removes annotation `key` from the pod template. When it is the only annotation, the
/// `annotations:` block goes too (and `metadata:` when that was all it held), as it was
/// before the function inserted them, rather than leaving `annotations:` empty (null).
/// Block style without comments only; anything else keeps the empty map.
fn remove_annotation(
    ed: &mut Editor<'_, '_>,
    template: NodeId,
    key: &str,
) -> Result<(), EditError> {
    let tree = ed.tree();
    let entry = |map: NodeId, name: &str| {
        tree.own_entries(map)
            .find(|&(k, _)| tree.str(k) == Some(name))
    };
    let block = |map: NodeId| tree.is_map(map) && !tree.is_flow(map) && !tree.is_alias(map);
    let whole = entry(template, "metadata").and_then(|(meta_key, meta)| {
        let (ann_key, ann) = entry(meta, "annotations")?;
        let [(k, v)] = tree.own_entries(ann).collect::<Vec<_>>()[..] else {
            return None;
        };
        if !(block(meta) && block(ann)) || tree.str(k) != Some(key) {
            return None;
        }
        let (from, region) = if tree.own_entries(meta).count() == 1 {
            (meta_key, meta)
        } else {
            (ann_key, ann)
        };
        // Text that defines an anchor stays: the editor refuses it with a reason.
        if tree.subtree_has_anchor(from) || tree.subtree_has_anchor(region) {
            return None;
        }
        Some((from, v))
    });
    match whole {
        Some((from, to)) if ed.delete_lines(from, to) => Ok(()),
        _ => ed.remove(template, &["metadata", "annotations"], key),
    }
}

/// Removes env var `name` from every container. When it is a container's only env
/// var, the `env:` entry goes too (block style without comments), as it was before the
/// function inserted it, rather than leaving `env:` empty (null).
fn remove_env(ed: &mut Editor<'_, '_>, spec: NodeId, name: &str) -> Result<(), EditError> {
    for c in containers(ed.tree(), spec)? {
        let tree = ed.tree();
        let Some((key, seq)) = tree
            .own_entries(c)
            .find(|&(k, v)| tree.str(k) == Some("env") && tree.is_seq(v))
        else {
            continue;
        };
        // Kubernetes uses the last of several entries with one name: all of them go.
        // Only the form an env-mode run writes (a plain `value`) is the function's own:
        // a variable of that name read through `valueFrom` is the user's, and removing
        // it would change what the pod sees (and drop the reference it holds).
        let found: Vec<usize> = env_indices(tree, seq, name)
            .into_iter()
            .filter(|&i| {
                tree.get(tree.items(seq).nth(i).expect("in range"), "valueFrom")
                    .is_none()
            })
            .collect();
        if found.is_empty() {
            continue;
        }
        let only = tree.items(seq).count() == 1
            && !tree.is_flow(seq)
            && !tree.is_alias(seq)
            && !tree.subtree_has_anchor(key)
            && !tree.subtree_has_anchor(seq);
        match tree.items(seq).next() {
            Some(last) if only && ed.delete_lines(key, last) => {}
            _ => ed.remove_items(seq, &found)?,
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
        for c in tree.items(seq) {
            if tree.is_alias(seq) || tree.is_alias(c) {
                return Err(EditError::ThroughAlias {
                    pos: tree.span(c).start(),
                });
            }
            if tree.is_map(c) {
                out.push(c);
            }
        }
    }
    Ok(out)
}

fn set_env(
    ed: &mut Editor<'_, '_>,
    container: NodeId,
    name: &str,
    hash: &str,
) -> Result<(), EditError> {
    let entry = NewValue::Map(vec![
        ("name".into(), NewValue::Plain(name.into())),
        ("value".into(), NewValue::Str(hash.into())),
    ]);
    upsert_env(ed, container, name, &entry, |ed, var| {
        let tree = ed.tree();
        // Read as the API server reads it, through merge keys: a `valueFrom` merged in
        // is one the pod has, and a `value` beside it is refused.
        if tree.get(var, "valueFrom").is_some() {
            return Err(EditError::WrongType {
                pos: tree.span(var).start(),
                field: format!("env {name}"),
                expected: "a plain value, not valueFrom (rename envName or remove that variable)",
            });
        }
        ed.set_string(var, &[], "value", hash)
    })
}

/// Gives a container env var `name` reading pod annotation `key` through the downward
/// API; one already doing exactly that is left as written.
fn set_env_from_annotation(
    ed: &mut Editor<'_, '_>,
    container: NodeId,
    name: &str,
    key: &str,
) -> Result<(), EditError> {
    let path = format!("metadata.annotations['{key}']");
    let entry = NewValue::Map(vec![
        ("name".into(), NewValue::Plain(name.into())),
        (
            "valueFrom".into(),
            NewValue::nested(&["fieldRef", "fieldPath"], NewValue::Str(path.clone())),
        ),
    ]);
    upsert_env(ed, container, name, &entry, |ed, var| {
        let tree = ed.tree();
        let reads = tree
            .get_path(var, &["valueFrom", "fieldRef", "fieldPath"])
            .and_then(|p| tree.str(p));
        if reads != Some(path.as_str()) {
            return Err(EditError::WrongType {
                pos: tree.span(var).start(),
                field: format!("env {name}"),
                expected: "valueFrom.fieldRef reading the hash annotation (remove that variable, or rename envName)",
            });
        }
        Ok(())
    })
}

/// Adds `entry` as env var `name` of a container, creating the list if needed, or
/// hands every existing entry of that name to `existing` (Kubernetes uses the last of
/// several, so all are kept in step).
fn upsert_env(
    ed: &mut Editor<'_, '_>,
    container: NodeId,
    name: &str,
    entry: &NewValue,
    mut existing: impl FnMut(&mut Editor<'_, '_>, NodeId) -> Result<(), EditError>,
) -> Result<(), EditError> {
    let tree = ed.tree();
    match own(tree, container, "env") {
        None => ed.insert_entry(container, "env", &NewValue::Seq(vec![entry.clone()])),
        Some(v) if tree.is_null(v) => {
            ed.set_value(container, &["env"], NewValue::Seq(vec![entry.clone()]))
        }
        Some(seq) if tree.is_seq(seq) && !tree.is_alias(seq) => {
            let found = env_indices(tree, seq, name);
            if found.is_empty() {
                return ed.insert_item(seq, entry);
            }
            for idx in found {
                existing(ed, tree.items(seq).nth(idx).expect("in range"))?;
            }
            Ok(())
        }
        Some(seq) if tree.is_alias(seq) => Err(EditError::ThroughAlias {
            pos: tree.span(seq).start(),
        }),
        Some(v) => Err(EditError::WrongType {
            pos: tree.span(v).start(),
            field: "env".into(),
            expected: "a list",
        }),
    }
}

fn edit_error(tree: &Tree<'_>, item: NodeId, e: EditError) -> KrmResult {
    let (line, column) = tree.line_col(e.pos());
    KrmResult::new(Finding::NotStamped {
        error: e.into(),
        line,
        column,
    })
    .about(tree, item)
}

#[cfg(test)]
mod tests {
    use crate::{Invocation, run};

    fn list(extra_items: &str, env: &str) -> String {
        format!(
            "kind: ResourceList
items:
- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: cm}}, data: {{a: '1', b: '2'}}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata: {{name: web}}
  spec:
    template:
      spec:
        containers:
        - name: app
          env: {env}
{extra_items}"
        )
    }

    fn hash(output: &str) -> &str {
        let at = output.find("config-hash.dev/hash: \"").expect("stamped") + 23;
        &output[at..at + 64]
    }

    fn stamp(text: &str) -> String {
        let out = run(text, &Invocation::default()).unwrap();
        assert_eq!(out.exit_code, 0, "{:?}", out.results);
        out.output
    }

    #[test]
    fn only_the_keys_a_pod_reads_are_hashed_and_a_union_is_order_free() {
        let a = "[{name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}]";
        let ab = "[{name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}, {name: B, valueFrom: {configMapKeyRef: {name: cm, key: b}}}]";
        let ba = "[{name: B, valueFrom: {configMapKeyRef: {name: cm, key: b}}}, {name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}]";
        let reads_a = stamp(&list("", a));
        // A change to a key the pod does not read changes nothing.
        assert_eq!(
            hash(&reads_a),
            hash(&stamp(&list("", a).replace("b: '2'", "b: '3'")))
        );
        assert_ne!(
            hash(&reads_a),
            hash(&stamp(&list("", a).replace("a: '1'", "a: '9'")))
        );
        assert_ne!(hash(&reads_a), hash(&stamp(&list("", ab))));
        assert_eq!(hash(&stamp(&list("", ab))), hash(&stamp(&list("", ba))));
        // granularity: object hashes every key, so b matters.
        let object = |t: String| {
            t.replace("kind: ResourceList\n", "kind: ResourceList\nfunctionConfig: {apiVersion: v1, kind: ConfigMap, data: {granularity: object}}\n")
        };
        assert_ne!(
            hash(&stamp(&object(list("", a)))),
            hash(&stamp(&object(list("", a).replace("b: '2'", "b: '3'"))))
        );
    }

    #[test]
    fn an_annotation_naming_the_workloads_own_namespace_hashes_as_the_bare_name() {
        let text = |reload: &str, cm_ns: &str| {
            format!(
                "kind: ResourceList
items:
- {{apiVersion: v1, kind: ConfigMap, metadata: {{name: cm, namespace: {cm_ns}}}, data: {{a: '1'}}}}
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    namespace: shop
    annotations: {{configmap.reloader.stakater.com/reload: '{reload}'}}
  spec:
    template:
      spec:
        containers:
        - name: app
"
            )
        };
        let bare = hash(&stamp(&text("cm", "shop"))).to_string();
        assert_eq!(bare, hash(&stamp(&text("shop/cm", "shop"))));
        // Another namespace's object of the same content is another object.
        assert_ne!(bare, hash(&stamp(&text("other/cm", "other"))));
    }

    #[test]
    fn ignored_sources_skipped_workloads_and_local_config_are_left_out() {
        let env = "[{name: A, valueFrom: {configMapKeyRef: {name: cm, key: a}}}]";
        let ignored = list("", env).replace(
            "metadata: {name: cm}",
            "metadata: {name: cm, annotations: {config-hash.dev/ignore: 'true'}}",
        );
        let out = run(&ignored, &Invocation::default()).unwrap();
        // Ignoring the only source leaves nothing to hash: no stamp, no finding.
        assert!(
            !out.output.contains("config-hash.dev/hash"),
            "{}",
            out.output
        );
        assert!(
            out.results
                .iter()
                .all(|r| !r.message().contains("refers to"))
        );
        let skipped = list("", env).replace(
            "metadata: {name: web}",
            "metadata: {name: web, annotations: {config-hash.dev/skip: 'true'}}",
        );
        let out = run(&skipped, &Invocation::default()).unwrap();
        assert_eq!(out.output, skipped.clone() + &out.output[skipped.len()..]);
        assert!(out.results.last().unwrap().message().contains("1 skipped"));
        // A reference to a local-config object counts as missing.
        let local = list("", env).replace(
            "metadata: {name: cm}",
            "metadata: {name: cm, annotations: {config.kubernetes.io/local-config: 'true'}}",
        );
        let out = run(&local, &Invocation::default()).unwrap();
        assert!(
            out.results.iter().any(|r| r
                .message()
                .contains("ConfigMap \"cm\", which is not in the input")),
            "{:?}",
            out.results
        );
    }
}
