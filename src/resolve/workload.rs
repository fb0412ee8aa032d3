//! Resolving a workload's pod template: what each of its references finds (the `__data`
//! env vars, the pod spec's references, the annotations that list extra dependencies),
//! what the pod reads of each source and what its hash leaves out, and what is said
//! about it (missing objects and keys, names that cannot be read).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::hash::BuildHasherDefault;

use crate::model::catalog::SourceKind;
use crate::model::catalog::{self, Catalog, WorkloadKind, annotations};
use crate::model::config::{Config, Granularity, OnMissing};
use crate::model::findings::Severity;
use crate::model::findings::{Finding, Missing};
use crate::model::reference::Keys;
use crate::model::reference::{SourceKey, Status, Via};
use crate::model::resource::ResourceId;
use crate::model::result::KrmResult;
use crate::read::data_refs::{DataRef, DataRefs};
use crate::read::ignore_keys::SubPathRead;
use crate::read::references::{self, Reference};
use crate::resolve::resolution::{Note, Read, Resolved, WorkloadResolution};
use crate::resolve::sources::{Found, Resolver};
use crate::yaml::{NodeId, Tree};

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
/// list extra dependencies. Field paths number an env entry among the user's entries
/// (`user_field`: config-hash's own hash entry not counted).
#[allow(clippy::too_many_arguments)]
pub fn resolve_workload(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    kind: &WorkloadKind,
    pod: PodTemplate,
    ctx: &Context<'_>,
    data: &mut DataRefs,
    user_field: &dyn Fn(&str) -> Option<String>,
) -> WorkloadResolution {
    let mut w = Resolving {
        tree,
        item,
        id,
        ctx,
        user_field,
        out: WorkloadResolution::new(ctx.record),
        reads: Reads::new(),
        missing_at: HashMap::default(),
    };
    let spec_path = kind.spec_field();
    let pod_refs = references::find_in_pod(tree, pod.spec, &spec_path, &ctx.catalog.pod_sites);
    let mut refs = w.references(pod_refs.seen);
    if w.names_not_strings(pod_refs.unreadable) {
        return w.out;
    }
    for d in &mut data.refs {
        w.whole_object(d);
    }
    // The references the `__data` convention took are not read again.
    let handled: Vec<NodeId> = data
        .refs
        .iter()
        .filter(|d| d.resolved.is_some())
        .filter_map(|d| d.name_node)
        .collect();
    refs.retain(|r| !handled.contains(&r.name_node));
    let sub_paths = w.sub_path_reads(pod, &spec_path, &refs);
    w.say_ignored_keys_read(&sub_paths);
    let sub_paths = SubPathsOf::of(&sub_paths);
    for r in &refs {
        w.reference(r, &sub_paths);
    }
    w.finish()
}

/// The sources a workload's pod reads as they are gathered, by kind and name as hashed.
type Reads = BTreeMap<(SourceKind, String), Read>;

/// One workload being resolved: what each step reads, and what they gather.
struct Resolving<'a, 't> {
    tree: &'a Tree<'t>,
    item: NodeId,
    id: &'a ResourceId,
    ctx: &'a Context<'a>,
    /// A field path with its env entry numbered among the user's, when that differs.
    user_field: &'a dyn Fn(&str) -> Option<String>,
    out: WorkloadResolution,
    reads: Reads,
    /// Where in `out.notes` the finding about each missing object is, by
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

/// Where one reference of the pod spec or the annotations was looked up, and what it
/// found there.
struct Lookup<'r> {
    /// Its field, an env entry numbered among the user's entries.
    field: String,
    /// The namespace it names, else the workload's.
    namespace: Option<String>,
    found: Found<'r>,
    /// As hashed and reported: `namespace/name` for another namespace's object.
    shown: String,
}

