//! Pass 1: per chunk, the ConfigMaps and Secrets (and what producers make) with their
//! content and rename decisions; between the passes, the renames and the index of every
//! source under its final name.

use std::collections::HashMap;
use std::hash::BuildHasher;

use rayon::prelude::*;

use crate::model::catalog::{Catalog, SourceKind};
use crate::model::config::Config;
use crate::model::findings::Finding;
use crate::model::reference::SourceKey;
use crate::model::resource::{ResourceId, is_local_config};
use crate::model::result::KrmResult;
use crate::model::settings::Settings;
use crate::read::{self, chunks::Chunk};
use crate::resolve::renames::{self, Decision, Renames, Renaming};
use crate::resolve::sources::{self, SourceEntry, SourceIndex};
use crate::run::frame::{Frame, Stop};
use crate::yaml::{Context, NodeId, Splices, Tree};

/// A ConfigMap or Secret as pass 1 saw it.
pub(crate) struct SourceSeen {
    kind: SourceKind,
    /// Boxed, to move into the index as it is.
    entry: Box<SourceEntry>,
    decision: Decision,
    /// Its own rename, made here when it is renamed (see [`Work::Settled`]).
    own: Option<Box<OwnRename>>,
}

/// A renamed ConfigMap's or Secret's edits to itself, made in pass 1, where its
/// new name is known: what pass 2 would report for it, when its chunk holds nothing
/// else for pass 2 to read.
pub(crate) struct OwnRename {
    /// The chunk it is in, by position.
    pub(crate) chunk: usize,
    /// As written (see [`written_id`]), when pass 2 reports ids. (Where it was placed
    /// matters only to the references an item makes, and it makes none.)
    pub(crate) id: Option<ResourceId>,
    /// In the chunk's offsets; or the error result when it cannot be renamed.
    pub(crate) edits: Result<Splices, Box<KrmResult>>,
}

/// What pass 2 does with a chunk (one byte: one per chunk, all held through pass 2).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Work {
    /// Nothing, unless objects are renamed (then it reads the chunk for references and
    /// old names).
    Idle,
    /// Reads it: it holds a workload or a kind with name-reference sites, or pass 1 did
    /// not parse it.
    Read,
    /// Reports what pass 1 made, without reading the chunk: it holds only ConfigMaps
    /// and Secrets that pass 2 would rename and otherwise leave alone (a renamed object
    /// is not asked about old names; a Secret never is), and nothing that refers to
    /// anything. Two of every three objects of a renamed application are such.
    Settled,
}

/// What pass 1 keeps beyond what stamping needs.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Keep {
    /// What only views read.
    pub(crate) views: bool,
    /// Each object's id as written, which pass 2 reports (see [`OwnRename`]).
    pub(crate) ids: bool,
}

/// What pass 1 learned of one chunk. Kept to 32 bytes (one per chunk, all held until
/// pass 2 starts): a larger table of them, freed, lets the allocator keep more of what
/// follows on its heap, and the whole run's peak memory grows by more than the table.
// `lookalikes` boxes a Vec on purpose: one pointer in every chunk's record, not three.
#[allow(clippy::box_collection)]
pub(crate) enum Pass1 {
    /// Not parsed: no source can be in it.
    Unparsed,
    Parsed {
        sources: Box<[SourceSeen]>,
        /// Objects that look like config-hash's configuration, among plain manifests:
        /// rare, so boxed (no room taken in every chunk's record).
        lookalikes: Option<Box<Vec<KrmResult>>>,
        /// Pass 2 has work here even without renames: a workload, or a kind with
        /// name-reference sites (whether or not it is also a source).
        busy: bool,
        /// Every object here is a renamed ConfigMap or Secret, with its own rename in
        /// `sources`, or a Secret kept: see [`Work::Settled`].
        settled: bool,
    },
}

impl Pass1 {
    /// The ConfigMaps and Secrets seen in the chunk.
    fn sources(&self) -> &[SourceSeen] {
        match self {
            Pass1::Unparsed => &[],
            Pass1::Parsed { sources, .. } => sources,
        }
    }

    /// Whether pass 2 must read the chunk again when nothing is renamed (with renames,
    /// every chunk is read again, for references and stale mentions). A ConfigMap or
    /// Secret alone is read once: its content is in the index, and only a rename edits
    /// it.
    pub(crate) fn busy(&self) -> bool {
        match self {
            Pass1::Unparsed => true,
            Pass1::Parsed { busy, .. } => *busy,
        }
    }
}

