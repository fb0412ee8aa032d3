//! Resolution: which ConfigMaps and Secrets the input holds, under the names they have
//! in the output, and what a reference to one finds there. Stamping, `--check` and
//! `graph` all read this one value, so none of them works out a status of its own.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasherDefault;
use std::sync::OnceLock;

use crate::model::catalog::SourceKind;
use crate::model::catalog::{Catalog, Form, WorkloadKind, annotations};
use crate::model::config::{Config, Granularity, OnMissing};
use crate::model::content::{Content, ContentError};
use crate::model::findings::Severity;
use crate::model::findings::{Finding, MadeBy, Missing};
use crate::model::reference::Keys;
use crate::model::reference::{SourceKey, Status, Via};
use crate::model::resource::ResourceId;
use crate::model::result::KrmResult;
use crate::read::data_refs::DataRefs;
use crate::read::references::{self};
use crate::resolve::renames::{AnyNamespace, Renames, Renaming};
use crate::yaml::{NodeId, Tree};

/// What the hash needs of one ConfigMap or Secret, owned, so that the tree it came from
/// can be dropped (large inputs are parsed one chunk at a time). Kept small: a large
/// input holds one per source.
#[derive(Debug, Clone)]
pub struct SourceEntry {
    pub id: ResourceId,
    pub ignored: bool,
    /// Its name changes with its content (a config-hash or kustomize hashed name), so
    /// the workloads that read it roll by that alone (what `audit` asks). Read only for
    /// views (see [`hashed_name`]): stamping never asks.
    pub hashed_name: bool,
    /// The keys `config-hash.dev/ignore-keys` leaves out of every hash (sorted).
    pub ignored_keys: Box<[String]>,
    pub content: Result<Content, ContentError>,
    /// The file the orchestrator read it from, for results.
    file: Option<crate::model::resource::FileRef>,
    /// The object that makes it, when git holds that instead (a SealedSecret).
    pub producer: Option<Box<Producer>>,
    /// Its place among the index's entries, in input order (set by
    /// [`SourceIndex::insert`]): which namespace a name from any namespace finds first.
    order: u32,
}

/// The object's `metadata.annotations`, looked up once for what a source reads of them.
fn annotations_of(tree: &Tree<'_>, item: NodeId) -> Option<NodeId> {
    tree.get_path(item, &["metadata", "annotations"])
}

/// Whether a source carries one of the catalog's ignore annotations (`annotations`: its
/// `metadata.annotations`).
fn ignored(tree: &Tree<'_>, annotations: Option<NodeId>) -> bool {
    let Some(annotations) = annotations else {
        return false;
    };
    crate::model::catalog::annotations::IGNORE
        .iter()
        .any(|key| tree.get(annotations, key).and_then(|v| tree.str(v)) == Some("true"))
}

/// Whether an object's name changes with its content: config-hash's hashed name (its
/// base name recorded, or asked for) or kustomize's (asked for, or the 10 characters of
/// kustomize's alphabet a generator appends, as a rendered kustomization holds them).
pub fn hashed_name(tree: &Tree<'_>, item: NodeId, name: &str) -> bool {
    use crate::model::catalog::annotations::{BASE_NAME, NAME_SUFFIX, NEEDS_HASH};
    let annotation = |key| crate::model::resource::annotation(tree, item, key);
    annotation(BASE_NAME).is_some()
        || annotation(NAME_SUFFIX) == Some("true")
        || annotation(NEEDS_HASH) == Some("true")
        || crate::model::name_hash::strip_kustomize_suffix(name).is_some()
}

/// Who makes a produced source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Producer {
    pub id: ResourceId,
    /// Its content can change outside git.
    pub runtime: bool,
}

impl SourceEntry {
    /// Reads what the hash needs of one ConfigMap or Secret.
    pub fn read(tree: &Tree<'_>, item: NodeId, id: ResourceId, kind: SourceKind) -> SourceEntry {
        let annotations = annotations_of(tree, item);
        SourceEntry {
            hashed_name: false,
            id,
            ignored: ignored(tree, annotations),
            ignored_keys: crate::read::ignore_keys::listed(tree, annotations).into_boxed_slice(),
            content: crate::read::content::content(tree, item, kind),
            file: crate::model::resource::file_of(tree, item),
            producer: None,
            order: 0,
        }
    }