impl Resolving<'_, '_> {
    /// The pod spec's references (`refs`), then those the workload's annotations list, less the
    /// Reloader lists config-hash wrote itself (its output, not dependencies). An
    /// annotation entry that looks like a regular expression is said and not read.
    fn references(&mut self, mut refs: Vec<Reference>) -> Vec<Reference> {
        let (tree, item, catalog) = (self.tree, self.item, self.ctx.catalog);
        let ours = reloader_keys_written(tree, item);
        let sites = catalog
            .annotation_sites
            .iter()
            .filter(|s| !ours.contains(&s.key.as_str()));
        let (extra, regexes) = references::find_annotations(tree, item, sites);
        refs.extend(extra);
        for r in regexes {
            self.out.notes.push(Note::Result(
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
        refs
    }

    /// Whether a reference's name is not a string (a list, a mapping): each is said,
    /// and the workload cannot be resolved.
    fn names_not_strings(&mut self, unreadable: Vec<String>) -> bool {
        let (tree, item) = (self.tree, self.item);
        if unreadable.is_empty() {
            return false;
        }
        self.out.failed = true;
        for field in unreadable {
            self.out.notes.push(Note::Result(
                KrmResult::new(Finding::NameNotString {
                    field: field.clone(),
                })
                .about(tree, item)
                .at_field(field),
            ));
        }
        true
    }

    /// One env var under the `__data` convention, which receives the hash of a whole
    /// object: found under the kind the reference names, else the other kind of that
    /// name, and read whole. One an earlier run recorded whose object is gone is said
    /// (one still written as a reference is read as any reference, and said missing).
    fn whole_object(&mut self, d: &mut DataRef) {
        let (tree, item, resolver) = (self.tree, self.item, self.ctx.resolver);
        let namespace = self.id.namespace();
        let found = [Some(d.named), d.named.other()]
            .into_iter()
            .flatten()
            .map(|k| (k, resolver.find(k, namespace, &d.name)))
            .find(|(_, f)| f.entry.is_some());
        let Some((kind, found)) = found else {
            if d.value_from.is_none() {
                let name = resolver.find(d.named, namespace, &d.name).name;
                self.out.notes.push(Note::Result(
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
            return;
        };
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(kind));
        self.reads.insert(
            (kind, found.name.clone()),
            Read {
                kind,
                shown: found.name.clone(),
                namespace: namespace.map(str::to_string),
                name: found.name.clone(),
                keys: Keys::All,
                present: true,
                unhashed: found
                    .entry
                    .map(|e| e.ignored_keys.to_vec())
                    .unwrap_or_default(),
            },
        );
        self.out.record(|| Resolved {
            kind,
            name: found.name.clone(),
            namespace: namespace.map(str::to_string),
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
        self.out.notes.push(Note::Result(
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

    /// What the pod reads through `subPath` mounts, by the key of each source: looked
    /// for only when some source lists keys to leave out of hashes.
    fn sub_path_reads(
        &self,
        pod: PodTemplate,
        spec_path: &str,
        refs: &[Reference],
    ) -> Vec<(SourceKey, SubPathRead)> {
        let resolver = self.ctx.resolver;
        if !resolver.index.any_ignored_keys() {
            return Vec::new();
        }
        crate::read::ignore_keys::sub_path_reads(self.tree, pod.spec, spec_path, refs)
            .into_iter()
            .map(|s| {
                let found = resolver.find(s.kind, self.id.namespace(), &s.name);
                (found.key(s.kind), s)
            })
            .collect()
    }

    /// Says, once per source, the keys it leaves out of every hash that the pod reads
    /// through a `subPath` mount, which stay hashed: at the first mount that reads any.
    fn say_ignored_keys_read(&mut self, sub_paths: &[(SourceKey, SubPathRead)]) {
        let mut warned: HashSet<&SourceKey> = HashSet::new();
        for (key, s) in sub_paths {
            let Some(entry) = self.ctx.resolver.index.get(key) else {
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
            self.out.notes.push(Note::Result(
                KrmResult::new(Finding::IgnoredKeysThroughSubPath {
                    kind: key.kind,
                    name: key.name.clone(),
                    keys: kept,
                    field: s.field.clone(),
                    expr: s.keys == Keys::All,
                })
                .about(self.tree, self.item)
                .at_field(s.field.clone()),
            ));
        }
    }

    /// One reference of the pod spec or the annotations: what it finds, what is said
    /// when that is not there, and what the pod reads through it.
    fn reference(&mut self, r: &Reference, sub_paths: &SubPathsOf<'_>) {
        // An env entry is numbered among the user's entries: config-hash's own hash
        // entry does not count, so a run on the output says the same.
        let field = (self.user_field)(&r.field).unwrap_or_else(|| r.field.clone());
        let namespace = r
            .namespace
            .clone()
            .or_else(|| self.id.namespace().map(str::to_string));
        let found = self
            .ctx
            .resolver
            .find(r.kind, namespace.as_deref(), &r.name);
        // Another namespace's object is hashed under `namespace/name`, which no name in
        // the workload's own namespace can equal.
        let shown = match &r.namespace {
            Some(ns) if r.namespace.as_deref() != self.id.namespace() => {
                format!("{ns}/{}", found.name)
            }
            _ => found.name.clone(),
        };
        let published = catalog::published_by_cluster(r.kind, &found.name);
        let status = Status::of_named(found.entry.map(|s| s.ignored), r.optional, published);
        let missing_keys = missing_keys(r, &found, &status);
        let (producer, runtime) = found.entry.map_or((None, false), |s| s.made_by(r.kind));
        self.out.record(|| Resolved {
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
            ignored_keys: sub_paths
                .unhashed(r.kind, &found)
                .into_iter()
                .filter(|k| r.keys.covers(k))
                .collect(),
        });
        // Ignored, or the cluster's own: nothing to say, nothing the render holds to hash.
        if matches!(status, Status::Ignored | Status::Cluster) {
            return;
        }
        let at = Lookup {
            field,
            namespace,
            found,
            shown,
        };
        self.say_what_is_missing(r, &at, &missing_keys);
        let unhashed = sub_paths.unhashed(r.kind, &at.found);
        self.add_read(r, at, unhashed);
    }

    /// Says what a reference does not find: each key its object lacks; an object that
    /// cannot be read (the workload fails); a missing object, with one of the other kind
    /// or in another namespace under that name, unless made at install time; an absent
    /// optional object, once per object.
    fn say_what_is_missing(&mut self, r: &Reference, at: &Lookup<'_>, missing_keys: &[String]) {
        let (config, resolver) = (self.ctx.config, self.ctx.resolver);
        let Lookup {
            field,
            namespace,
            found,
            shown,
        } = at;
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
        match found.entry.map(|s| &s.content) {
            Some(Ok(_)) => {
                for k in missing_keys {
                    self.report_missing(missing(Some(k), None));
                }
            }
            Some(Err(_)) => {
                self.out.failed = true;
                self.out.notes.push(Note::SourceError(found.key(r.kind)));
            }
            // Made at install time, as the configuration declares: expected to be
            // missing here.
            None if config
                .install_time
                .iter()
                .any(|d| d.matches(r.kind, namespace.as_deref(), &found.name)) => {}
            None if !r.optional => {
                let other = resolver.other_kind(r.kind, namespace, &found.name);
                let elsewhere = other.is_none().then(|| {
                    resolver
                        .index
                        .namespaces_of(r.kind, &found.name)
                        .find(|ns| *ns != namespace)
                        .cloned()
                });
                let mut m = missing(None, other);
                m.elsewhere = elsewhere.flatten();
                self.report_missing(m);
            }
            None => {
                // Once per object: a pod may name it in several places.
                let said = self
                    .reads
                    .get(&(r.kind, shown.clone()))
                    .is_some_and(|read| !read.present);
                if !said {
                    self.out.notes.push(Note::Result(
                        KrmResult::new(Finding::AbsentUnproduced {
                            kind: r.kind,
                            name: shown.clone(),
                            field: field.clone(),
                        })
                        .about(self.tree, self.item)
                        .at_field(field.clone()),
                    ));
                }
            }
        }
    }

    /// Reports a missing object or key under its final name (after any rename), so that
    /// a second run on the output words it the same; `onMissing` says how, or not at all.
    fn report_missing(&mut self, missing: Missing) {
        let severity = match self.ctx.config.on_missing {
            OnMissing::Ignore => return,
            OnMissing::Warn => Severity::Warning,
            OnMissing::Error => Severity::Error,
        };
        self.out.missing += 1;
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
            let notes = &self.out.notes;
            let earlier = match self.missing_at.get(&hash) {
                // The finding at that place, unless another object has the same hash.
                Some(&at) => match notes.get(at) {
                    Some(Note::Result(r)) if matches!(&*r.finding, Finding::Missing(m) if same(m)) => {
                        Some(at)
                    }
                    _ => notes.iter().position(|n| {
                        matches!(n, Note::Result(r) if matches!(&*r.finding, Finding::Missing(m) if same(m)))
                    }),
                },
                None => None,
            };
            if let Some(Note::Result(r)) = earlier.and_then(|at| self.out.notes.get_mut(at)) {
                if let Finding::Missing(earlier) = &mut *r.finding {
                    earlier.also.push((missing.field, missing.container));
                    return;
                }
            }
            self.missing_at.entry(hash).or_insert(self.out.notes.len());
        }
        let field = missing.field.clone();
        self.out.notes.push(Note::Result(
            KrmResult::new(Finding::Missing(Box::new(missing)))
                .with_severity(severity)
                .about(self.tree, self.item)
                .at_field(field),
        ));
    }

    /// Adds what the pod sees through one reference to what it reads of that source:
    /// every key under `granularity: object` or once a reference sees every key, else
    /// the keys each names.
    fn add_read(&mut self, r: &Reference, at: Lookup<'_>, unhashed: Vec<String>) {
        let read = self
            .reads
            .entry((r.kind, at.shown.clone()))
            .or_insert(Read {
                kind: r.kind,
                shown: at.shown,
                namespace: at.namespace,
                name: at.found.name,
                keys: Keys::Some(Vec::new()),
                present: at.found.entry.is_some(),
                unhashed,
            });
        match (&mut read.keys, self.ctx.config.granularity, &r.keys) {
            (Keys::All, _, _) => {}
            (_, Granularity::Object, _) | (_, _, Keys::All) => read.keys = Keys::All,
            (Keys::Some(set), Granularity::Key, Keys::Some(ks)) => set.extend(ks.iter().cloned()),
        }
    }

    /// What was resolved, with each source's keys sorted, each once.
    fn finish(mut self) -> WorkloadResolution {
        self.out.reads = self
            .reads
            .into_values()
            .map(|mut r| {
                if let Keys::Some(ks) = &mut r.keys {
                    ks.sort();
                    ks.dedup();
                }
                r
            })
            .collect();
        // A view keeps every workload's references to the end of the run: without this
        // each kept one or two would hold room for four (a fifth of `graph`'s peak).
        self.out.references.shrink_to_fit();
        self.out
    }
}

/// The keys a reference names that its object does not have: only for a reference that
/// is not optional, to an object found whose keys are all known (not `open`).
fn missing_keys(r: &Reference, found: &Found<'_>, status: &Status) -> Vec<String> {
    let content = found.entry.map(|s| &s.content);
    match (content, &r.keys, r.optional, status) {
        (Some(Ok(content)), Keys::Some(ks), false, Status::Found) => ks
            .iter()
            .filter(|k| !content.open && !content.entries.contains_key(k))
            .cloned()
            .collect(),
        _ => Vec::new(),
    }
}

/// The `subPath` reads of each source, looked up per reference: keys that stay hashed
/// whatever the object's `config-hash.dev/ignore-keys` say.
struct SubPathsOf<'s>(HashMap<&'s SourceKey, Vec<&'s SubPathRead>>);

impl<'s> SubPathsOf<'s> {
    fn of(sub_paths: &'s [(SourceKey, SubPathRead)]) -> SubPathsOf<'s> {
        let mut of: HashMap<&SourceKey, Vec<&SubPathRead>> = HashMap::new();
        for (key, s) in sub_paths {
            of.entry(key).or_default().push(s);
        }
        SubPathsOf(of)
    }

    /// The keys the object found leaves out of this pod's hash: those it lists, less
    /// those the pod reads through `subPath`. Most sources list no key: they cost no
    /// key built here.
    fn unhashed(&self, kind: SourceKind, found: &Found<'_>) -> Vec<String> {
        let Some(entry) = found.entry.filter(|e| !e.ignored_keys.is_empty()) else {
            return Vec::new();
        };
        let key = &found.key(kind);
        entry
            .ignored_keys
            .iter()
            .filter(|k| {
                !self
                    .0
                    .get(key)
                    .into_iter()
                    .flatten()
                    .any(|s| s.keys.covers(k))
            })
            .cloned()
            .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::catalog::annotations::DATA_REFS;
    use crate::model::config::InstallTime;
    use crate::model::findings::MadeBy;
    use crate::resolve::renames::Renames;
    use crate::resolve::sources::tests::{CM, SECRET, cm, index_of, secret, source};

    /// The pod spec's field path in a Deployment.
    const POD: &str = "spec.template.spec";

    /// What resolving the one workload of `input` gives, with what each `__data` env var
    /// resolved to; `field`: how a field reads in the output.
    fn resolve_as(
        input: &str,
        config: &Config,
        renames: &Renames,
        field: &dyn Fn(&str) -> Option<String>,
    ) -> (WorkloadResolution, Vec<Option<(SourceKind, String)>>) {
        let catalog = Catalog::builtin();
        let tree = crate::yaml::parse(input).unwrap();
        let index = index_of(&tree, config, &catalog, renames);
        let (item, kind) = tree
            .documents()
            .iter()
            .find_map(|d| {
                let id = ResourceId::of(&tree, d.root());
                Some((d.root(), catalog.workload(id.api_version(), id.kind())?))
            })
            .expect("a workload");
        let id = config.placed(ResourceId::of(&tree, item));
        let pod = PodTemplate::of(&tree, item, kind).expect("a pod template");
        let ctx = Context {
            config,
            catalog: &catalog,
            resolver: Resolver {
                index: &index,
                renames,
            },
            record: true,
        };
        let mut data = DataRefs::find(&tree, pod.spec, pod.template, &kind.spec_field());
        let out = resolve_workload(&tree, item, &id, kind, pod, &ctx, &mut data, field);
        (out, data.refs.into_iter().map(|d| d.resolved).collect())
    }

    fn resolve_with(input: &str, config: &Config) -> WorkloadResolution {
        resolve_as(input, config, &Renames::default(), &|_| None).0
    }

    fn resolve(input: &str) -> WorkloadResolution {
        resolve_with(input, &Config::default())
    }

    /// A Deployment `web` in namespace `shop` with this pod spec (and these annotations).
    fn web(pod: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop}}\nspec:\n  template:\n    spec: {pod}\n"
        )
    }

    fn web_annotated(annotations: &str, pod: &str) -> String {
        format!(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop, annotations: {annotations}}}\nspec:\n  template:\n    spec: {pod}\n"
        )
    }

    /// The findings among the notes, in order.
    fn findings(out: &WorkloadResolution) -> Vec<&Finding> {
        out.notes
            .iter()
            .filter_map(|n| match n {
                Note::Result(r) => Some(&*r.finding),
                Note::SourceError(_) => None,
            })
            .collect()
    }

    fn missing(out: &WorkloadResolution) -> Vec<&Missing> {
        findings(out)
            .into_iter()
            .filter_map(|f| match f {
                Finding::Missing(m) => Some(&**m),
                _ => None,
            })
            .collect()
    }

    fn statuses(out: &WorkloadResolution) -> Vec<(&str, Status)> {
        out.references
            .iter()
            .map(|r| (r.name.as_str(), r.status.clone()))
            .collect()
    }

    /// Each source read: as shown, its keys, whether present, what is left unhashed.
    fn reads(out: &WorkloadResolution) -> Vec<(SourceKind, &str, Keys, bool, Vec<&str>)> {
        out.reads
            .iter()
            .map(|r| {
                let unhashed = r.unhashed.iter().map(String::as_str).collect();
                (
                    r.kind,
                    r.shown.as_str(),
                    r.keys.clone(),
                    r.present,
                    unhashed,
                )
            })
            .collect()
    }

    fn some(keys: &[&str]) -> Keys {
        Keys::Some(keys.iter().map(|k| k.to_string()).collect())
    }

    fn env(var: &str, site: &str, name: &str, key: &str) -> String {
        format!("{{name: {var}, valueFrom: {{{site}: {{name: {name}, key: {key}}}}}}}")
    }

    #[test]
    fn a_reference_is_found_missing_optional_absent_or_ignored() {
        let input = web(
            "{containers: [{name: app, envFrom: [{configMapRef: {name: found}}, {configMapRef: {name: gone}}, {configMapRef: {name: maybe, optional: true}}, {secretRef: {name: quiet}}]}]}",
        ) + &cm("found", "data: {a: '1'}")
            + &source("Secret", "shop", "quiet", "data: {a: '%%%'}").replace(
                "name: quiet",
                "name: quiet, annotations: {config-hash.dev/ignore: 'true'}",
            );
        let out = resolve(&input);
        assert_eq!(
            statuses(&out),
            [
                ("found", Status::Found),
                ("gone", Status::Missing),
                ("maybe", Status::OptionalAbsent),
                ("quiet", Status::Ignored),
            ]
        );
        let r = &out.references[0];
        assert_eq!(
            (r.namespace.as_deref(), r.via, &r.keys, r.optional),
            (Some("shop"), Via::Pod, &Keys::All, false)
        );
        assert!(out.references[2].optional);
        assert_eq!(
            out.references[1].field,
            format!("{POD}.containers[0].envFrom[1].configMapRef")
        );
        // An ignored object is not read (not even when its content cannot be), and a
        // missing one is hashed as absent.
        assert!(!out.failed);
        assert_eq!(
            reads(&out),
            [
                (CM, "found", Keys::All, true, vec![]),
                (CM, "gone", Keys::All, false, vec![]),
                (CM, "maybe", Keys::All, false, vec![]),
            ]
        );
        assert_eq!(out.missing, 1);
        assert_eq!(
            findings(&out),
            [
                &Finding::Missing(Box::new(Missing {
                    kind: CM,
                    name: "gone".into(),
                    key: None,
                    other: None,
                    container: Some("app".into()),
                    field: format!("{POD}.containers[0].envFrom[1].configMapRef"),
                    extra: false,
                    elsewhere: None,
                    also: Vec::new(),
                })),
                &Finding::AbsentUnproduced {
                    kind: CM,
                    name: "maybe".into(),
                    field: format!("{POD}.containers[0].envFrom[2].configMapRef"),
                },
            ]
        );
    }

    #[test]
    fn missing_keys_are_those_a_non_optional_reference_names_in_a_found_closed_object() {
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}, {}, {}, {}, {}]}}]}}",
            env("A", "configMapKeyRef", "cfg", "a"),
            env("B", "configMapKeyRef", "cfg", "b"),
            "{name: C, valueFrom: {configMapKeyRef: {name: cfg, key: c, optional: true}}}",
            env("Z", "secretKeyRef", "quiet", "z"),
            env("X", "secretKeyRef", "ext", "x"),
            env("Y", "secretKeyRef", "gone", "y"),
        );
        let input = web(&pod)
            + &cm("cfg", "data: {a: '1'}")
            + &secret("quiet", "data: {a: Yg==}").replace(
                "name: quiet",
                "name: quiet, annotations: {config-hash.dev/ignore: 'true'}",
            )
            // Its keys beyond `data` are known only where it runs (`dataFrom`).
            + "---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: ext, namespace: shop}\nspec: {data: [{secretKey: k, remoteRef: {key: r}}], dataFrom: [{extract: {key: x}}]}\n";
        let out = resolve(&input);
        let keys: Vec<(&str, Vec<&str>)> = out
            .references
            .iter()
            .map(|r| {
                let missing = r.missing_keys.iter().map(String::as_str).collect();
                (r.name.as_str(), missing)
            })
            .collect();
        assert_eq!(
            keys,
            [
                ("cfg", vec![]),
                ("cfg", vec!["b"]),
                ("cfg", vec![]),
                ("quiet", vec![]),
                ("ext", vec![]),
                ("gone", vec![]),
            ]
        );
        let m = missing(&out);
        assert_eq!(m.len(), 2, "{m:?}");
        assert_eq!(
            m[0],
            &Missing {
                kind: CM,
                name: "cfg".into(),
                key: Some("b".into()),
                other: None,
                container: Some("app".into()),
                field: format!("{POD}.containers[0].env[1].valueFrom.configMapKeyRef"),
                extra: false,
                elsewhere: None,
                also: Vec::new(),
            }
        );
        assert_eq!((m[1].name.as_str(), m[1].key.as_deref()), ("gone", None));
        assert_eq!(out.missing, 2);
        // The keys each source is hashed with: those named, sorted.
        assert_eq!(
            reads(&out),
            [
                (CM, "cfg", some(&["a", "b", "c"]), true, vec![]),
                (SECRET, "ext", some(&["x"]), true, vec![]),
                (SECRET, "gone", some(&["y"]), false, vec![]),
            ]
        );
    }

    #[test]
    fn another_namespace_is_hashed_as_namespace_and_name_and_the_own_as_the_name() {
        let annotations =
            "{config-hash.dev/extra-configmaps: 'other/cfg, shop/own, plain, other/none'}";
        let input = web_annotated(annotations, "{containers: []}")
            + &source("ConfigMap", "other", "cfg", "data: {a: '1'}")
            + &cm("own", "data: {a: '1'}")
            + &cm("plain", "data: {a: '1'}");
        let out = resolve(&input);
        assert_eq!(
            reads(&out),
            [
                (CM, "other/cfg", Keys::All, true, vec![]),
                (CM, "other/none", Keys::All, false, vec![]),
                (CM, "own", Keys::All, true, vec![]),
                (CM, "plain", Keys::All, true, vec![]),
            ]
        );
        let looked_up: Vec<(Option<&str>, &str)> = out
            .reads
            .iter()
            .map(|r| (r.namespace.as_deref(), r.name.as_str()))
            .collect();
        assert_eq!(
            looked_up,
            [
                (Some("other"), "cfg"),
                (Some("other"), "none"),
                (Some("shop"), "own"),
                (Some("shop"), "plain"),
            ]
        );
        let r = &out.references[0];
        assert_eq!(
            (
                r.name.as_str(),
                r.namespace.as_deref(),
                r.via,
                r.status.clone()
            ),
            ("cfg", Some("other"), Via::Extra, Status::Found)
        );
        let field = "metadata.annotations[config-hash.dev/extra-configmaps]";
        assert_eq!(r.field, field);
        assert_eq!(
            missing(&out),
            [&Missing {
                kind: CM,
                name: "other/none".into(),
                key: None,
                other: None,
                container: None,
                field: field.into(),
                extra: true,
                elsewhere: None,
                also: Vec::new(),
            }]
        );
        // Written without a namespace, the workload still hashes another's as such.
        let input = input.replace("namespace: shop, annotations", "annotations");
        let out = resolve(&input);
        let shown: Vec<(&str, bool)> = out
            .reads
            .iter()
            .map(|r| (r.shown.as_str(), r.present))
            .collect();
        assert_eq!(
            shown,
            [
                ("other/cfg", true),
                ("other/none", false),
                ("plain", false),
                ("shop/own", true),
            ]
        );
    }

    #[test]
    fn granularity_object_reads_every_key_and_key_the_union_of_those_named() {
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}, {}]}}]}}",
            env("B", "configMapKeyRef", "cfg", "b"),
            env("A", "configMapKeyRef", "cfg", "a"),
            env("B2", "configMapKeyRef", "cfg", "b"),
        );
        let input = web(&pod) + &cm("cfg", "data: {a: '1', b: '2', c: '3'}");
        let out = resolve(&input);
        assert_eq!(reads(&out), [(CM, "cfg", some(&["a", "b"]), true, vec![])]);
        assert_eq!(out.references[0].keys, some(&["b"]));
        let object = Config {
            granularity: Granularity::Object,
            ..Config::default()
        };
        let out = resolve_with(&input, &object);
        assert_eq!(reads(&out), [(CM, "cfg", Keys::All, true, vec![])]);
        // Each reference still says what it names.
        assert_eq!(out.references[1].keys, some(&["a"]));
    }

    #[test]
    fn a_reference_that_sees_every_key_wins_whichever_comes_first() {
        let key = env("A", "configMapKeyRef", "cfg", "a");
        let all = "{configMapRef: {name: cfg}}";
        let input = |pod: String| web(&pod) + &cm("cfg", "data: {a: '1', b: '2'}");
        let after = resolve(&input(format!(
            "{{containers: [{{name: app, env: [{key}], envFrom: [{all}]}}]}}"
        )));
        // envFrom comes after env in a container's references: the first sees a key.
        assert_eq!(after.references[0].keys, some(&["a"]));
        assert_eq!(reads(&after), [(CM, "cfg", Keys::All, true, vec![])]);
        // A volume's `items` come after envFrom: the second sees one key.
        let before = resolve(&input(format!(
            "{{containers: [{{name: app, envFrom: [{all}]}}], volumes: [{{name: v, configMap: {{name: cfg, items: [{{key: a, path: a}}]}}}}]}}"
        )));
        assert_eq!(before.references[0].keys, Keys::All);
        assert_eq!(before.references[1].keys, some(&["a"]));
        assert_eq!(reads(&before), [(CM, "cfg", Keys::All, true, vec![])]);
    }

    /// A ConfigMap `cfg` that leaves keys a, b and c out of every hash.
    fn cfg_ignoring_keys() -> String {
        cm("cfg", "data: {a: '1', b: '2', c: '3', d: '4'}").replace(
            "name: cfg",
            "name: cfg, annotations: {config-hash.dev/ignore-keys: 'c, b, a'}",
        )
    }

    fn sub_path_finding(out: &WorkloadResolution) -> Vec<(Vec<&str>, &str, bool)> {
        findings(out)
            .into_iter()
            .filter_map(|f| match f {
                Finding::IgnoredKeysThroughSubPath {
                    kind: CM,
                    name,
                    keys,
                    field,
                    expr,
                } if name == "cfg" => Some((
                    keys.iter().map(String::as_str).collect(),
                    field.as_str(),
                    *expr,
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn keys_read_through_a_sub_path_stay_hashed_and_are_said_once_per_source() {
        // The first mount reads a key the object does not ignore: nothing to say there,
        // and the source is not taken as said for the mounts after it.
        let mounts = "[{name: v, mountPath: /d, subPath: d}, {name: v, mountPath: /a, subPath: a}, {name: v, mountPath: /a2, subPath: a}, {name: v, mountPath: /b, subPath: b}]";
        let pod = format!(
            "{{containers: [{{name: app, volumeMounts: {mounts}, env: [{}, {}]}}], volumes: [{{name: v, configMap: {{name: cfg}}}}]}}",
            env("C", "configMapKeyRef", "cfg", "c"),
            env("D", "configMapKeyRef", "cfg", "d"),
        );
        let out = resolve(&(web(&pod) + &cfg_ignoring_keys()));
        assert_eq!(
            sub_path_finding(&out),
            [(
                vec!["a"],
                "spec.template.spec.containers[0].volumeMounts[1]",
                false
            )]
        );
        assert_eq!(reads(&out), [(CM, "cfg", Keys::All, true, vec!["c"])]);
        let ignored: Vec<(&Keys, Vec<&str>)> = out
            .references
            .iter()
            .map(|r| (&r.keys, r.ignored_keys.iter().map(String::as_str).collect()))
            .collect();
        assert_eq!(
            ignored,
            [
                (&some(&["c"]), vec!["c"]),
                (&some(&["d"]), vec![]),
                (&Keys::All, vec!["c"]),
            ]
        );
        // Mounts of keys it does not ignore only: nothing to say.
        let pod = pod
            .replace("subPath: a", "subPath: d")
            .replace("subPath: b", "subPath: d");
        let out = resolve(&(web(&pod) + &cfg_ignoring_keys()));
        assert_eq!(sub_path_finding(&out), []);
        assert_eq!(reads(&out)[0].4, ["a", "b", "c"]);
    }

    #[test]
    fn a_sub_path_expr_keeps_every_ignored_key_hashed() {
        let pod = "{containers: [{name: app, volumeMounts: [{name: v, mountPath: /x, subPathExpr: $(POD)}]}], volumes: [{name: v, configMap: {name: cfg}}]}";
        let out = resolve(&(web(pod) + &cfg_ignoring_keys()));
        assert_eq!(
            sub_path_finding(&out),
            [(
                vec!["a", "b", "c"],
                "spec.template.spec.containers[0].volumeMounts[0]",
                true
            )]
        );
        assert_eq!(reads(&out), [(CM, "cfg", Keys::All, true, vec![])]);
        assert!(out.references[0].ignored_keys.is_empty());
        // Without the mount, the ignored keys are left out.
        let out = resolve(
            &(web(&pod.replace("subPathExpr: $(POD)", "readOnly: true")) + &cfg_ignoring_keys()),
        );
        assert_eq!(
            reads(&out),
            [(CM, "cfg", Keys::All, true, vec!["a", "b", "c"])]
        );
    }

    #[test]
    fn a_whole_object_reference_is_found_under_its_kind_else_the_other() {
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}, {}, {}, {}]}}]}}",
            env("H", "configMapKeyRef", "app", "__data"),
            env("S", "configMapKeyRef", "only-secret", "__data"),
            env("B", "secretKeyRef", "both", "__data"),
            env("G", "secretKeyRef", "gone", "__data"),
            "{name: R, value: old}",
        );
        let input = web(&pod).replace(
            "  template:\n",
            &format!("  template:\n    metadata: {{annotations: {{{DATA_REFS}: app/R=ConfigMap/was-here}}}}\n"),
        ) + &cm("app", "data: {x: '1', y: '2'}").replace(
            "name: app",
            "name: app, annotations: {config-hash.dev/ignore-keys: x}",
        ) + &secret("only-secret", "data: {a: Yg==}")
            + &cm("both", "data: {a: '1'}")
            + &secret("both", "data: {a: Yg==}");
        let (out, data) = resolve_as(&input, &Config::default(), &Renames::default(), &|_| None);
        assert_eq!(
            data,
            [
                Some((CM, "app".to_string())),
                Some((SECRET, "only-secret".to_string())),
                Some((SECRET, "both".to_string())),
                None,
                None,
            ]
        );
        assert_eq!(
            reads(&out),
            [
                (CM, "app", Keys::All, true, vec!["x"]),
                (SECRET, "both", Keys::All, true, vec![]),
                (SECRET, "gone", some(&["__data"]), false, vec![]),
                (SECRET, "only-secret", Keys::All, true, vec![]),
            ]
        );
        let r = &out.references[0];
        assert_eq!(
            (
                r.kind,
                r.name.as_str(),
                r.field.as_str(),
                &r.keys,
                r.status.clone()
            ),
            (
                CM,
                "app",
                "spec.template.spec.containers[0].env[0]",
                &Keys::All,
                Status::Found
            )
        );
        assert_eq!(r.ignored_keys, ["x"]);
        // The references it took are not read again (no key `__data` is missing); one
        // whose object is gone is, as any reference.
        let rest: Vec<(SourceKind, &str)> = out.references[3..]
            .iter()
            .map(|r| (r.kind, r.name.as_str()))
            .collect();
        assert_eq!(rest, [(SECRET, "gone")]);
        let container = "spec.template.spec.containers[0]".to_string();
        let whole = |var: &str, kind, name: &str| Finding::WholeObject {
            var: var.into(),
            container: "app".into(),
            kind,
            name: name.into(),
        };
        assert_eq!(
            findings(&out),
            [
                &whole("H", CM, "app"),
                &whole("S", SECRET, "only-secret"),
                &whole("B", SECRET, "both"),
                // Recorded by an earlier run, and gone: said. A reference still in the
                // spec is reported missing instead.
                &Finding::WholeObjectGone {
                    var: "R".into(),
                    container: "app".into(),
                    kind: CM,
                    name: "was-here".into(),
                },
                &Finding::Missing(Box::new(Missing {
                    kind: SECRET,
                    name: "gone".into(),
                    key: None,
                    other: None,
                    container: Some("app".into()),
                    field: format!("{container}.env[3].valueFrom.secretKeyRef"),
                    extra: false,
                    elsewhere: None,
                    also: Vec::new(),
                })),
            ]
        );
        let fields: Vec<Option<&str>> = out
            .notes
            .iter()
            .take(4)
            .map(|n| match n {
                Note::Result(r) => r.field.as_deref(),
                Note::SourceError(_) => None,
            })
            .collect();
        assert_eq!(fields, [Some(container.as_str()); 4]);
    }

    #[test]
    fn a_whole_object_reference_finds_a_renamed_object_under_its_final_name() {
        let mut renames = Renames::default();
        renames.add(CM, Some("shop"), "app", "app", "app-5t7tcg6b9h");
        renames.add(CM, Some("shop"), "old", "old", "old-5t7tcg6b9h");
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}]}}]}}",
            env("H", "configMapKeyRef", "app", "__data"),
            "{name: R, value: x}",
        );
        let input = web(&pod).replace(
            "  template:\n",
            &format!(
                "  template:\n    metadata: {{annotations: {{{DATA_REFS}: app/R=ConfigMap/old}}}}\n"
            ),
        ) + &cm("app", "data: {a: '1'}");
        let (out, data) = resolve_as(&input, &Config::default(), &renames, &|_| None);
        assert_eq!(data, [Some((CM, "app-5t7tcg6b9h".to_string())), None]);
        assert_eq!(
            reads(&out),
            [(CM, "app-5t7tcg6b9h", Keys::All, true, vec![])]
        );
        assert!(findings(&out).contains(&&Finding::WholeObjectGone {
            var: "R".into(),
            container: "app".into(),
            kind: CM,
            name: "old-5t7tcg6b9h".into(),
        }));
    }

    #[test]
    fn an_object_made_at_install_time_is_not_missing() {
        let pod = "{containers: [{name: app, envFrom: [{secretRef: {name: db}}, {secretRef: {name: other}}]}]}";
        let config = Config {
            install_time: InstallTime::parse_list("Secret/shop/db, Secret/elsewhere/other")
                .unwrap(),
            ..Config::default()
        };
        let out = resolve_with(&web(pod), &config);
        assert_eq!(
            statuses(&out),
            [("db", Status::Missing), ("other", Status::Missing)]
        );
        let m = missing(&out);
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].name, "other");
        assert_eq!(out.missing, 1);
        assert_eq!(findings(&out).len(), 1, "nor absent and unproduced");
        assert_eq!(
            reads(&out),
            [
                (SECRET, "db", Keys::All, false, vec![]),
                (SECRET, "other", Keys::All, false, vec![]),
            ]
        );
    }

    #[test]
    fn on_missing_sets_the_severity_of_what_is_missing_and_whether_it_counts() {
        let pod = format!(
            "{{containers: [{{name: app, env: [{}], envFrom: [{{secretRef: {{name: db}}}}]}}]}}",
            env("A", "configMapKeyRef", "cfg", "nope"),
        );
        let input = web(&pod) + &cm("cfg", "data: {a: '1'}");
        for (on_missing, severity) in [
            (OnMissing::Warn, Some(Severity::Warning)),
            (OnMissing::Error, Some(Severity::Error)),
            (OnMissing::Ignore, None),
        ] {
            let config = Config {
                on_missing,
                ..Config::default()
            };
            let out = resolve_with(&input, &config);
            let severities: Vec<Severity> = out
                .notes
                .iter()
                .filter_map(|n| match n {
                    Note::Result(r) => Some(r.severity),
                    Note::SourceError(_) => None,
                })
                .collect();
            let expected: Vec<Severity> = severity.into_iter().chain(severity).collect();
            assert_eq!(severities, expected, "{on_missing:?}");
            assert_eq!(out.missing, expected.len(), "{on_missing:?}");
            // Said about the workload, at the field.
            for n in &out.notes {
                let Note::Result(r) = n else { panic!() };
                assert_eq!(r.resource.as_ref().map(ResourceId::name), Some("web"));
                assert!(r.field.as_ref().is_some_and(|f| f.starts_with(POD)));
            }
            assert_eq!(
                statuses(&out),
                [("cfg", Status::Found), ("db", Status::Missing)]
            );
            assert_eq!(out.references[0].missing_keys, ["nope"]);
        }
    }

    #[test]
    fn an_absent_optional_object_is_said_once() {
        let optional = |var: &str| {
            format!(
                "{{name: {var}, valueFrom: {{configMapKeyRef: {{name: maybe, key: k, optional: true}}}}}}"
            )
        };
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}]}}]}}",
            optional("A"),
            optional("B")
        );
        let out = resolve(&web(&pod));
        assert_eq!(
            findings(&out),
            [&Finding::AbsentUnproduced {
                kind: CM,
                name: "maybe".into(),
                field: format!("{POD}.containers[0].env[0].valueFrom.configMapKeyRef"),
            }]
        );
        assert_eq!(out.missing, 0);
        // After a reference that is not optional, it is missing instead.
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}]}}]}}",
            env("A", "configMapKeyRef", "maybe", "k"),
            optional("B")
        );
        let out = resolve(&web(&pod));
        let said: Vec<bool> = findings(&out)
            .iter()
            .map(|f| matches!(f, Finding::Missing(_)))
            .collect();
        assert_eq!(said, [true]);
        // Before one, both are said.
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}]}}]}}",
            optional("A"),
            env("B", "configMapKeyRef", "maybe", "k"),
        );
        let out = resolve(&web(&pod));
        let said: Vec<bool> = findings(&out)
            .iter()
            .map(|f| matches!(f, Finding::Missing(_)))
            .collect();
        assert_eq!(said, [false, true]);
        assert_eq!(
            statuses(&out),
            [
                ("maybe", Status::OptionalAbsent),
                ("maybe", Status::Missing)
            ]
        );
    }

    #[test]
    fn a_missing_object_names_one_of_the_other_kind_or_in_another_namespace() {
        let pod = "{containers: [{name: app, envFrom: [{configMapRef: {name: creds}}, {configMapRef: {name: sealed}}, {configMapRef: {name: far}}, {configMapRef: {name: bare}}, {configMapRef: {name: nowhere}}, {secretRef: {name: cfg}}]}]}";
        let input = web(pod)
            + &secret("creds", "data: {a: Yg==}")
            + "---\napiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: sealed, namespace: shop}\nspec: {encryptedData: {a: AgB1}}\n"
            + &source("ConfigMap", "other", "far", "data: {a: '1'}")
            + &source("ConfigMap", "", "bare", "data: {a: '1'}")
            // Of the other kind here, and of this kind elsewhere: the other kind is said.
            + &cm("cfg", "data: {a: '1'}")
            + &source("Secret", "other", "cfg", "data: {a: Yg==}");
        let out = resolve(&input);
        type Hint<'o> = (
            &'o str,
            &'o Option<(SourceKind, Option<MadeBy>)>,
            &'o Option<Option<String>>,
        );
        let hints: Vec<Hint<'_>> = missing(&out)
            .into_iter()
            .map(|m| (m.name.as_str(), &m.other, &m.elsewhere))
            .collect();
        let sealed = Some(MadeBy {
            kind: "SealedSecret".into(),
            name: "sealed".into(),
        });
        assert_eq!(
            hints,
            [
                ("creds", &Some((SECRET, None)), &None),
                ("sealed", &Some((SECRET, sealed)), &None),
                ("far", &None, &Some(Some("other".to_string()))),
                ("bare", &None, &Some(None)),
                ("nowhere", &None, &None),
                ("cfg", &Some((CM, None)), &None),
            ]
        );
    }

    #[test]
    fn a_name_that_is_not_a_string_fails_the_workload() {
        let pod = "{containers: [{name: app, envFrom: [{configMapRef: {name: cfg}}, {configMapRef: {name: [a]}}]}]}";
        let input = web_annotated("{secret.reloader.stakater.com/reload: 'db-.*'}", pod)
            + &cm("cfg", "data: {a: '1'}");
        let out = resolve(&input);
        assert!(out.failed);
        assert!(out.reads.is_empty() && out.references.is_empty());
        assert_eq!(
            findings(&out),
            [
                &Finding::RegexEntry {
                    field: "metadata.annotations[secret.reloader.stakater.com/reload]".into(),
                    entry: "db-.*".into(),
                    tool: "Reloader".into(),
                    kind: SECRET,
                },
                &Finding::NameNotString {
                    field: format!("{POD}.containers[0].envFrom[1].configMapRef.name"),
                },
            ]
        );
        let Note::Result(r) = &out.notes[1] else {
            panic!()
        };
        assert_eq!(
            r.field.as_deref(),
            Some(format!("{POD}.containers[0].envFrom[1].configMapRef.name").as_str())
        );
        let out = resolve(&input.replace("name: [a]", "name: a"));
        assert!(!out.failed);
    }

    #[test]
    fn a_source_that_cannot_be_read_fails_the_workload_once_noted() {
        let pod = "{containers: [{name: app, envFrom: [{secretRef: {name: bad}}, {secretRef: {name: good}}]}]}";
        let input =
            web(pod) + &secret("bad", "data: {a: '%%%'}") + &secret("good", "data: {a: Yg==}");
        let out = resolve(&input);
        assert!(out.failed);
        let errors: Vec<&SourceKey> = out
            .notes
            .iter()
            .filter_map(|n| match n {
                Note::SourceError(k) => Some(k),
                Note::Result(_) => None,
            })
            .collect();
        assert_eq!(errors, [&SourceKey::new(SECRET, Some("shop"), "bad")]);
        assert_eq!(out.notes.len(), 1);
        assert_eq!(
            statuses(&out),
            [("bad", Status::Found), ("good", Status::Found)]
        );
        assert!(!resolve(&input.replace("'%%%'", "Yg==")).failed);
    }

    #[test]
    fn annotation_lists_config_hash_wrote_itself_are_not_read() {
        let annotations = format!(
            "{{secret.reloader.stakater.com/reload: db, configmap.reloader.stakater.com/reload: cfg, {}: ' secret.reloader.stakater.com/reload ,other'}}",
            annotations::RELOADER_WRITTEN
        );
        let input = web_annotated(&annotations, "{containers: []}");
        let out = resolve(&input);
        assert_eq!(statuses(&out), [("cfg", Status::Missing)]);
        assert_eq!(out.references[0].via, Via::Extra);
        let tree = crate::yaml::parse(&input).unwrap();
        let item = tree.documents()[0].root();
        assert_eq!(
            reloader_keys_written(&tree, item),
            ["secret.reloader.stakater.com/reload"]
        );
    }

    /// `kube-root-ca.crt` is the cluster's: there when the input lacks it, never hashed;
    /// a render that holds one is read as any object.
    #[test]
    fn the_ca_bundle_the_cluster_publishes_is_not_missing_and_not_hashed() {
        let pod = "{containers: [{name: app, envFrom: [{configMapRef: {name: kube-root-ca.crt}}, {secretRef: {name: kube-root-ca.crt}}]}]}";
        let out = resolve(&web(pod));
        assert_eq!(
            statuses(&out),
            [
                ("kube-root-ca.crt", Status::Cluster),
                ("kube-root-ca.crt", Status::Missing)
            ]
        );
        assert_eq!(missing(&out).len(), 1);
        assert_eq!(out.reads.len(), 1);
        assert_eq!(out.reads[0].kind, SourceKind::Secret);
        let out = resolve(&(web(pod) + &cm("kube-root-ca.crt", "data: {ca.crt: x}")));
        assert_eq!(statuses(&out)[0], ("kube-root-ca.crt", Status::Found));
        assert_eq!(out.reads.len(), 2);
    }

    #[test]
    fn fields_are_worded_through_user_field() {
        let pod = format!(
            "{{containers: [{{name: app, env: [{}, {}]}}]}}",
            env("A", "configMapKeyRef", "gone", "a"),
            "{name: B, valueFrom: {configMapKeyRef: {name: maybe, key: b, optional: true}}}",
        );
        let moved = |f: &str| f.contains("env[").then(|| f.replace("env[", "env[+"));
        let (out, _) = resolve_as(&web(&pod), &Config::default(), &Renames::default(), &moved);
        let fields: Vec<&str> = out.references.iter().map(|r| r.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "spec.template.spec.containers[0].env[+0].valueFrom.configMapKeyRef",
                "spec.template.spec.containers[0].env[+1].valueFrom.configMapKeyRef",
            ]
        );
        let said: Vec<Option<&str>> = out
            .notes
            .iter()
            .map(|n| match n {
                Note::Result(r) => r.field.as_deref(),
                Note::SourceError(_) => None,
            })
            .collect();
        assert_eq!(said, fields.iter().map(|f| Some(*f)).collect::<Vec<_>>());
        assert_eq!(missing(&out)[0].field, fields[0]);
    }

    #[test]
    fn a_reference_says_who_makes_its_object_and_whether_it_changes_outside_git() {
        let pod = "{containers: [{name: app, envFrom: [{secretRef: {name: sealed}}, {secretRef: {name: ext}}, {secretRef: {name: plain}}]}]}";
        let input = web(pod)
            + "---\napiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata: {name: sealed, namespace: shop}\nspec: {encryptedData: {a: AgB1}}\n"
            + "---\napiVersion: external-secrets.io/v1\nkind: ExternalSecret\nmetadata: {name: ext, namespace: shop}\nspec: {data: [{secretKey: k, remoteRef: {key: r}}]}\n"
            + &secret("plain", "data: {a: Yg==}");
        let out = resolve(&input);
        let made: Vec<(Option<&str>, bool)> = out
            .references
            .iter()
            .map(|r| (r.producer.as_ref().map(ResourceId::kind), r.runtime))
            .collect();
        assert_eq!(
            made,
            [
                (Some("SealedSecret"), false),
                (Some("ExternalSecret"), true),
                (None, false),
            ]
        );
    }

    #[test]
    fn a_pod_template_is_a_mapping_with_a_spec_mapping() {
        let catalog = Catalog::builtin();
        let template = |spec: &str| {
            let input = format!(
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{template: {spec}}}\n"
            );
            let tree = crate::yaml::parse(&input).unwrap();
            let item = tree.documents()[0].root();
            let kind = catalog.workload("apps/v1", "Deployment").unwrap();
            PodTemplate::of(&tree, item, kind)
                .map(|p| (tree.is_map(p.template), tree.is_map(p.spec)))
        };
        assert_eq!(template("{spec: {containers: []}}"), Some((true, true)));
        assert_eq!(template("{spec: []}"), None);
        assert_eq!(template("{metadata: {}}"), None);
        assert_eq!(template("[{spec: {}}]"), None);
    }
}