/// Pass 1 over every chunk, in parallel: a chunk whose text names no source (and no
/// producer of one) is not parsed.
pub(crate) fn run(
    body: &str,
    ctx: Context,
    frame: &Frame<'_>,
    chunks: &[Chunk],
    settings: &Settings,
    keep: Keep,
) -> Result<Vec<Pass1>, Stop> {
    let (config, catalog) = (&settings.config, &settings.catalog);
    let prefilter = catalog.prefilter_kinds();
    chunks
        .par_iter()
        .map(|chunk| {
            let text = chunk.piece().of(body);
            if !read::chunks::may_matter_before_stamping(text, &prefilter) {
                return Ok(Pass1::Unparsed);
            }
            frame.with_chunk(body, chunk, ctx, |tree, items| {
                let stream = !frame.is_resource_list();
                first_pass(tree, items, config, catalog, stream, keep)
            })
        })
        .collect()
}

/// What the passes share once pass 1 is done.
pub(crate) struct Indexed {
    pub(crate) renames: Renames,
    /// The objects renamed, by their key in the input, in input order (boxed as pass 1
    /// made them: see `spent`).
    pub(crate) renamed_list: Vec<(SourceKey, Box<Renaming>)>,
    /// Every source under its final name.
    pub(crate) index: SourceIndex,
    /// The first results: configuration look-alikes, then renames refused.
    pub(crate) results: Vec<KrmResult>,
    /// Sources that appear more than once.
    pub(crate) duplicates: Vec<KrmResult>,
    /// Objects kustomize's generators made, which keep their names here.
    pub(crate) generated: usize,
    /// Per chunk: what pass 2 does with it.
    pub(crate) work: Vec<Work>,
    /// The renames of the settled chunks, in input order, boxed as pass 1 made them:
    /// one pointer each here, where moved out of their boxes they took the heap peak of
    /// renaming 1,000 applications 1.7% higher.
    #[allow(clippy::vec_box)]
    pub(crate) own: Vec<Box<OwnRename>>,
    /// When objects are renamed, pass 1's records of each chunk, emptied, to be freed
    /// once pass 2 is done. Pass 1 made them on the workers; freed here, between the
    /// passes, they would leave holes all over the workers' heaps, which many of pass
    /// 2's allocations would then search (renaming 100,000 applications, the allocator
    /// took 38% of pass 2's time, against 20% with these and the renames kept).
    pub(crate) spent: Vec<Vec<SourceSeen>>,
}

/// Between the passes: decides the renames, then indexes every source under its final
/// name.
pub(crate) fn index_sources(mut pass1: Vec<Pass1>) -> Indexed {
    let mut renames = Renames::default();
    let mut results = Vec::new();
    for p in &mut pass1 {
        if let Pass1::Parsed {
            lookalikes: Some(lookalikes),
            ..
        } = p
        {
            results.append(lookalikes);
        }
    }
    // The tables below are made at their size: grown an entry at a time, each would
    // hash every key again at every doubling, on one thread. (Refusals below only make
    // the renames fewer.)
    let (sources_n, renamed_n) = counts(&pass1);
    refuse_taken_names(&mut pass1, renamed_n);
    renames.reserve(renamed_n);
    let mut renamed_list: Vec<(SourceKey, Box<Renaming>)> = Vec::with_capacity(renamed_n);
    let mut generated = 0usize;
    // Per renamed key, the chunk that renames it. Pass 2 renames each object after the
    // last of its key (two objects of one key are duplicates, said elsewhere): such
    // chunks are read again rather than settled. By hash only, as equal hashes of
    // different keys only send a chunk to be read.
    let state = std::hash::RandomState::new();
    let mut renamed_in: HashMap<u64, usize> = HashMap::with_capacity(renamed_n);
    let mut unsettled = Vec::new();
    for (chunk, p) in pass1.iter_mut().enumerate() {
        let Pass1::Parsed {
            sources, settled, ..
        } = p
        else {
            continue;
        };
        for s in sources.iter_mut() {
            let id = &s.entry.id;
            // Taken, not copied: nothing after this reads a decision.
            match std::mem::replace(&mut s.decision, Decision::Keep) {
                Decision::Keep => {}
                Decision::Generated {
                    name_after_build,
                    opted_in,
                } => {
                    generated += usize::from(opted_in);
                    renames.add_after_build(s.kind, id.namespace(), id.name(), &name_after_build);
                }
                Decision::Refused(r) => {
                    // Refused since pass 1 (its name is taken): its own rename goes.
                    *settled = false;
                    results.push(*r);
                }
                Decision::Rename(r) => {
                    let key = state.hash_one((s.kind, id.namespace(), id.name()));
                    if let Some(other) = renamed_in.insert(key, chunk) {
                        unsettled.extend([other, chunk]);
                    }
                    renames.add(s.kind, id.namespace(), id.name(), &r.base, &r.new_name);
                    renamed_list.push((SourceKey::new(s.kind, id.namespace(), id.name()), r));
                }
            }
        }
    }
    for chunk in unsettled {
        if let Pass1::Parsed { settled, .. } = &mut pass1[chunk] {
            *settled = false;
        }
    }
    // Existing objects matter only to renaming (never taken for an earlier suffixed name).
    if !renames.is_empty() {
        renames.reserve_existing(sources_n);
        for s in pass1.iter().flat_map(Pass1::sources) {
            renames.add_existing(s.kind, s.entry.id.namespace(), s.entry.id.name());
        }
    }
    let mut indexed = Indexed {
        index: SourceIndex::with_capacity(sources_n),
        work: Vec::with_capacity(pass1.len()),
        renames,
        renamed_list,
        results,
        duplicates: Vec::new(),
        generated,
        own: Vec::new(),
        spent: Vec::new(),
    };
    indexed.index_under_final_names(pass1);
    indexed
}