    /// An object a producer makes, as [`crate::read::produced::read`] found it.
    pub fn produced(
        tree: &Tree<'_>,
        item: NodeId,
        producer: &ResourceId,
        made: crate::read::produced::Made,
        runtime: bool,
    ) -> SourceEntry {
        SourceEntry {
            hashed_name: false,
            id: made.id,
            ignored: ignored(tree, annotations_of(tree, item)),
            ignored_keys: Box::default(),
            content: made.content,
            file: crate::model::resource::file_of(tree, item),
            producer: Some(Box::new(Producer {
                id: producer.clone(),
                runtime,
            })),
            order: 0,
        }
    }

    /// Who makes it, when that is an object of another kind (a SealedSecret's Secret; not a
    /// SecretProviderClass, which is read as itself), and whether its content can change
    /// outside git.
    pub fn made_by(&self, kind: SourceKind) -> (Option<ResourceId>, bool) {
        let Some(p) = &self.producer else {
            return (None, false);
        };
        let by = (p.id.kind() != kind.as_str()).then(|| p.id.clone());
        (by, p.runtime)
    }

    /// A result about this object, which nothing reads after it.
    pub fn into_result(self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id);
        r.file = self.file;
        r
    }

    /// A result about this object.
    pub fn result(&self, finding: Finding) -> KrmResult {
        let mut r = KrmResult::new(finding);
        r.resource = Some(self.id.clone());
        r.file = self.file.clone();
        r
    }

    /// The result that describes it under its hashed name in the output, made of its
    /// index entry and its renaming, which nothing reads after this.
    pub fn into_renamed_result(self, renaming: Renaming, references: usize) -> KrmResult {
        let mut result = self.into_result(Finding::Renamed {
            base: renaming.base,
            references,
        });
        if let Some(r) = result.resource.as_mut() {
            *r = r.with_name(&renaming.new_name);
        }
        result
    }
}

/// The ConfigMaps and Secrets of the input, by kind, namespace and (final) name.
#[derive(Debug, Default)]
pub struct SourceIndex {
    /// Boxed: the table keeps room for more entries than it holds.
    by_id: HashMap<SourceKey, Box<SourceEntry>>,
    /// The namespaces holding an object of each name, in input order: what a
    /// cluster-scoped object's reference (a ClusterRole's `resourceNames`) finds, and
    /// where a missing reference's object is instead. Built on the first such look-up
    /// (pass 2 runs on several threads, hence a `OnceLock`), and only then: most inputs
    /// never ask, and a copy of every source's name costs as much as the index's keys.
    anywhere: OnceLock<Anywhere>,
    /// How many entries were inserted: the next one's [`SourceEntry`] order.
    inserted: u32,
    /// Some source lists keys to leave out of hashes: only then do workloads look for
    /// `subPath` mounts.
    any_ignored_keys: bool,
}

/// Name -> the kind and namespace of each object of that name, in input order. Keyed by
/// name alone, so that a look-up borrows it: one runs per missing reference.
type Anywhere = HashMap<String, Vec<(SourceKind, Option<String>)>>;

impl SourceIndex {
    /// Adds an entry read earlier (perhaps on another thread); a second object with the
    /// same identity is an error.
    pub fn insert(
        &mut self,
        key: SourceKey,
        mut entry: Box<SourceEntry>,
    ) -> Result<(), Box<KrmResult>> {
        if let Some(first) = self.by_id.get(&key) {
            let finding = Finding::Duplicate {
                made_by: entry.producer.as_ref().map(|p| p.id.clone()),
                other_made_by: first.producer.as_ref().map(|p| p.id.clone()),
            };
            return Err(Box::new(entry.result(finding)));
        }
        self.any_ignored_keys |= !entry.ignored_keys.is_empty();
        entry.order = self.inserted;
        self.inserted = self.inserted.saturating_add(1);
        self.anywhere.take();
        self.by_id.insert(key, entry);
        Ok(())
    }

