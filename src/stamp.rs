//! The core pass: for each workload, resolve the ConfigMaps and Secrets its pod template
//! sees, hash exactly that, and stamp the template (annotation and/or env var).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::catalog::{Catalog, Restart, WorkloadKind, annotations};
use crate::config::RuntimeReload;
use crate::config::{Config, Granularity, OnMissing};
use crate::findings::{Covered, Finding, MadeBy, Missing, SpecFixed, Written};
use crate::hashing::{self, Seen};
use crate::krm::{KrmResult, ResourceId, Severity, flag, is_local_config};
use crate::references::{self, CONTAINER_LISTS, Keys, Reference, SourceKind};
use crate::resolution::{SourceIndex, SourceKey, Status};
use crate::suffix::Renames;
use crate::yaml::edit::{column, dash_before};
use crate::yaml::scalar::double_quoted;
use crate::yaml::{EditError, Editor, Layout, NewValue, NodeId, Splices, Tree};

/// The key that asks for the hash of the whole object instead of one key.
pub const WHOLE_OBJECT_KEY: &str = "__data";

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
    /// Every reference of the pod spec as resolved (when asked for).
    pub resolutions: Vec<Resolution>,
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
                Note::SourceError(kind, ns, name) => {
                    self.results
                        .extend(self.unreadable.remove(&(kind, ns, name)));
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
            failed: c.failed,
        }));
        self.results
    }
}

/// What stamping needs besides the item itself.
pub struct Context<'c> {
    pub config: &'c Config,
    pub catalog: &'c Catalog,
    pub renames: &'c Renames,
    pub index: &'c SourceIndex,
    /// Record every resolution (for `graph`).
    pub resolutions: bool,
}

/// Stamps one workload (`None` when it is local-config).
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
    stamp_workload(tree, item, id, kind, ctx, &mut out);
    Some(out)
}

/// What one pod template sees of one source.
struct Acc {
    /// `None`: every key.
    keys: Option<BTreeSet<String>>,
    present: bool,
    /// Where it is looked up: its namespace and (final) name.
    namespace: Option<String>,
    name: String,
}

/// How one reference in a pod spec resolved: what `graph` shows and stamping hashes.
#[derive(Debug, Clone)]
pub struct Resolution {
    pub kind: SourceKind,
    /// The name after renaming.
    pub name: String,
    pub field: String,
    pub keys: Keys,
    pub optional: bool,
    pub status: Status,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: Vec<String>,
    /// The namespace it is looked up in.
    pub namespace: Option<String>,
    /// Named by a workload annotation, not the pod spec.
    pub extra: bool,
    /// Who makes the object, when not itself (see [`SourceEntry::made_by`]).
    pub producer: Option<ResourceId>,
    pub runtime: bool,
}