impl Indexed {
    /// Indexes every source under its final name, and says per chunk what pass 2 does
    /// with it.
    fn index_under_final_names(&mut self, pass1: Vec<Pass1>) {
        let renaming = !self.renames.is_empty();
        for p in pass1 {
            let settled = matches!(p, Pass1::Parsed { settled: true, .. });
            self.work.push(match p.busy() {
                true => Work::Read,
                false if settled => Work::Settled,
                false => Work::Idle,
            });
            let Pass1::Parsed { sources, .. } = p else {
                continue;
            };
            let mut sources = sources.into_vec();
            for mut s in sources.drain(..) {
                if let (true, Some(mut o)) = (settled, s.own.take()) {
                    o.chunk = self.work.len() - 1;
                    self.own.push(o);
                }
                let id = &s.entry.id;
                let name = self
                    .renames
                    .final_name(s.kind, id.namespace(), id.name())
                    .unwrap_or(id.name())
                    .to_string();
                let key = SourceKey::new(s.kind, id.namespace(), &name);
                if let Err(dup) = self.index.insert(key, s.entry) {
                    self.duplicates.push(*dup);
                }
            }
            // Without renames, pass 2 allocates too little for the holes to matter.
            if renaming && sources.capacity() > 0 {
                self.spent.push(sources);
            }
        }
    }
}

/// How many sources pass 1 saw, and how many of them it renames.
fn counts(pass1: &[Pass1]) -> (usize, usize) {
    pass1
        .iter()
        .flat_map(Pass1::sources)
        .fold((0, 0), |(all, renamed), s| {
            (all + 1, renamed + usize::from(renaming(s).is_some()))
        })
}

/// The object's rename, when it is renamed.
fn renaming(s: &SourceSeen) -> Option<&Renaming> {
    match &s.decision {
        Decision::Rename(r) => Some(r),
        _ => None,
    }
}