    /// The namespaces that hold an object of this kind and name, in input order.
    pub fn namespaces_of<'s>(
        &'s self,
        kind: SourceKind,
        name: &str,
    ) -> impl Iterator<Item = &'s Option<String>> + use<'s> {
        self.anywhere
            .get_or_init(|| self.anywhere())
            .get(name)
            .into_iter()
            .flatten()
            .filter(move |(k, _)| *k == kind)
            .map(|(_, ns)| ns)
    }

    /// Every entry's name, with the kind and namespace of each object of that name in
    /// input order.
    fn anywhere(&self) -> Anywhere {
        let mut keys: Vec<(u32, &SourceKey)> =
            self.by_id.iter().map(|(k, e)| (e.order, k)).collect();
        keys.sort_unstable_by_key(|&(order, _)| order);
        let mut anywhere = Anywhere::with_capacity(keys.len());
        for (
            _,
            SourceKey {
                kind,
                namespace: ns,
                name,
            },
        ) in keys
        {
            anywhere
                .entry(name.clone())
                .or_insert_with(|| Vec::with_capacity(1))
                .push((*kind, ns.clone()));
        }
        anywhere
    }

    /// Whether any source lists keys to leave out of hashes.
    pub fn any_ignored_keys(&self) -> bool {
        self.any_ignored_keys
    }

    pub fn get(&self, key: &SourceKey) -> Option<&SourceEntry> {
        self.by_id.get(key).map(|e| &**e)
    }

    /// Every source, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&SourceKey, &SourceEntry)> {
        self.by_id.iter().map(|(k, e)| (k, &**e))
    }

    /// Takes an entry out, for its result once nothing reads it any more.
    pub fn take(&mut self, key: &SourceKey) -> Option<Box<SourceEntry>> {
        self.anywhere.take();
        self.by_id.remove(key)
    }

    /// The error result of every source whose content cannot be read, by key: all that
    /// [`finish`] needs of the index, so the index can be dropped before it.
    pub fn unreadable(&self) -> HashMap<SourceKey, KrmResult> {
        self.by_id
            .iter()
            .filter_map(|(key, source)| {
                let e = source.content.as_ref().err()?;
                Some((key.clone(), source.result(Finding::Content(e.clone()))))
            })
            .collect()
    }
}

/// A result of one workload, or a mark where an unreadable source it references must be
/// reported (once for the whole input, at its first use).
#[derive(Debug)]
pub enum Note {
    Result(KrmResult),
    SourceError(SourceKey),
}

/// Where names resolve: the sources under their final names, and the renames that map
/// the names references use (base names, earlier suffixed names) to those.
#[derive(Clone, Copy)]
pub struct Resolver<'r> {
    pub index: &'r SourceIndex,
    pub renames: &'r Renames,
}

/// What a name resolved to.
pub struct Found<'r> {
    /// The name after renaming.
    pub name: String,
    pub namespace: Option<String>,
    pub entry: Option<&'r SourceEntry>,
}

impl Found<'_> {
    pub fn key(&self, kind: SourceKind) -> SourceKey {
        SourceKey::new(kind, self.namespace.as_deref(), &self.name)
    }
}

impl<'r> Resolver<'r> {
    /// The object of this kind that `name` names in `namespace`.
    pub fn find(&self, kind: SourceKind, namespace: Option<&str>, name: &str) -> Found<'r> {
        let name = self
            .renames
            .final_name(kind, namespace, name)
            .unwrap_or(name)
            .to_string();
        let entry = self.index.get(&SourceKey::new(kind, namespace, &name));
        Found {
            name,
            namespace: namespace.map(str::to_string),
            entry,
        }
    }

    /// The object of this kind that `name` names from a cluster-scoped object, in any
    /// namespace: a renamed object under one of its names, else the one object of that
    /// name. Objects of several namespaces: the first in input order (renaming leaves
    /// such a name as written, with a warning).
    pub fn find_any(&self, kind: SourceKind, name: &str) -> Found<'r> {
        let (namespace, name) = match self.renames.resolve_any(kind, name) {
            AnyNamespace::One(r) => (
                self.renames.namespace_of(r).clone(),
                self.renames.final_of(r).to_string(),
            ),
            AnyNamespace::None | AnyNamespace::Ambiguous => (
                self.index
                    .namespaces_of(kind, name)
                    .next()
                    .cloned()
                    .flatten(),
                name.to_string(),
            ),
        };
        let entry = self
            .index
            .get(&SourceKey::new(kind, namespace.as_deref(), &name));
        Found {
            name,
            namespace,
            entry,
        }
    }

    /// For a reference that finds nothing: an object of the other kind under that name,
    /// which such a reference cannot read (a `configMapKeyRef` naming a Secret).
    pub fn other_kind(
        &self,
        kind: SourceKind,
        namespace: &Option<String>,
        name: &str,
    ) -> Option<(SourceKind, Option<MadeBy>)> {
        let other = kind.other()?;
        let found = self
            .index
            .get(&SourceKey::new(other, namespace.as_deref(), name))?;
        let by = found.producer.as_ref().map(|p| MadeBy {
            kind: p.id.kind().to_string(),
            name: p.id.name().to_string(),
        });
        Some((other, by))
    }
}