fn stamp_workload(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    ctx: &Context<'_>,
    out: &mut ItemOutcome,
) {
    let (config, renames, index) = (ctx.config, ctx.renames, ctx.index);
    let template_path: Vec<&str> = kind.template.iter().map(String::as_str).collect();
    let Some((template, spec)) = tree
        .get_path(item, &template_path)
        .and_then(|t| Some((t, tree.get(t, "spec")?)))
        .filter(|&(t, s)| tree.is_map(t) && tree.is_map(s))
    else {
        let delegate = kind.delegate.and_then(|path| {
            let node = tree.get_path(item, path).filter(|&n| tree.is_map(n))?;
            let field = |k: &str| tree.get(node, k).and_then(|n| tree.str(n)).unwrap_or("");
            Some((path.join("."), field("kind"), field("name")))
        });
        if let Some((at, k, n)) = delegate {
            let k = if k.is_empty() { "Deployment" } else { k };
            out.notes.push(Note::Result(
                KrmResult::new(Finding::Delegates {
                    at: at.clone(),
                    kind: k.to_string(),
                    name: n.to_string(),
                })
                .about(tree, item)
                .at_field(at),
            ));
            return;
        }
        if let Some(at) = &kind.declared_at {
            out.notes.push(Note::Result(
                KrmResult::new(Finding::NoTemplate {
                    declared_at: at.to_string(),
                    kind: kind.kind.to_string(),
                    template: kind.template.join("/"),
                })
                .about(tree, item)
                .at_field(kind.template_field()),
            ));
        }
        return;
    };
    let spec_path = kind.spec_field();
    let mut refs = references::find(tree, spec, &spec_path, &ctx.catalog.pod_sites);
    // Reloader annotations config-hash wrote itself are its output, not dependencies.
    let written = flag_present(tree, item, annotations::RELOADER_WRITTEN);
    let ours = reloader_keys_written(tree, item);
    let sites: Vec<_> = ctx
        .catalog
        .annotation_sites
        .iter()
        .filter(|s| !ours.contains(&s.key))
        .copied()
        .collect();
    let (extra, regexes) = references::find_annotations(tree, item, &sites);
    refs.extend(extra);
    for r in regexes {
        out.notes.push(Note::Result(
            KrmResult::new(Finding::RegexEntry {
                field: r.field.clone(),
                entry: r.entry.to_string(),
                tool: r.site.tool,
                kind: r.site.kind,
            })
            .about(tree, item)
            .at_field(r.field),
        ));
    }
    let shifted = shifted_env_lists(tree, spec, &spec_path, env_lists(kind, config), config);
    let unreadable =
        references::unreadable_names(tree, spec, &kind.spec_field(), &ctx.catalog.pod_sites);
    if !unreadable.is_empty() {
        out.counts.failed += 1;
        for field in unreadable {
            out.notes.push(Note::Result(
                KrmResult::new(Finding::NameNotString {
                    field: field.clone(),
                })
                .about(tree, item)
                .at_field(field),
            ));
        }
        return;
    }

    // The `__data` convention: env vars that receive the hash of a whole object.
    let mut data = DataRefs::find(tree, spec, template, &kind.spec_field());
    for d in &mut data.refs {
        let ns = id.namespace.clone();
        let name = renames
            .final_name(d.named, &ns, &d.name)
            .unwrap_or(&d.name)
            .to_string();
        let other = match d.named {
            SourceKind::ConfigMap => SourceKind::Secret,
            _ => SourceKind::ConfigMap,
        };
        let Some((kind, content)) = [d.named, other].into_iter().find_map(|k| {
            let s = index.get(&(k, ns.clone(), name.clone()))?;
            Some((k, s.content.as_ref().ok()))
        }) else {
            if d.value_from.is_none() {
                out.notes.push(Note::Result(
                    KrmResult::new(Finding::WholeObjectGone {
                        var: d.var.clone(),
                        container: d.container.clone(),
                        kind: d.named,
                        name,
                    })
                    .about(tree, item)
                    .at_field(d.container_field.clone()),
                ));
            }
            continue;
        };
        let one = [Seen {
            kind,
            name: &name,
            content,
            keys: &Keys::All,
        }];
        let hash = hashing::pod_hash(&one, config.hash_key.as_ref());
        d.resolved = Some((kind, name, hash));
    }
    let handled: Vec<NodeId> = data
        .refs
        .iter()
        .filter(|d| d.resolved.is_some())
        .filter_map(|d| d.name_node)
        .collect();
    refs.retain(|r| !handled.contains(&r.name_node));

    let mut seen: BTreeMap<(SourceKind, String), Acc> = BTreeMap::new();
    for d in &data.refs {
        let Some((kind, name, _)) = &d.resolved else {
            continue;
        };
        seen.insert(
            (*kind, name.clone()),
            Acc {
                keys: None,
                present: true,
                namespace: id.namespace.clone(),
                name: name.clone(),
            },
        );
        let (producer, runtime) = index
            .get(&(*kind, id.namespace.clone(), name.clone()))
            .map_or((None, false), |s| s.made_by(*kind));
        if ctx.resolutions {
            out.resolutions.push(Resolution {
                kind: *kind,
                name: name.clone(),
                field: d.field.clone(),
                keys: Keys::All,
                optional: false,
                status: Status::Found,
                missing_keys: Vec::new(),
                namespace: id.namespace.clone(),
                extra: false,
                producer,
                runtime,
            });
        }
        out.notes.push(Note::Result(
            KrmResult::new(Finding::WholeObject {
                var: d.var.clone(),
                container: d.container.clone(),
                kind: *kind,
                name: name.clone(),
            })
            .about(tree, item)
            .at_field(d.container_field.clone()),
        ));
    }
    let mut broken = false;
    for r in &refs {
        // Results describe the output: a reference after an inserted env hash moved down.
        let r_out;
        let r = match shifted.output_field(&r.field) {
            Some(field) => {
                r_out = Reference { field, ..r.clone() };
                &r_out
            }
            None => r,
        };
        let namespace = r.namespace.clone().or_else(|| id.namespace.clone());
        let name = renames
            .final_name(r.kind, &namespace, &r.name)
            .unwrap_or(&r.name)
            .to_string();
        let key = (r.kind, namespace.clone(), name.clone());
        // Another namespace's object is hashed under `namespace/name`, which no name
        // in the workload's own namespace can equal.
        let shown = match &r.namespace {
            Some(ns) if r.namespace != id.namespace => format!("{ns}/{name}"),
            _ => name.clone(),
        };
        let source = index.get(&key);
        let mut missing_keys = Vec::new();
        if ctx.resolutions {
            let status = Status::of(source, r.optional);
            if let (Some(Ok(content)), Keys::Some(ks), false, Status::Found) =
                (source.map(|s| &s.content), &r.keys, r.optional, &status)
            {
                missing_keys = ks
                    .iter()
                    .filter(|k| !content.open && !content.entries.contains_key(k))
                    .cloned()
                    .collect();
            }
            let (producer, runtime) = source.map_or((None, false), |s| s.made_by(r.kind));
            out.resolutions.push(Resolution {
                producer,
                runtime,
                kind: r.kind,
                name: name.clone(),
                field: r.field.clone(),
                keys: r.keys.clone(),
                optional: r.optional,
                status,
                missing_keys,
                namespace: namespace.clone(),
                extra: r.extra,
            });
        }
        if source.is_some_and(|s| s.ignored) {
            continue;
        }
        match source.map(|s| &s.content) {
            Some(Ok(content)) => {
                if let Keys::Some(ks) = &r.keys {
                    for k in ks {
                        if !content.open && !content.entries.contains_key(k) && !r.optional {
                            let missing = missing_of(r, &name, Some(k), None);
                            out.counts.missing +=
                                usize::from(report_missing(tree, item, r, missing, config, out));
                        }
                    }
                }
            }
            Some(Err(_)) => {
                broken = true;
                out.notes.push(Note::SourceError(key.0, key.1, key.2));
            }
            None if !r.optional => {
                let other = other_kind(index, r.kind, &namespace, &name);
                let missing = missing_of(r, &shown, None, other);
                out.counts.missing +=
                    usize::from(report_missing(tree, item, r, missing, config, out));
            }
            None => {}
        }
        let acc = seen.entry((r.kind, shown)).or_insert(Acc {
            keys: Some(BTreeSet::new()),
            present: source.is_some(),
            namespace,
            name,
        });
        match (&mut acc.keys, config.granularity, &r.keys) {
            (None, _, _) => {}
            (Some(_), Granularity::Object, _) | (Some(_), _, Keys::All) => acc.keys = None,
            (Some(set), Granularity::Key, Keys::Some(ks)) => set.extend(ks.iter().cloned()),
        }
    }
    if broken {
        out.counts.failed += 1;
        return;
    }

    let layout = with_seq_indent(tree, spec, Layout::for_item(tree, item));
    let mut ed = Editor::new(tree, layout);
    let in_place = kind.restart == Restart::DownwardApi;
    let env_applies = kind.env_allowed && (config.writes_env() || in_place);
    let annotates = config.writes_annotation() || in_place;
    let result_about = |finding: Finding| Note::Result(KrmResult::new(finding).about(tree, item));
    if !seen.is_empty() && !env_applies && !annotates {
        out.notes
            .push(result_about(Finding::SpecFixed(SpecFixed::NothingWritten)));
        return;
    }
    let mut stamped_hash = String::new();
    let result = if seen.is_empty() {
        clear(&mut ed, template, spec, config, kind.env_allowed).and_then(|()| {
            if data.had_record {
                remove_annotation(&mut ed, template, annotations::DATA_REFS)?;
            }
            Ok(())
        })
    } else {
        let keys: Vec<Keys> = seen
            .values()
            .map(|acc| match &acc.keys {
                None => Keys::All,
                Some(set) => Keys::Some(set.iter().cloned().collect()),
            })
            .collect();
        let seen_list: Vec<Seen<'_>> = seen
            .iter()
            .zip(&keys)
            .map(|(((k, name), acc), keys)| Seen {
                kind: *k,
                name,
                content: index
                    .get(&(*k, acc.namespace.clone(), acc.name.clone()))
                    .and_then(|s| s.content.as_ref().ok()),
                keys,
            })
            .collect();
        let hash = hashing::pod_hash(&seen_list, config.hash_key.as_ref());
        stamped_hash.clone_from(&hash);
        if config.hash_key.is_none() {
            if let Some(place) = keyed_stamp(tree, template, spec, config) {
                out.counts.failed += 1;
                out.notes
                    .push(result_about(Finding::KeyedWithoutKey { place }));
                return;
            }
        }
        let record = data.record();
        data.rewrite(&mut ed)
            .and_then(|()| {
                // Removing the record's entry while inserting the hash annotation after
                // it would be two edits at one place: where the hash annotation is not
                // there yet, the record's entry becomes it instead.
                let annotations = tree.get_path(template, &["metadata", "annotations"]);
                let hash_there = annotations
                    .and_then(|a| tree.get(a, &config.annotation_key))
                    .is_some();
                let mut hash_written = false;
                if record.is_empty() && data.had_record {
                    let entry = annotations.and_then(|a| {
                        tree.own_entries(a).iter().copied().find(|&(k, v)| {
                            tree.str(k) == Some(annotations::DATA_REFS) && tree.str(v).is_some()
                        })
                    });
                    match entry {
                        Some((k, v)) if annotates && !hash_there && !tree.is_alias(v) => {
                            let src = tree.src;
                            let start = tree.node(k).span.start();
                            let end = tree.node(v).span.end();
                            let key = if src[start..].starts_with('"') {
                                double_quoted(&config.annotation_key)
                            } else {
                                config.annotation_key.clone()
                            };
                            ed.splices.replace(
                                start,
                                end,
                                format!("{key}: {}", double_quoted(&hash)),
                            );
                            hash_written = true;
                        }
                        _ => remove_annotation(&mut ed, template, annotations::DATA_REFS)?,
                    }
                }
                let data = DataStamp {
                    record: &record,
                    hash_written,
                };
                apply(&mut ed, template, spec, config, kind, &hash, &data)
            })
            .map(|()| {
                out.counts.stamped += 1;
                let covered = seen
                    .iter()
                    .map(|((k, name), acc)| {
                        let source = index.get(&(*k, acc.namespace.clone(), acc.name.clone()));
                        Covered {
                            kind: *k,
                            name: name.clone(),
                            absent: !acc.present,
                            made_by: source
                                .and_then(|s| s.producer.as_ref())
                                .filter(|p| p.id.kind != k.as_str())
                                .map(|p| MadeBy {
                                    kind: p.id.kind.clone(),
                                    name: p.id.name.clone(),
                                }),
                        }
                    })
                    .collect();
                let written = Written {
                    annotation: annotates.then(|| config.annotation_key.clone()),
                    env: env_applies.then(|| config.env_name.clone()),
                    downward: in_place,
                };
                out.notes
                    .push(result_about(Finding::Stamped { written, covered }));
                if in_place {
                    out.notes.push(result_about(Finding::InPlace {
                        annotation: config.annotation_key.clone(),
                        env: config.env_name.clone(),
                    }));
                }
                for ((k, name), acc) in &seen {
                    let Some(p) = index
                        .get(&(*k, acc.namespace.clone(), acc.name.clone()))
                        .and_then(|s| s.producer.as_ref())
                        .filter(|p| p.runtime)
                    else {
                        continue;
                    };
                    out.notes.push(result_about(Finding::Runtime {
                        kind: *k,
                        name: name.clone(),
                        producer: p.id.clone(),
                        hint: config.runtime_reload == RuntimeReload::None,
                    }));
                }
                if config.writes_env() && !kind.env_allowed {
                    out.notes.push(result_about(Finding::SpecFixed(
                        if config.writes_annotation() {
                            SpecFixed::AnnotationOnly
                        } else {
                            SpecFixed::Plain
                        },
                    )));
                }
            })
    };
    let result = result.and_then(|()| {
        // runtimeReload: reloader: Reloader's explicit annotations, listing exactly the
        // sources that change outside git.
        let mut wanted: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        if config.runtime_reload == RuntimeReload::Reloader {
            for ((k, name), acc) in &seen {
                let runtime = index
                    .get(&(*k, acc.namespace.clone(), acc.name.clone()))
                    .and_then(|s| s.producer.as_ref())
                    .is_some_and(|p| p.runtime);
                let key = annotations::RELOADER_KEYS
                    .iter()
                    .find(|(kind, _)| kind == k);
                if let (true, Some((_, key))) = (runtime, key) {
                    wanted.entry(key).or_default().push(name);
                }
            }
        }
        let before = reloader_keys_written(tree, item);
        // A list the user wrote (not marked as ours) is theirs: read as extra
        // dependencies above, never rewritten.
        wanted.retain(|key, names| {
            let theirs = crate::krm::annotation(tree, item, key).filter(|_| !before.contains(key));
            if let Some(value) = theirs {
                let listed: Vec<&str> = value.split(',').map(str::trim).collect();
                let missing: Vec<&str> = names
                    .iter()
                    .copied()
                    .filter(|n| !listed.contains(n))
                    .collect();
                if !missing.is_empty() {
                    out.notes.push(result_about(Finding::ReloaderByHand {
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
            if written {
                let mut gone = stale;
                gone.push(annotations::RELOADER_WRITTEN);
                remove_annotations(&mut ed, item, &gone)?;
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
            remove_annotations(&mut ed, item, &stale)?;
        }
        set_annotations(&mut ed, item, &pairs)?;
        for (k, v) in &values {
            out.notes.push(result_about(Finding::ReloaderListed {
                key: k.clone(),
                names: v.clone(),
            }));
        }
        Ok(())
    });
    let result = result.map_err(Some).and_then(|()| {
        if kind.restart != Restart::NewObject {
            return Ok(());
        }
        let opted_in = crate::krm::annotation(tree, item, annotations::NAME_SUFFIX) == Some("true");
        if !opted_in {
            if !seen.is_empty() {
                out.notes.push(result_about(Finding::ImmutableTemplate));
            }
            return Ok(());
        }
        // The name comes from the template as written out: references to renamed
        // objects read as their new names, so a run on the output gives the same name.
        let replaced: Vec<(NodeId, String)> =
            references::find_all(tree, spec, &kind.spec_field(), &ctx.catalog.pod_sites)
                .into_iter()
                .filter_map(|r| {
                    let new = ctx.renames.final_name(r.kind, &id.namespace, &r.name)?;
                    (new != r.name).then(|| (r.name_node, new.to_string()))
                })
                .collect();
        let (base, new_name) = job_name(
            tree,
            item,
            id,
            (template, spec),
            config,
            &stamped_hash,
            &replaced,
        );
        if new_name.len() > JOB_NAME_MAX {
            out.counts.failed += 1;
            out.notes.push(Note::Result(
                KrmResult::new(Finding::JobNameTooLong { new_name })
                    .about(tree, item)
                    .at_field("metadata.name"),
            ));
            return Err(None);
        }
        if new_name != id.name {
            if let Some(node) = tree.get_path(item, &["metadata", "name"]) {
                if tree.is_alias(node) {
                    return Err(Some(EditError::ThroughAlias {
                        pos: tree.node(node).span.start(),
                    }));
                }
                crate::suffix::replace_name(tree, node, &new_name, &mut ed.splices);
            }
        }
        ed.set_string(
            item,
            &["metadata", "annotations"],
            annotations::BASE_NAME,
            &base,
        )
        .map_err(Some)?;
        // Results describe the output: the Job under its new name.
        let renamed = ResourceId {
            name: new_name.clone(),
            ..id.clone()
        };
        // Every finding about the Job names it by its resource, so this renames them all.
        out.notes.push(result_about(Finding::JobRenamed { base }));
        for note in &mut out.notes {
            if let Note::Result(r) = note {
                if r.resource.as_ref() == Some(id) {
                    r.resource = Some(renamed.clone());
                }
            }
        }
        out.renamed = Some(renamed);
        Ok(())
    });
    match result {
        Ok(()) => out.splices = std::mem::take(&mut ed.splices),
        Err(None) => {}
        Err(Some(e)) => {
            out.counts.failed += 1;
            out.notes.push(Note::Result(edit_error(tree, item, e)));
        }
    }
}

/// The longest Job name: the Job controller copies it into the `job-name` label of its
/// pods, and label values stop at 63 characters.
pub(crate) const JOB_NAME_MAX: usize = 63;

/// A Job's hashed name: its base name (recorded by an earlier run, or its name) and 10
/// characters, in kustomize's suffix alphabet, of the hash of its pod template apart
/// from the stamp, and of the stamped hash. The same on the function's own output.
fn job_name(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    (template, spec): (NodeId, NodeId),
    config: &Config,
    stamped: &str,
    replaced: &[(NodeId, String)],
) -> (String, String) {
    use sha2::{Digest, Sha256};
    let mut skip = Vec::new();
    if let Some(v) = tree
        .get_path(template, &["metadata", "annotations"])
        .and_then(|a| tree.get(a, &config.annotation_key))
    {
        skip.push(v);
    }
    for list in &CONTAINER_LISTS[..2] {
        for c in tree
            .get(spec, list)
            .map_or_else(Vec::new, |s| tree.items(s))
        {
            if let Some(env) = tree.get(c, "env") {
                let items = tree.items(env);
                skip.extend(
                    env_indices(tree, env, &config.env_name)
                        .iter()
                        .map(|&i| items[i]),
                );
            }
        }
    }
    let mut h = Sha256::new();
    h.update(b"config-hash.dev/job-name/v1\n");
    h.update((stamped.len() as u64).to_be_bytes());
    h.update(stamped.as_bytes());
    h.update(crate::produced::canonical_as_written(
        tree, template, &skip, replaced,
    ));
    let suffix = crate::naming::suffix_of_digest(&h.finalize());
    let base = crate::krm::annotation(tree, item, annotations::BASE_NAME)
        .filter(|b| !b.is_empty())
        .unwrap_or(&id.name)
        .to_string();
    let new_name = format!("{base}-{suffix}");
    (base, new_name)
}

/// The Reloader annotation keys the marker says config-hash wrote (entries trimmed, so
/// reading and rewriting agree on what is ours): those are output, not dependencies.
fn reloader_keys_written<'t>(tree: &'t Tree<'_>, item: NodeId) -> Vec<&'t str> {
    crate::krm::annotation(tree, item, annotations::RELOADER_WRITTEN)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|k| annotations::RELOADER_KEYS.iter().any(|(_, r)| r == k))
        .collect()
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
        let key_col = column(src, tree.node(k).span.start());
        let start = tree.node(first).span.start();
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
        for c in containers(ed.tree, spec)? {
            if own(ed.tree, spec, "containers").is_some_and(|seq| ed.tree.items(seq).contains(&c)) {
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
        for c in containers(ed.tree, spec)? {
            set_env(ed, c, &config.env_name, hash)?;
        }
    } else if env_allowed {
        remove_env(ed, spec, &config.env_name)?;
    }
    Ok(())
}

/// What the `__data` convention adds to a stamp: the record to write, and whether the
/// hash annotation was written already (in place of a stale record).
struct DataStamp<'r> {
    record: &'r str,
    hash_written: bool,
}

/// One env var under the `__data` convention.
struct DataRef {
    container: String,
    var: String,
    /// The env entry.
    entry: NodeId,
    /// The `valueFrom` key and value of a reference not yet rewritten; `None` for one an
    /// earlier run rewrote (and recorded).
    value_from: Option<(NodeId, NodeId)>,
    /// The name scalar of the reference, to take it out of the ordinary references.
    name_node: Option<NodeId>,
    /// The kind the reference (or record) names, and the name.
    named: SourceKind,
    name: String,
    field: String,
    /// The container's field path, for results: env indices move when the stamp's env
    /// var is inserted, so a result naming one would not read the same on the output.
    container_field: String,
    /// The kind found under that name, the final name and the object's hash.
    resolved: Option<(SourceKind, String, String)>,
}

/// The `__data` env vars of one pod template.
struct DataRefs {
    refs: Vec<DataRef>,
    /// The template carries a record from an earlier run.
    had_record: bool,
}

impl DataRefs {
    fn find(tree: &Tree<'_>, spec: NodeId, template: NodeId, spec_path: &str) -> DataRefs {
        let record = tree
            .get_path(template, &["metadata", "annotations"])
            .and_then(|a| tree.get(a, annotations::DATA_REFS))
            .and_then(|v| tree.str(v));
        let recorded: Vec<(&str, &str, SourceKind, &str)> = record
            .unwrap_or("")
            .split(',')
            .filter_map(|e| {
                let (at, what) = e.trim().split_once('=')?;
                let (c, var) = at.split_once('/')?;
                let (k, name) = what.split_once('/')?;
                Some((c, var, SourceKind::from_name(k)?, name))
            })
            .collect();
        let mut refs = Vec::new();
        for list in &CONTAINER_LISTS[..2] {
            for (i, &c) in tree
                .get(spec, list)
                .map_or_else(Vec::new, |s| tree.items(s))
                .iter()
                .enumerate()
            {
                let cname = tree.get(c, "name").and_then(|n| tree.str(n)).unwrap_or("");
                let Some(env) = tree.get(c, "env") else {
                    continue;
                };
                for (j, &entry) in tree.items(env).iter().enumerate() {
                    let Some(var) = tree.get(entry, "name").and_then(|n| tree.str(n)) else {
                        continue;
                    };
                    // The record is `container/VAR=Kind/name,...`: a variable name
                    // holding `=` or `,`, or a container name holding `/` too (which
                    // Kubernetes refuses anyway), could not be read back, so such a
                    // variable is left as written.
                    if var.contains(['=', ',']) || cname.contains(['/', '=', ',']) {
                        continue;
                    }
                    let field = format!("{spec_path}.{list}[{i}].env[{j}]");
                    let container_field = format!("{spec_path}.{list}[{i}]");
                    let value_from = tree
                        .own_entries(entry)
                        .iter()
                        .copied()
                        .find(|&(k, _)| tree.str(k) == Some("valueFrom"));
                    // Only a valueFrom with one source: the API server refuses more, and
                    // replacing it would drop the others' references from what the pod
                    // reads, so a second run would hash something else. Nor beside a
                    // `value`: the API server refuses that unless the value is empty, and
                    // the rewrite would write a second `value` key.
                    let has_value_key = tree.get(entry, "value").is_some();
                    let single = value_from
                        .filter(|&(_, vf)| tree.own_entries(vf).len() == 1 && !has_value_key);
                    let fresh = single.and_then(|(_, vf)| {
                        [
                            ("configMapKeyRef", SourceKind::ConfigMap),
                            ("secretKeyRef", SourceKind::Secret),
                        ]
                        .into_iter()
                        .find_map(|(site, kind)| {
                            let r = tree.get(vf, site)?;
                            let key = tree.get(r, "key").and_then(|k| tree.str(k))?;
                            let name_node = tree.get(r, "name")?;
                            let name = tree.str(name_node)?;
                            (key == WHOLE_OBJECT_KEY).then_some((kind, name, name_node))
                        })
                    });
                    if let Some((named, name, name_node)) = fresh {
                        refs.push(DataRef {
                            container: cname.to_string(),
                            var: var.to_string(),
                            entry,
                            value_from,
                            name_node: Some(name_node),
                            named,
                            name: name.to_string(),
                            field,
                            container_field,
                            resolved: None,
                        });
                        continue;
                    }
                    let has_value = tree
                        .get(entry, "value")
                        .is_some_and(|v| tree.str(v).is_some());
                    if let Some(&(_, _, named, name)) = recorded
                        .iter()
                        .find(|(rc, rv, _, _)| *rc == cname && *rv == var)
                        .filter(|_| has_value && value_from.is_none())
                    {
                        refs.push(DataRef {
                            container: cname.to_string(),
                            var: var.to_string(),
                            entry,
                            value_from: None,
                            name_node: None,
                            named,
                            name: name.to_string(),
                            field,
                            container_field,
                            resolved: None,
                        });
                    }
                }
            }
        }
        DataRefs {
            refs,
            had_record: record.is_some(),
        }
    }

    /// The record to write: every resolved entry, sorted.
    fn record(&self) -> String {
        let mut entries: Vec<String> = self
            .refs
            .iter()
            .filter_map(|d| {
                let (kind, name, _) = d.resolved.as_ref()?;
                Some(format!(
                    "{}/{}={}/{name}",
                    d.container,
                    d.var,
                    kind.as_str()
                ))
            })
            .collect();
        entries.sort();
        entries.dedup();
        entries.join(",")
    }

    /// Writes each resolved hash as its env var's value.
    fn rewrite(&self, ed: &mut Editor<'_, '_>) -> Result<(), EditError> {
        for d in &self.refs {
            let Some((_, _, hash)) = &d.resolved else {
                continue;
            };
            match d.value_from {
                Some((k, v)) => {
                    let tree = ed.tree;
                    let src = tree.src;
                    let start = tree.node(k).span.start();
                    // A block node's span may run on over blank and comment lines to
                    // the next entry: those stay.
                    let mut end = src[..tree.node(v).span.end()].trim_end().len().max(start);
                    while let Some(nl) = src[start..end].rfind('\n') {
                        let line = src[start + nl + 1..end].trim_start();
                        if !line.starts_with('#') {
                            break;
                        }
                        end = src[..start + nl].trim_end().len().max(start);
                    }
                    let key = if src[start..].starts_with('"') {
                        "\"value\""
                    } else {
                        "value"
                    };
                    ed.splices
                        .replace(start, end, format!("{key}: {}", double_quoted(hash)));
                }
                None => ed.set_string(d.entry, &[], "value", hash)?,
            }
        }
        Ok(())
    }
}

/// Whether an annotation is there at all (whatever its value).
fn flag_present(tree: &Tree<'_>, item: NodeId, key: &str) -> bool {
    crate::krm::annotation(tree, item, key).is_some()
}

/// Removes several annotations of `owner` (an object or a pod template); when they are
/// all it has, the `annotations:` block goes, as [`remove_annotation`] does for one.
fn remove_annotations(
    ed: &mut Editor<'_, '_>,
    owner: NodeId,
    keys: &[&str],
) -> Result<(), EditError> {
    let tree = ed.tree;
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
    if present.len() > 1 && present.len() == tree.own_entries(ann).len() {
        let block = |m: NodeId| tree.is_map(m) && !tree.is_flow(m) && !tree.is_alias(m);
        let key_of = |map: NodeId, name: &str| {
            tree.own_entries(map)
                .iter()
                .find(|&&(k, _)| tree.str(k) == Some(name))
                .map(|&(k, _)| k)
        };
        if let Some(meta) = tree
            .get(owner, "metadata")
            .filter(|&m| block(m) && block(ann))
        {
            let from = if tree.own_entries(meta).len() == 1 {
                key_of(owner, "metadata")
            } else {
                key_of(meta, "annotations")
            };
            if let Some((s, e)) = from.and_then(|from| {
                whole_lines(
                    tree.src,
                    tree.node(from).span.start(),
                    tree.node(ann).span.end(),
                )
            }) {
                ed.splices.delete(s, e);
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
    let tree = ed.tree;
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
        if value.is_some_and(hashing::is_keyed) {
            return Some(format!("annotation {}", config.annotation_key));
        }
    }
    if config.writes_env() {
        for list in &CONTAINER_LISTS[..2] {
            for c in own(tree, spec, list).map_or_else(Vec::new, |s| tree.items(s)) {
                let Some(env) = tree.get(c, "env") else {
                    continue;
                };
                for var in tree.items(env) {
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
    let tree = ed.tree;
    let src = tree.src;
    let entry = |map: NodeId, name: &str| {
        tree.own_entries(map)
            .iter()
            .copied()
            .find(|&(k, _)| tree.str(k) == Some(name))
    };
    let block = |map: NodeId| tree.is_map(map) && !tree.is_flow(map) && !tree.is_alias(map);
    let whole = entry(template, "metadata").and_then(|(meta_key, meta)| {
        let (ann_key, ann) = entry(meta, "annotations")?;
        let [(k, v)] = tree.own_entries(ann)[..] else {
            return None;
        };
        if !(block(meta) && block(ann)) || tree.str(k) != Some(key) {
            return None;
        }
        let (from, region) = if tree.own_entries(meta).len() == 1 {
            (meta_key, meta)
        } else {
            (ann_key, ann)
        };
        // Text that defines an anchor stays: the editor refuses it with a reason.
        if tree.subtree_has_anchor(from) || tree.subtree_has_anchor(region) {
            return None;
        }
        whole_lines(src, tree.node(from).span.start(), tree.node(v).span.end())
    });
    match whole {
        Some((start, end)) => {
            ed.splices.delete(start, end);
            Ok(())
        }
        None => ed.remove(template, &["metadata", "annotations"], key),
    }
}

/// The lines from the one holding `from` to the one holding `to` (inclusive), as a byte
/// range, when `from` starts its line (after indentation) and no comment is among them.
fn whole_lines(src: &str, from: usize, to: usize) -> Option<(usize, usize)> {
    let start = src[..from].rfind('\n').map_or(0, |i| i + 1);
    // A block node's span may end at the start of the next line: back up to its text.
    let to = src[..to].trim_end().len().max(from);
    let end = src[to..].find('\n').map_or(src.len(), |i| to + i + 1);
    let indent_only = src[start..from].bytes().all(|b| b == b' ');
    (indent_only && !src[start..end].contains('#')).then_some((start, end))
}

/// Removes env var `name` from every container. When it is a container's only env
/// var, the `env:` entry goes too (block style without comments), as it was before the
/// function inserted it, rather than leaving `env:` empty (null).
fn remove_env(ed: &mut Editor<'_, '_>, spec: NodeId, name: &str) -> Result<(), EditError> {
    for c in containers(ed.tree, spec)? {
        let tree = ed.tree;
        let Some((key, seq)) = tree
            .own_entries(c)
            .iter()
            .copied()
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
            .filter(|&i| tree.get(tree.items(seq)[i], "valueFrom").is_none())
            .collect();
        if found.is_empty() {
            continue;
        }
        let only = tree.items(seq).len() == 1
            && !tree.is_flow(seq)
            && !tree.is_alias(seq)
            && !tree.subtree_has_anchor(key)
            && !tree.subtree_has_anchor(seq);
        let lines = only
            .then(|| {
                let last = tree.items(seq)[0];
                whole_lines(
                    tree.src,
                    tree.node(key).span.start(),
                    tree.node(last).span.end(),
                )
            })
            .flatten();
        match lines {
            Some((start, end)) => ed.splices.delete(start, end),
            None => ed.remove_items(seq, &found)?,
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
                    pos: tree.node(c).span.start(),
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
    lists: &[&str],
    config: &Config,
) -> Shifted {
    let mut out = HashSet::new();
    for list in lists {
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
                out.insert(format!("{spec_path}.{list}[{i}].env"));
            }
        }
    }
    Shifted(out)
}

/// For messages about the fields of one item: where env mode will insert the hash ahead
/// of them in a workload's env list (`None`: nothing moves). Results describe the
/// output, so a second run must word them the same.
pub(crate) fn shifted_fields_of(
    tree: &Tree<'_>,
    item: NodeId,
    config: &Config,
    catalog: &Catalog,
) -> Option<Shifted> {
    let id = ResourceId::of(tree, item);
    let kind = catalog.workload(&id.api_version, &id.kind)?;
    let lists = env_lists(kind, config);
    if lists.is_empty() || flag(tree, item, annotations::SKIP) {
        return None;
    }
    let template: Vec<&str> = kind.template.iter().map(String::as_str).collect();
    let spec = tree.get(tree.get_path(item, &template)?, "spec")?;
    let spec_path = kind.spec_field();
    // Only a workload that reads something gets the hash.
    if references::find(tree, spec, &spec_path, &catalog.pod_sites).is_empty() {
        return None;
    }
    Some(shifted_env_lists(tree, spec, &spec_path, lists, config))
}

/// The container lists where stamping inserts the env var: containers and init
/// containers in env mode; regular containers only for a kind restarted in place
/// through the downward API (whatever the mode); none otherwise.
fn env_lists(kind: &WorkloadKind, config: &Config) -> &'static [&'static str] {
    if !kind.env_allowed {
        &[]
    } else if kind.restart == Restart::DownwardApi {
        &CONTAINER_LISTS[..1]
    } else if config.writes_env() {
        &CONTAINER_LISTS[..2]
    } else {
        &[]
    }
}

/// The env lists (by field path) that gain the hash as their first entry.
pub(crate) struct Shifted(HashSet<String>);

impl Shifted {
    /// A field's path as it reads in the output, when the hash entry moves it (`None`:
    /// it does not move). One look-up per `[` of the path, so many fields of one item
    /// cost no more than reading their paths.
    pub(crate) fn output_field(&self, field: &str) -> Option<String> {
        if self.0.is_empty() {
            return None;
        }
        field.match_indices('[').find_map(|(at, _)| {
            let list = &field[..at];
            if !self.0.contains(list) {
                return None;
            }
            let (idx, tail) = field[at + 1..].split_once(']')?;
            let idx: usize = idx.parse().ok()?;
            Some(format!("{list}[{}]{tail}", idx + 1))
        })
    }
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
    let entry = NewValue::Map(vec![
        ("name".into(), NewValue::Plain(name.into())),
        ("value".into(), NewValue::Str(hash.into())),
    ]);
    upsert_env(ed, container, name, &entry, |ed, var| {
        let tree = ed.tree;
        // Read as the API server reads it, through merge keys: a `valueFrom` merged in
        // is one the pod has, and a `value` beside it is refused.
        if tree.get(var, "valueFrom").is_some() {
            return Err(EditError::WrongType {
                pos: tree.node(var).span.start(),
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
        let tree = ed.tree;
        let reads = tree
            .get_path(var, &["valueFrom", "fieldRef", "fieldPath"])
            .and_then(|p| tree.str(p));
        if reads != Some(path.as_str()) {
            return Err(EditError::WrongType {
                pos: tree.node(var).span.start(),
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
    let tree = ed.tree;
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
                existing(ed, tree.items(seq)[idx])?;
            }
            Ok(())
        }
        Some(seq) if tree.is_alias(seq) => Err(EditError::ThroughAlias {
            pos: tree.node(seq).span.start(),
        }),
        Some(v) => Err(EditError::WrongType {
            pos: tree.node(v).span.start(),
            field: "env".into(),
            expected: "a list",
        }),
    }
}

/// What `r` names that is not there: the object (under its final name) or one of its
/// keys.
fn missing_of(
    r: &Reference,
    name: &str,
    key: Option<&str>,
    other: Option<(SourceKind, Option<MadeBy>)>,
) -> Missing {
    Missing {
        kind: r.kind,
        name: name.to_string(),
        key: key.map(str::to_string),
        other,
        container: r.container.clone(),
        field: r.field.clone(),
        extra: r.extra,
    }
}

/// A ConfigMap of this name where a Secret is missing, or back.
fn other_kind(
    index: &SourceIndex,
    kind: SourceKind,
    namespace: &Option<String>,
    name: &str,
) -> Option<(SourceKind, Option<MadeBy>)> {
    let other = match kind {
        SourceKind::ConfigMap => SourceKind::Secret,
        SourceKind::Secret => SourceKind::ConfigMap,
        SourceKind::SecretProviderClass => return None,
    };
    let found = index.get(&(other, namespace.clone(), name.to_string()))?;
    let by = found.producer.as_ref().map(|p| MadeBy {
        kind: p.id.kind.clone(),
        name: p.id.name.clone(),
    });
    Some((other, by))
}

/// Reports a missing object or key under its final name (after any rename), so that a
/// second run on the output words it the same.
fn report_missing(
    tree: &Tree<'_>,
    item: NodeId,
    r: &Reference,
    missing: Missing,
    config: &Config,
    out: &mut ItemOutcome,
) -> bool {
    // Made at install time, as the configuration declares: expected to be missing here.
    if missing.key.is_none()
        && !config.install_time.is_empty()
        && config.install_time.iter().any(|d| {
            let own = crate::krm::ResourceId::of(tree, item).namespace;
            let (namespace, name) = match missing.name.split_once('/') {
                Some((ns, name)) => (Some(ns), name),
                None => (
                    r.namespace.as_deref().or(own.as_deref()),
                    missing.name.as_str(),
                ),
            };
            d.matches(missing.kind, namespace, name)
        })
    {
        return false;
    }
    let severity = match config.on_missing {
        OnMissing::Ignore => return false,
        OnMissing::Warn => Severity::Warning,
        OnMissing::Error => Severity::Error,
    };
    out.notes.push(Note::Result(
        KrmResult::new(Finding::Missing(Box::new(missing)))
            .with_severity(severity)
            .about(tree, item)
            .at_field(r.field.clone()),
    ));
    true
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