/// Refuses each rename whose new name is already another object's name or base name
/// (same kind and namespace), and that other object's rename too: `cm` would take the
/// name of an object written `cm-bdg947hgcc`, and the output would hold two objects a
/// later run could not tell apart. Refused, both keep their names, and a run on the
/// output refuses them again. Two objects of one name are a duplicate, said elsewhere.
/// `renamed`: how many sources are renamed.
fn refuse_taken_names(pass1: &mut [Pass1], renamed: usize) {
    if renamed == 0 {
        return;
    }
    let seen: Vec<&SourceSeen> = pass1.iter().flat_map(Pass1::sources).collect();
    // The new names by their hash only (this runs when every object is renamed, where
    // memory peaks): a hit is checked against the objects themselves.
    let state = std::hash::RandomState::new();
    let hash = |s: &SourceSeen, name: &str| state.hash_one((s.kind, s.entry.id.namespace(), name));
    let mut targets: HashMap<u64, usize> = HashMap::with_capacity(renamed);
    for (i, s) in seen.iter().enumerate() {
        if let Some(r) = renaming(s) {
            targets.entry(hash(s, &r.new_name)).or_insert(i);
        }
    }
    let mut refused: HashMap<usize, KrmResult> = HashMap::new();
    for (i, s) in seen.iter().enumerate() {
        let names = std::iter::once(s.entry.id.name()).chain(renaming(s).map(|r| r.base.as_str()));
        for name in names {
            let Some(&t) = targets.get(&hash(s, name)) else {
                continue;
            };
            let taker = seen[t];
            let Some(r) = renaming(taker) else { continue };
            let (taker_id, holder_id) = (&taker.entry.id, &s.entry.id);
            // One name: the object itself (its name is its new name already), or a
            // duplicate (said elsewhere).
            if taker_id.name() == holder_id.name() {
                continue;
            }
            // Equal hashes of different names.
            if taker.kind != s.kind
                || taker_id.namespace() != holder_id.namespace()
                || r.new_name != name
            {
                continue;
            }
            // Both: the holder's base name would find the taker's references, or its
            // name the taker's.
            for (at, shown) in [(t, taker), (i, *s)] {
                if renaming(shown).is_none() || refused.contains_key(&at) {
                    continue;
                }
                let finding = Finding::NameTaken {
                    new_name: r.new_name.clone(),
                    taker: taker_id.name().to_string(),
                    holder: holder_id.name().to_string(),
                };
                refused.insert(at, shown.entry.result(finding).at_field("metadata.name"));
            }
        }
    }
    let seen = pass1.iter_mut().flat_map(|p| match p {
        Pass1::Parsed { sources, .. } => &mut sources[..],
        Pass1::Unparsed => &mut [],
    });
    for (i, s) in seen.enumerate() {
        if let Some(result) = refused.remove(&i) {
            s.decision = Decision::Refused(Box::new(result));
        }
    }
}

/// Pass 1 over the items of one tree; `stream`: they are plain manifests.
pub(crate) fn first_pass(
    tree: &Tree<'_>,
    items: &[NodeId],
    config: &Config,
    catalog: &Catalog,
    stream: bool,
    keep: Keep,
) -> Pass1 {
    let mut sources = Vec::new();
    let mut lookalikes = Vec::new();
    let mut busy = false;
    let mut settled = true;
    // Renamed objects, by position in `sources`, with their item: their own renames are
    // made once the chunk is known to settle (otherwise pass 2 makes them).
    let mut renamed = Vec::new();
    for &item in items {
        if stream && crate::model::config::looks_like_function_config(tree, item) {
            lookalikes.push(KrmResult::new(Finding::ConfigAmongManifests).about(tree, item));
        }
        if is_local_config(tree, item) {
            continue;
        }
        let id = config.placed(ResourceId::of(tree, item));
        // Whatever else it is (a catalog may declare any kind a workload).
        busy |= catalog.workload(id.api_version(), id.kind()).is_some()
            || catalog.has_name_sites(id.api_version(), id.kind());
        let Some(kind) = SourceKind::from_kind(id.api_version(), id.kind()) else {
            // Anything else may mention an old name, or make a source.
            settled = false;
            read_producers(tree, item, &id, catalog, keep.views, &mut sources);
            continue;
        };
        let decision = renames::decide(tree, item, &id, kind, config);
        match (&decision, kind) {
            (Decision::Rename(_), SourceKind::ConfigMap | SourceKind::Secret) => {
                renamed.push((sources.len(), item));
            }
            (Decision::Keep, kind) if !crate::edit::rename::asked_about_old_names(kind) => {}
            _ => settled = false,
        }
        let mut entry = Box::new(SourceEntry::read(tree, item, id, kind));
        if keep.views {
            entry.hashed_name = sources::hashed_name(tree, item, entry.id.name());
        }
        sources.push(SourceSeen {
            kind,
            entry,
            decision,
            own: None,
        });
    }
    let settled = settled && !busy;
    if settled {
        for (i, item) in renamed {
            let s = &mut sources[i];
            if let Decision::Rename(r) = &s.decision {
                let own = own_rename(tree, item, &s.entry.id, r, config, keep.ids);
                s.own = Some(Box::new(own));
            }
        }
    }
    // Most chunks hold one item: no spare capacity for the whole run.
    Pass1::Parsed {
        sources: sources.into_boxed_slice(),
        lookalikes: (!lookalikes.is_empty()).then(|| Box::new(lookalikes)),
        busy,
        settled,
    }
}