/// How one reference resolved: what `graph` shows, and what stamping hashes and
/// reports.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub kind: SourceKind,
    /// The name after renaming.
    pub name: String,
    /// The namespace it is looked up in.
    pub namespace: Option<String>,
    /// The field that holds the reference, as it reads in the output.
    pub field: String,
    pub keys: Keys,
    pub optional: bool,
    pub status: Status,
    /// Keys it names that the object does not have (non-optional references only).
    pub missing_keys: Vec<String>,
    pub via: Via,
    /// Who makes the object, when not itself (see [`SourceEntry::made_by`]).
    pub producer: Option<ResourceId>,
    pub runtime: bool,
    /// Keys the object leaves out of this pod's hash (`config-hash.dev/ignore-keys`,
    /// less those the pod reads through `subPath`).
    pub ignored_keys: Vec<String>,
}

/// One source as a workload's hash covers it: every key its references let the pod see.
#[derive(Debug, Clone)]
pub struct Read {
    pub kind: SourceKind,
    /// As hashed and reported: `namespace/name` for another namespace's object.
    pub shown: String,
    /// Where it is looked up: its namespace and final name.
    pub namespace: Option<String>,
    pub name: String,
    /// `Keys::All` under `granularity: object`, or when a reference sees every key.
    pub keys: Keys,
    /// It is in the input (an absent one is hashed as absent).
    pub present: bool,
    /// Keys left out of the hash: the object's `config-hash.dev/ignore-keys`, less those
    /// this pod reads through a `subPath` mount.
    pub unhashed: Vec<String>,
}

impl Read {
    pub fn key(&self) -> SourceKey {
        SourceKey::new(self.kind, self.namespace.as_deref(), &self.name)
    }
}

/// What a workload's pod template reads, as resolved: the one record stamping hashes and
/// every view (`graph`, `--check`) shows.
#[derive(Debug, Default)]
pub struct WorkloadResolution {
    /// The hash stamping computed (`None` when it stamps nothing), kept for views that
    /// compare two renders; never shown.
    pub stamp: Option<String>,
    /// Every reference in order: whole-object (`__data`) ones, the pod spec's, then the
    /// annotations'.
    pub references: Vec<Resolved>,
    /// Per source, sorted by kind and name as hashed: what the hash covers.
    pub reads: Vec<Read>,
    /// Findings made while resolving (missing objects and keys, unreadable names).
    pub notes: Vec<Note>,
    /// Non-optional references to objects or keys that are not there, reported.
    pub missing: usize,
    /// A reference could not be resolved (a name that is not a string, a source whose
    /// content cannot be read): the workload cannot be stamped.
    pub failed: bool,
    /// Keep `references` (see [`Context::record`]).
    keep: bool,
    /// Where in `notes` the finding about each missing object is, by
    /// [`missing_object_hash`], for the further references to it.
    missing_at: HashMap<u64, usize, BuildHasherDefault<Prehashed>>,
}

/// A missing object's identity (kind, name as reported, named in an annotation) as a
/// number: FNV-1a. A map keyed by it costs a fraction of a `String` key per reference,
/// and a workload may hold a hundred thousand of them; a collision is checked for.
fn missing_object_hash(kind: SourceKind, name: &str, extra: bool) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in [kind as u8, u8::from(extra)]
        .into_iter()
        .chain(name.bytes())
    {
        h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The hasher of a map whose keys are hashes already.
#[derive(Default)]
struct Prehashed(u64);

impl std::hash::Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) | u64::from(b);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}

/// A workload's pod template: the mapping that holds `metadata` and `spec`, and its spec.
#[derive(Debug, Clone, Copy)]
pub struct PodTemplate {
    pub template: NodeId,
    pub spec: NodeId,
}

impl PodTemplate {
    /// The pod template where the catalog row says it is, when it is a mapping with a
    /// `spec` mapping.
    pub fn of(tree: &Tree<'_>, item: NodeId, kind: &WorkloadKind) -> Option<PodTemplate> {
        let template = tree.get_path(item, &references::path_strs(&kind.template))?;
        let spec = tree.get(template, "spec")?;
        (tree.is_map(template) && tree.is_map(spec)).then_some(PodTemplate { template, spec })
    }
}

/// What resolving a workload needs besides the workload.
pub struct Context<'c> {
    pub config: &'c Config,
    pub catalog: &'c Catalog,
    pub resolver: Resolver<'c>,
    /// Keep every reference as resolved (for `graph` and other views); stamping needs
    /// only the reads.
    pub record: bool,
}

/// Resolves every reference of a workload's pod template: the `__data` env vars (whose
/// objects it resolves in `data`), the pod spec's references, and the annotations that
/// list extra dependencies. Field paths are worded as they read in the output
/// (`output_field`: where env mode inserts the hash ahead of them).
#[allow(clippy::too_many_arguments)]
pub fn resolve_workload(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    pod: PodTemplate,
    ctx: &Context<'_>,
    data: &mut DataRefs,
    output_field: &dyn Fn(&str) -> Option<String>,
) -> WorkloadResolution {
    let (config, catalog, resolver) = (ctx.config, ctx.catalog, ctx.resolver);
    let mut out = WorkloadResolution {
        keep: ctx.record,
        ..WorkloadResolution::default()
    };
    let spec_path = kind.spec_field();
    let mut refs = references::find(tree, pod.spec, &spec_path, &catalog.pod_sites);
    // Reloader annotations config-hash wrote itself are its output, not dependencies.
    let ours = reloader_keys_written(tree, item);
    let sites = catalog
        .annotation_sites
        .iter()
        .filter(|s| !ours.contains(&s.key.as_str()));
    let (extra, regexes) = references::find_annotations(tree, item, sites);
    refs.extend(extra);
    for r in regexes {
        out.notes.push(Note::Result(
            KrmResult::new(Finding::RegexEntry {
                field: r.field.clone(),
                entry: r.entry.to_string(),
                tool: r.site.tool.clone(),
                kind: r.site.kind,
            })
            .about(tree, item)
            .at_field(r.field),
        ));
    }
    let unreadable = references::unreadable_names(tree, pod.spec, &spec_path, &catalog.pod_sites);
    if !unreadable.is_empty() {
        out.failed = true;
        for field in unreadable {
            out.notes.push(Note::Result(
                KrmResult::new(Finding::NameNotString {
                    field: field.clone(),
                })
                .about(tree, item)
                .at_field(field),
            ));
        }
        return out;
    }

    // The `__data` convention: env vars that receive the hash of a whole object, found
    // under the kind the reference names, else the other kind of that name.
    let mut reads: BTreeMap<(SourceKind, String), Read> = BTreeMap::new();
    for d in &mut data.refs {
        let found = [Some(d.named), d.named.other()]
            .into_iter()
            .flatten()
            .map(|k| (k, resolver.find(k, id.namespace(), &d.name)))
            .find(|(_, f)| f.entry.is_some());
        let Some((kind, found)) = found else {
            if d.value_from.is_none() {
                let name = resolver.find(d.named, id.namespace(), &d.name).name;
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
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(kind));
        reads.insert(
            (kind, found.name.clone()),
            Read {
                kind,
                shown: found.name.clone(),
                namespace: id.namespace().map(str::to_string),
                name: found.name.clone(),
                keys: Keys::All,
                present: true,
                unhashed: found
                    .entry
                    .map(|e| e.ignored_keys.to_vec())
                    .unwrap_or_default(),
            },
        );
        out.record(|| Resolved {
            kind,
            name: found.name.clone(),
            namespace: id.namespace().map(str::to_string),
            field: d.field.clone(),
            keys: Keys::All,
            optional: false,
            status: Status::Found,
            missing_keys: Vec::new(),
            via: Via::Pod,
            producer,
            runtime,
            ignored_keys: found
                .entry
                .map(|e| e.ignored_keys.to_vec())
                .unwrap_or_default(),
        });
        out.notes.push(Note::Result(
            KrmResult::new(Finding::WholeObject {
                var: d.var.clone(),
                container: d.container.clone(),
                kind,
                name: found.name.clone(),
            })
            .about(tree, item)
            .at_field(d.container_field.clone()),
        ));
        d.resolved = Some((kind, found.name));
    }
    let handled: Vec<NodeId> = data
        .refs
        .iter()
        .filter(|d| d.resolved.is_some())
        .filter_map(|d| d.name_node)
        .collect();
    refs.retain(|r| !handled.contains(&r.name_node));

    // Keys read through `subPath` stay hashed, whatever the object's ignore-keys say.
    let sub_paths: Vec<(SourceKey, crate::read::ignore_keys::SubPathRead)> =
        if !resolver.index.any_ignored_keys() {
            Vec::new()
        } else {
            crate::read::ignore_keys::sub_path_reads(tree, pod.spec, &spec_path, &refs)
                .into_iter()
                .map(|s| {
                    let found = resolver.find(s.kind, id.namespace(), &s.name);
                    (found.key(s.kind), s)
                })
                .collect()
        };
    // The subPath reads of each source, looked up per reference.
    let mut sub_paths_of: HashMap<&SourceKey, Vec<&crate::read::ignore_keys::SubPathRead>> =
        HashMap::new();
    for (key, s) in &sub_paths {
        sub_paths_of.entry(key).or_default().push(s);
    }
    // Most sources list no key: they cost no key built here.
    let unhashed = |kind: SourceKind, found: &Found<'_>| -> Vec<String> {
        let Some(entry) = found.entry.filter(|e| !e.ignored_keys.is_empty()) else {
            return Vec::new();
        };
        let key = &found.key(kind);
        entry
            .ignored_keys
            .iter()
            .filter(|k| {
                !sub_paths_of
                    .get(key)
                    .into_iter()
                    .flatten()
                    .any(|s| s.keys.covers(k))
            })
            .cloned()
            .collect()
    };
    let mut warned: HashSet<&SourceKey> = HashSet::new();
    for (key, s) in &sub_paths {
        let Some(entry) = resolver.index.get(key) else {
            continue;
        };
        let kept: Vec<String> = entry
            .ignored_keys
            .iter()
            .filter(|k| s.keys.covers(k))
            .cloned()
            .collect();
        if kept.is_empty() || !warned.insert(key) {
            continue;
        }
        out.notes.push(Note::Result(
            KrmResult::new(Finding::IgnoredKeysThroughSubPath {
                kind: key.kind,
                name: key.name.clone(),
                keys: kept,
                field: s.field.clone(),
                expr: s.keys == Keys::All,
            })
            .about(tree, item)
            .at_field(s.field.clone()),
        ));
    }

    for r in &refs {
        // Results describe the output: a reference after an inserted env hash moved down.
        let field = output_field(&r.field).unwrap_or_else(|| r.field.clone());
        let namespace = r
            .namespace
            .clone()
            .or_else(|| id.namespace().map(str::to_string));
        let found = resolver.find(r.kind, namespace.as_deref(), &r.name);
        // Another namespace's object is hashed under `namespace/name`, which no name in
        // the workload's own namespace can equal.
        let shown = match &r.namespace {
            Some(ns) if r.namespace.as_deref() != id.namespace() => format!("{ns}/{}", found.name),
            _ => found.name.clone(),
        };
        let status = Status::of(found.entry.map(|s| s.ignored), r.optional);
        let content = found.entry.map(|s| &s.content);
        let missing_keys: Vec<String> = match (content, &r.keys, r.optional, &status) {
            (Some(Ok(content)), Keys::Some(ks), false, Status::Found) => ks
                .iter()
                .filter(|k| !content.open && !content.entries.contains_key(k))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(r.kind));
        out.record(|| Resolved {
            kind: r.kind,
            name: found.name.clone(),
            namespace: namespace.clone(),
            field: field.clone(),
            keys: r.keys.clone(),
            optional: r.optional,
            status: status.clone(),
            missing_keys: missing_keys.clone(),
            via: if r.extra { Via::Extra } else { Via::Pod },
            producer,
            runtime,
            ignored_keys: unhashed(r.kind, &found)
                .into_iter()
                .filter(|k| r.keys.covers(k))
                .collect(),
        });
        if status == Status::Ignored {
            continue;
        }
        let missing = |key: Option<&str>, other| Missing {
            kind: r.kind,
            name: match key {
                Some(_) => found.name.clone(),
                None => shown.clone(),
            },
            key: key.map(str::to_string),
            other,
            container: r.container.clone(),
            field: field.clone(),
            extra: r.extra,
            elsewhere: None,
            also: Vec::new(),
        };
        match content {
            Some(Ok(_)) => {
                for k in &missing_keys {
                    out.report_missing(tree, item, missing(Some(k), None), config);
                }
            }
            Some(Err(_)) => {
                out.failed = true;
                out.notes.push(Note::SourceError(found.key(r.kind)));
            }
            // Made at install time, as the configuration declares: expected to be
            // missing here.
            None if config
                .install_time
                .iter()
                .any(|d| d.matches(r.kind, namespace.as_deref(), &found.name)) => {}
            None if !r.optional => {
                let other = resolver.other_kind(r.kind, &namespace, &found.name);
                let elsewhere = other.is_none().then(|| {
                    resolver
                        .index
                        .namespaces_of(r.kind, &found.name)
                        .find(|ns| **ns != namespace)
                        .cloned()
                });
                let mut m = missing(None, other);
                m.elsewhere = elsewhere.flatten();
                out.report_missing(tree, item, m, config);
            }
            None => {
                // Once per object: a pod may name it in several places.
                let said = reads
                    .get(&(r.kind, shown.clone()))
                    .is_some_and(|read| !read.present);
                if !said {
                    out.notes.push(Note::Result(
                        KrmResult::new(Finding::AbsentUnproduced {
                            kind: r.kind,
                            name: shown.clone(),
                            field: field.clone(),
                        })
                        .about(tree, item)
                        .at_field(field.clone()),
                    ));
                }
            }
        }
        let unhashed_here = unhashed(r.kind, &found);
        let read = reads.entry((r.kind, shown.clone())).or_insert(Read {
            kind: r.kind,
            shown,
            namespace,
            name: found.name,
            keys: Keys::Some(Vec::new()),
            present: found.entry.is_some(),
            unhashed: unhashed_here,
        });
        match (&mut read.keys, config.granularity, &r.keys) {
            (Keys::All, _, _) => {}
            (_, Granularity::Object, _) | (_, _, Keys::All) => read.keys = Keys::All,
            (Keys::Some(set), Granularity::Key, Keys::Some(ks)) => set.extend(ks.iter().cloned()),
        }
    }
    out.reads = reads
        .into_values()
        .map(|mut r| {
            if let Keys::Some(ks) = &mut r.keys {
                ks.sort();
                ks.dedup();
            }
            r
        })
        .collect();
    out
}