/// The ConfigMaps and Secrets that producers make of the item (a SecretProviderClass'
/// Secrets).
fn read_producers(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    catalog: &Catalog,
    views: bool,
    sources: &mut Vec<SourceSeen>,
) {
    for p in catalog.producers_for(id.api_version(), id.kind()) {
        for made in crate::read::produced::read(tree, item, id, p) {
            let kind = made.kind;
            let mut entry = Box::new(SourceEntry::produced(tree, item, id, made, p.runtime));
            if views {
                entry.hashed_name = sources::hashed_name(tree, item, entry.id.name());
            }
            sources.push(SourceSeen {
                kind,
                entry,
                decision: Decision::Keep,
                own: None,
            });
        }
    }
}

/// The renamed object's edits to itself (see [`OwnRename`]).
fn own_rename(
    tree: &Tree<'_>,
    item: NodeId,
    id: &ResourceId,
    r: &Renaming,
    config: &Config,
    ids: bool,
) -> OwnRename {
    let mut edits =
        crate::edit::rename::rename_object(tree, item, id, &r.base, &r.new_name, config);
    // Held from here to the end of pass 2: no spare room.
    if let Ok(splices) = &mut edits {
        splices.shrink_to_fit();
    }
    let id = ids.then(|| written_id(tree, item, id.clone(), config).0);
    OwnRename {
        chunk: 0,
        id,
        edits,
    }
}