impl WorkloadResolution {
    /// Keeps a reference as resolved, when views asked for them (made only then: a
    /// large input resolves many references that stamping alone does not keep).
    fn record(&mut self, r: impl FnOnce() -> Resolved) {
        if self.keep {
            self.references.push(r());
        }
    }

    /// Reports a missing object or key under its final name (after any rename), so that
    /// a second run on the output words it the same.
    fn report_missing(&mut self, tree: &Tree<'_>, item: NodeId, missing: Missing, config: &Config) {
        let severity = match config.on_missing {
            OnMissing::Ignore => return,
            OnMissing::Warn => Severity::Warning,
            OnMissing::Error => Severity::Error,
        };
        self.missing += 1;
        // One object missing, read several ways (env, envFrom, a volume): one finding
        // that names every field, not one per field.
        if missing.key.is_none() {
            let same = |m: &Missing| {
                m.key.is_none()
                    && m.kind == missing.kind
                    && m.name == missing.name
                    && m.extra == missing.extra
            };
            let hash = missing_object_hash(missing.kind, &missing.name, missing.extra);
            let earlier = match self.missing_at.get(&hash) {
                // The finding at that place, unless another object has the same hash.
                Some(&at) => match self.notes.get(at) {
                    Some(Note::Result(r)) if matches!(&*r.finding, Finding::Missing(m) if same(m)) => {
                        Some(at)
                    }
                    _ => self.notes.iter().position(|n| {
                        matches!(n, Note::Result(r) if matches!(&*r.finding, Finding::Missing(m) if same(m)))
                    }),
                },
                None => None,
            };
            if let Some(Note::Result(r)) = earlier.and_then(|at| self.notes.get_mut(at)) {
                if let Finding::Missing(earlier) = &mut *r.finding {
                    earlier.also.push((missing.field, missing.container));
                    return;
                }
            }
            self.missing_at.entry(hash).or_insert(self.notes.len());
        }
        let field = missing.field.clone();
        self.notes.push(Note::Result(
            KrmResult::new(Finding::Missing(Box::new(missing)))
                .with_severity(severity)
                .about(tree, item)
                .at_field(field),
        ));
    }
}

/// The Reloader annotation keys the marker says config-hash wrote (entries trimmed, so
/// reading and rewriting agree on what is ours): those are output, not dependencies.
pub fn reloader_keys_written<'t>(tree: &'t Tree<'_>, item: NodeId) -> Vec<&'t str> {
    crate::model::resource::annotation(tree, item, annotations::RELOADER_WRITTEN)
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|k| annotations::RELOADER_KEYS.iter().any(|(_, r)| r == k))
        .collect()
}

/// The references of one object outside pod specs (an Ingress's TLS Secret, a Role's
/// `resourceNames`, a user-declared field), resolved as a pod's are.
pub fn resolve_names(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
    resolver: Resolver<'_>,
) -> Vec<Resolved> {
    let mut out = Vec::new();
    for r in references::site_refs(tree, item, id, catalog) {
        let Some(text) = tree.str(r.node) else {
            continue;
        };
        let (namespace, name) = match (r.form, text.split_once('/')) {
            (Form::MaybeNamespaced, Some((ns, n))) => (Some(ns.to_string()), n),
            _ => (r.namespace.clone(), text),
        };
        let found = if r.any_namespace {
            resolver.find_any(r.kind, name)
        } else {
            resolver.find(r.kind, namespace.as_deref(), name)
        };
        let namespace = found.namespace.clone();
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(r.kind));
        out.push(Resolved {
            kind: r.kind,
            status: Status::of(found.entry.map(|s| s.ignored), false),
            name: found.name,
            namespace,
            field: r.field,
            keys: Keys::All,
            optional: false,
            missing_keys: Vec::new(),
            via: Via::Name,
            producer,
            runtime,
            ignored_keys: Vec::new(),
        });
    }
    // A Role rule that grants configmaps and secrets names each object once, in one
    // list: a name found as one kind is not missing as the other.
    let found: Vec<(String, String)> = out
        .iter()
        .filter(|r| r.status != Status::Missing)
        .map(|r| (r.field.clone(), r.name.clone()))
        .collect();
    out.retain(|r| {
        r.status != Status::Missing || !found.iter().any(|(f, n)| *f == r.field && *n == r.name)
    });
    out
}