/// The item's id as written (results, graph and `--check` name it so), given the id
/// it has where it is placed; and the namespace it was placed in when written without
/// one.
pub(crate) fn written_id(
    tree: &Tree<'_>,
    item: NodeId,
    placed: ResourceId,
    config: &Config,
) -> (ResourceId, Option<String>) {
    // Read again only when it may have been placed.
    if config.namespace.is_none() {
        return (placed, None);
    }
    let written = ResourceId::of(tree, item);
    let ns = match written.namespace() {
        None => placed.namespace().map(str::to_string),
        Some(_) => None,
    };
    (written, ns)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEEP: Keep = Keep {
        views: false,
        ids: false,
    };

    /// Which objects of `input` (one chunk, every object opted in unless it says
    /// otherwise) are refused a hashed name, by name.
    fn refused(input: &str) -> Vec<String> {
        let config = crate::model::config::Config {
            name_suffix: true,
            ..Default::default()
        };
        let catalog = crate::model::catalog::Catalog::builtin();
        let tree = crate::yaml::parse(input).unwrap();
        let items: Vec<NodeId> = tree.documents().iter().map(|d| d.root()).collect();
        let mut pass1 = vec![first_pass(&tree, &items, &config, &catalog, true, KEEP)];
        let renamed = counts(&pass1).1;
        refuse_taken_names(&mut pass1, renamed);
        let Pass1::Parsed { sources, .. } = &pass1[0] else {
            panic!("parsed")
        };
        sources
            .iter()
            .filter(|s| matches!(s.decision, Decision::Refused(_)))
            .map(|s| s.entry.id.name().to_string())
            .collect()
    }

    fn object(kind: &str, namespace: &str, name: &str, extra: &str) -> String {
        format!(
            "---\napiVersion: v1\nkind: {kind}\nmetadata: {{name: {name}, namespace: {namespace}{extra}}}\ndata: {{a: '1'}}\n"
        )
    }

    /// `cm` with this content is named `cm-h29d89cmmt`.
    #[test]
    fn a_hashed_name_another_object_holds_is_refused_on_both() {
        let taken = object("ConfigMap", "a", "cm", "")
            + &object("ConfigMap", "a", "cm-h29d89cmmt", "").replace("'1'", "'2'");
        assert_eq!(refused(&taken), ["cm", "cm-h29d89cmmt"]);
        // As a base name (an earlier run's output).
        let base = object(
            "ConfigMap",
            "a",
            "cm-h29d89cmmt",
            ", annotations: {config-hash.dev/base-name: cm}",
        ) + &object(
            "ConfigMap",
            "a",
            "cm-h29d89cmmt-6gtghh96k8",
            ", annotations: {config-hash.dev/base-name: cm-h29d89cmmt}",
        )
        .replace("'1'", "'2'");
        assert_eq!(
            refused(&base),
            ["cm-h29d89cmmt", "cm-h29d89cmmt-6gtghh96k8"]
        );
        // A holder that keeps its name anyway: only the taker is refused.
        let kept = object("ConfigMap", "a", "cm", "")
            + &object(
                "ConfigMap",
                "a",
                "cm-h29d89cmmt",
                ", annotations: {config-hash.dev/name-suffix: 'false'}",
            );
        assert_eq!(refused(&kept), ["cm"]);
        // Another namespace, another kind, the object's own name, a duplicate: no clash.
        let apart = object("ConfigMap", "a", "cm", "")
            + &object("ConfigMap", "b", "cm-h29d89cmmt", "")
            + &object("Secret", "a", "cm-h29d89cmmt", "")
            + &object(
                "ConfigMap",
                "c",
                "cm-h29d89cmmt",
                ", annotations: {config-hash.dev/base-name: cm}",
            )
            + &object("ConfigMap", "d", "cm", "")
            + &object("ConfigMap", "d", "cm", "")
            + &object(
                "ConfigMap",
                "e",
                "cm-h29d89cmmt",
                ", annotations: {config-hash.dev/base-name: cm}",
            )
            + &object(
                "ConfigMap",
                "e",
                "cm-h29d89cmmt",
                ", annotations: {config-hash.dev/base-name: cm}",
            );
        assert!(refused(&apart).is_empty());
    }

    /// What pass 2 does with each chunk (one text each), every object opted in to
    /// renaming unless it says otherwise.
    fn work(chunks: &[String]) -> Vec<&'static str> {
        let config = crate::model::config::Config {
            name_suffix: true,
            ..Default::default()
        };
        let catalog = crate::model::catalog::Catalog::builtin();
        let trees: Vec<Tree<'_>> = chunks
            .iter()
            .map(|c| crate::yaml::parse(c).unwrap())
            .collect();
        let pass1 = trees
            .iter()
            .map(|tree| {
                let items: Vec<NodeId> = tree.documents().iter().map(|d| d.root()).collect();
                first_pass(tree, &items, &config, &catalog, true, KEEP)
            })
            .collect();
        let work = index_sources(pass1).work;
        work.iter()
            .map(|w| match w {
                Work::Idle => "idle",
                Work::Read => "read",
                Work::Settled => "settled",
            })
            .collect()
    }

    /// A chunk is settled (pass 2 takes pass 1's renames and does not parse it again)
    /// only when pass 2 would do nothing else there: each object a ConfigMap or Secret
    /// renamed, or a Secret kept; and only while the rename stands.
    #[test]
    fn a_chunk_settles_only_when_pass_two_would_just_rename_it() {
        let cm = |name: &str| object("ConfigMap", "a", name, "");
        let keep = ", annotations: {config-hash.dev/name-suffix: 'false'}";
        let generated = ", annotations: {internal.config.kubernetes.io/needsHashSuffix: enabled}";
        let deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: []}}}\n";
        let service = "---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\n";
        let chunks = [
            cm("one"),
            object("Secret", "a", "s", "") + &object("Secret", "a", "kept", keep),
            // May mention an old name.
            object("ConfigMap", "a", "kept", keep),
            cm("two") + service,
            object("ConfigMap", "a", "gen", generated),
            // Refers to objects.
            cm("three") + deployment,
            deployment.to_string(),
            // Renamed twice (a duplicate): pass 2 renames both after the last.
            cm("twice"),
            cm("twice").replace("'1'", "'2'"),
            // Refused between the passes: `cm` takes the name `cm-h29d89cmmt` holds.
            cm("cm"),
            cm("cm-h29d89cmmt").replace("'1'", "'2'"),
        ];
        assert_eq!(
            work(&chunks),
            [
                "settled", "settled", "idle", "idle", "idle", "read", "read", "idle", "idle",
                "idle", "idle"
            ]
        );
    }

    #[test]
    fn pass_two_reads_again_only_chunks_it_may_edit() {
        let config = crate::model::config::Config::default();
        let catalog = crate::model::catalog::Catalog::builtin();
        let busy = |text: &str| {
            let tree = crate::yaml::parse(text).unwrap();
            let root = tree.documents()[0].root();
            first_pass(&tree, &[root], &config, &catalog, false, KEEP).busy()
        };
        // Its content is in the index; only a rename (which reads every chunk) edits it.
        assert!(!busy(
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n"
        ));
        assert!(!busy(
            "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\ndata: {a: Yg==}\n"
        ));
        assert!(!busy(
            "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n"
        ));
        assert!(busy(
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {template: {spec: {containers: []}}}\n"
        ));
    }
}