/// What a workload's own manifest says about rolling, read where it is resolved: what
/// `diff`'s gates and `audit` ask of it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Marks {
    /// The name it is known by across renders: the base name of a Job with a hashed name,
    /// else its name.
    pub base_name: String,
    /// A changed pod template replaces its running pods (its catalog row's `rolls`).
    pub rolls: bool,
    /// Annotated `config-hash.dev/protected: "true"`: it rolls only when allowed.
    pub protected: bool,
    /// What already rolls it when what it reads changes, as the manifest stands.
    pub triggers: Vec<Trigger>,
}

/// A way a workload is already made to roll when its ConfigMaps or Secrets change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Trigger {
    /// config-hash's stamp (annotation or env var) is in its pod template.
    Stamp,
    /// A Helm-style `checksum/*` annotation on its pod template.
    Checksum,
    /// Reloader's annotations (`reloader.stakater.com/*`, or an explicit reload list).
    Reloader,
    /// wave's `wave.pusher.com/update-on-config-change`.
    Wave,
}

impl Trigger {
    pub fn as_str(self) -> &'static str {
        match self {
            Trigger::Stamp => "config-hash",
            Trigger::Checksum => "checksum",
            Trigger::Reloader => "reloader",
            Trigger::Wave => "wave",
        }
    }
}

/// Where a renamed ConfigMap or Secret came from, for views that compare two renders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenamedSource {
    pub kind: SourceKind,
    pub namespace: Option<String>,
    pub base: String,
    /// Its name in the output.
    pub name: String,
}

/// One item as resolved, under its name in the output.
#[derive(Debug)]
pub struct ItemResolution {
    pub id: ResourceId,
    /// For a workload: what its manifest says about rolling.
    pub marks: Option<Box<Marks>>,
    /// What its pod template reads, when it is a workload (without its findings, which
    /// are results).
    pub workload: Option<WorkloadResolution>,
    /// Its references outside pod specs.
    pub names: Vec<Resolved>,
}

/// The resolution of a whole input, item by item in input order: what each workload
/// reads, and every name reference outside pod specs. `graph` is a view of it, as any
/// other report on what rolls can be.
#[derive(Debug, Default)]
pub struct Resolution {
    pub items: Vec<ItemResolution>,
    /// Every ConfigMap and Secret under its name in the output: what `diff` compares,
    /// key by key (values stay in memory; no view prints one).
    pub sources: SourceIndex,
    /// The ConfigMaps and Secrets given hashed names, in input order.
    pub renamed: Vec<RenamedSource>,
}
